// What the pages read once and spell nowhere themselves (`GET /api/meta`): the run
// statuses, the x axes and their address words, the default α, a comparison's groupings,
// bands and file formats, the client timeline's states, each dataset's first metric.
import { api } from "./api.js";

/** @typedef {import("./api.js").Meta} Meta */

/** @type {Promise<Meta>|null} */
let loading = null;

/** The facts, fetched on the first call and kept; a failed fetch is tried again next time. @returns {Promise<Meta>} */
export function loadMeta() {
  loading ??= api.meta().catch((err) => {
    loading = null;
    throw err;
  });
  return loading;
}
