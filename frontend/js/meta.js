// The UI facts the server defines once (`GET /api/meta`), fetched on first use and kept:
// the run statuses, the charts' x axes and their address words, the default α, a
// comparison's groupings, bands and file formats, the client timeline's states and
// colours, each dataset's first metric.
import { api } from "./api.js";

/** @type {Promise<import("./api.js").Meta>|null} */
let loading = null;

/** The facts, fetched on the first call; a failed fetch is tried again next time. @returns {Promise<import("./api.js").Meta>} */
export function loadMeta() {
  loading ??= api.meta().catch((err) => {
    loading = null;
    throw err;
  });
  return loading;
}
