// The run statuses (`GET /api/meta`), fetched once and kept: the runs page's filter and
// the experiment page's counts read them in the server's lifecycle order.
import { api } from "./api.js";

/** @typedef {import("./api.js").StatusSpec} StatusSpec */

/** @type {Promise<StatusSpec[]>|null} */
let loading = null;

/** The statuses, fetched on the first call; a failed fetch is tried again next time. @returns {Promise<StatusSpec[]>} */
export function loadStatuses() {
  loading ??= api.statuses().catch((err) => {
    loading = null;
    throw err;
  });
  return loading;
}
