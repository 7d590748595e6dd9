// The runs table's address (#/runs?status=…&rank=…&offset=50): its filters and page, read
// from the address and written back to it. Pure: no DOM, tested by node --test.

export const PAGE_SIZE = 50;

/** The archived filter's choices, by [value, text]; "" lists runs not archived. */
export const ARCHIVED_OPTIONS = [
  ["", "not archived"],
  ["yes", "archived"],
  ["any", "archived or not"],
];

/**
 * @typedef {{status: string, algorithm: string, experimentId: string, q: string, rankBy: string,
 *   tag: string, archived: string, offset: number}} Filters
 */

/** The filters an address holds; a value it does not know reads as none. @param {URLSearchParams} q @returns {Filters} */
export function parseFilters(q) {
  const archived = q.get("archived") ?? "";
  return {
    status: q.get("status") ?? "",
    algorithm: q.get("algorithm") ?? "",
    experimentId: q.get("experiment") ?? "",
    q: q.get("q") ?? "",
    rankBy: q.get("rank") ?? "",
    tag: q.get("tag") ?? "",
    archived: ["yes", "any"].includes(archived) ? archived : "",
    offset: Number(q.get("offset") ?? 0) || 0,
  };
}

/**
 * The filters as the address writes them (`router.replaceQuery` leaves out the empty ones).
 * @param {Filters} f @returns {Record<string, string|number>}
 */
export function filterQuery(f) {
  return {
    status: f.status,
    algorithm: f.algorithm,
    experiment: f.experimentId,
    q: f.q,
    rank: f.rankBy,
    tag: f.tag,
    archived: f.archived,
    offset: f.offset || "",
  };
}

/**
 * What the table asks `GET /api/runs` for: one page, and an experiment's runs as they
 * progress (running, then queued in the order they start) unless ranked.
 * @param {Filters} f
 */
export function listParams(f) {
  return {
    ...f,
    archived: f.archived || undefined,
    order: f.experimentId && !f.rankBy ? /** @type {const} */ ("activity") : undefined,
    limit: PAGE_SIZE,
  };
}

/** Whether any filter narrows the list (the empty state says so). @param {Filters} f */
export function filtered(f) {
  return Boolean(f.status || f.algorithm || f.experimentId || f.q || f.tag || f.archived);
}

/** The page shown (from 1) and the number of pages. @param {number} offset @param {number} count */
export function pageOf(offset, count) {
  return { page: Math.floor(offset / PAGE_SIZE) + 1, pages: Math.max(1, Math.ceil(count / PAGE_SIZE)) };
}

/** The offset one page forward (1) or back (-1), never before the first. @param {number} offset @param {number} delta */
export function moved(offset, delta) {
  return Math.max(0, offset + delta * PAGE_SIZE);
}

/** "1 run", "3 runs". @param {number} n */
export function runCount(n) {
  return `${n} run${n === 1 ? "" : "s"}`;
}
