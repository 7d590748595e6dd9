// Hash routes: #/runs, #/new, #/runs/<id>, #/compare?runs=1,2&metric=test_acc,
// #/experiments/<id>, #/experiments/<id>/reproduction.

/** @typedef {{page: string, id: number|null, query: URLSearchParams}} Route */

/** @param {string} hash @returns {Route} */
export function parseRoute(hash) {
  const raw = hash.replace(/^#/, "") || "/runs";
  const [path, search = ""] = raw.split("?", 2);
  const parts = path.split("/").filter(Boolean);
  const query = new URLSearchParams(search);
  if (parts[0] === "runs" && parts[1] && /^\d+$/.test(parts[1])) return { page: "run", id: Number(parts[1]), query };
  if (parts[0] === "experiments" && parts[1] && /^\d+$/.test(parts[1]) && parts[2] === "reproduction") {
    return { page: "reproduction", id: Number(parts[1]), query };
  }
  if (parts[0] === "experiments" && parts[1] && /^\d+$/.test(parts[1]) && !parts[2])
    return { page: "experiment", id: Number(parts[1]), query };
  if (parts[0] === "tunes" && parts[1] && /^\d+$/.test(parts[1])) return { page: "tune", id: Number(parts[1]), query };
  if (parts[0] === "new" || parts[0] === "compare") return { page: parts[0], id: null, query };
  return { page: "runs", id: null, query };
}

/**
 * Reflect a page's state in the address bar without reloading the page.
 * @param {string} path e.g. "/compare"
 * @param {Record<string, any>|URLSearchParams} params a URLSearchParams as it is (a key
 *   may repeat), else arrays joined with commas and empty values left out
 */
export function replaceQuery(path, params) {
  // Not once the address shows another page: a page's late refresh (a timer, a fetch)
  // would otherwise undo a navigation whose `hashchange` has not fired yet.
  const current = location.hash.replace(/^#/, "").split("?")[0];
  if (current && current !== path) return;
  const q = params instanceof URLSearchParams ? params : new URLSearchParams();
  for (const [k, v] of params instanceof URLSearchParams ? [] : Object.entries(params)) {
    if (v === undefined || v === null || v === "" || (Array.isArray(v) && !v.length)) continue;
    q.set(k, Array.isArray(v) ? v.join(",") : String(v));
  }
  const s = q.toString();
  history.replaceState(null, "", `#${path}${s ? `?${s.replaceAll("%2C", ",")}` : ""}`);
}

/** @param {string} path @param {Record<string, any>} [params] */
export function go(path, params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== "") q.set(k, Array.isArray(v) ? v.join(",") : String(v));
  const s = q.toString();
  location.hash = `#${path}${s ? `?${s.replaceAll("%2C", ",")}` : ""}`;
}

/** Comma-separated positive integers from a query value. @param {string|null} s */
export function idList(s) {
  return (s ?? "")
    .split(",")
    .map((t) => Number(t.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
}
