// The run statuses (`GET /api/meta`, meta.js): the runs page's filter and the experiment
// page's counts read them in the server's lifecycle order.
import { loadMeta } from "./meta.js";

/** @typedef {import("./api.js").StatusSpec} StatusSpec */

/** The statuses, fetched on the first call; a failed fetch is tried again next time. @returns {Promise<StatusSpec[]>} */
export async function loadStatuses() {
  return (await loadMeta()).statuses;
}
