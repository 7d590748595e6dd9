// The new-run form's address (#/new?preset=example1&variant=…&set=client.lr%3D0.05&mode=sweep
// &sweep=…, or from=<run>): what the form starts from, the fields edited away from it, the
// mode and the sweep, so that a reload or a shared link restores them. Pure: tested by
// node --test.
import { leaves } from "../../paths.js";

/**
 * @typedef {{name: string, grid: Record<string, any[]>, cells: import("../../api.js").Cell[], seeds: number[]}} Sweep
 * @typedef {{mode: "single"|"sweep", preset: string|null, variant: string|null, from: number|null,
 *   sets: string[], sweep: Sweep|null}} Address what the address asks the form to show
 * @typedef {{preset: string|null, variant: string|null, from: number|null, mode: string,
 *   sweep: string|null, edits: string[]}} Shown what the form shows; sweep: as JSON, null where it is the empty one
 */

/** @param {URLSearchParams} query @returns {Address} */
export function readAddress(query) {
  const from = Number(query.get("from"));
  return {
    mode: query.get("mode") === "sweep" ? "sweep" : "single",
    preset: query.get("preset") || null,
    variant: query.get("variant"),
    from: Number.isInteger(from) && from > 0 ? from : null,
    sets: query.getAll("set"),
    sweep: sweepFromAddress(query.get("sweep")),
  };
}

/** The address of what the form shows. @param {Shown} s */
export function writeAddress(s) {
  const q = new URLSearchParams();
  if (s.preset) q.set("preset", s.preset);
  if (s.preset && s.variant) q.set("variant", s.variant);
  if (s.from !== null) q.set("from", String(s.from));
  if (s.mode === "sweep") q.set("mode", "sweep");
  if (s.mode === "sweep" && s.sweep !== null) q.set("sweep", s.sweep);
  for (const edit of s.edits) q.append("set", edit);
  return q;
}

/**
 * The sweep an address holds (`sweep=` JSON: name, grid, cells, seeds), or null when it
 * has none or it does not read as one.
 * @param {string|null} text
 * @returns {Sweep|null}
 */
export function sweepFromAddress(text) {
  if (!text) return null;
  try {
    const v = JSON.parse(text);
    const grid = v && typeof v.grid === "object" && !Array.isArray(v.grid) ? v.grid : {};
    return {
      name: typeof v.name === "string" ? v.name : "",
      grid: Object.fromEntries(Object.entries(grid).filter(([, values]) => Array.isArray(values))),
      cells: Array.isArray(v.cells)
        ? v.cells.filter((/** @type {any} */ c) => c && typeof c.label === "string" && typeof c.set === "object")
        : [],
      seeds: Array.isArray(v.seeds) ? v.seeds.filter((/** @type {any} */ s) => Number.isInteger(s)) : [],
    };
  } catch {
    return null;
  }
}

/** Each field's value as JSON, by its dotted path. @param {Record<string, any>} config @returns {Record<string, string>} */
export function snapshot(config) {
  return Object.fromEntries(Object.entries(leaves(config)).map(([path, v]) => [path, JSON.stringify(v)]));
}

/**
 * The fields edited away from what filled the form, as "path=value".
 * @param {Record<string, string>} filled the snapshot as the form was filled @param {Record<string, string>} now
 */
export function edits(filled, now) {
  return Object.entries(now)
    .filter(([path, v]) => filled[path] !== v)
    .map(([path, v]) => `${path}=${assigned(JSON.parse(v))}`);
}

/**
 * A value as an edit in the address writes it: JSON, but a text as it is where it does
 * not read as JSON (`name=my run`, and `name="5"` for the text 5).
 * @param {any} value
 */
export function assigned(value) {
  if (typeof value !== "string") return JSON.stringify(value);
  try {
    JSON.parse(value);
    return JSON.stringify(value);
  } catch {
    return value;
  }
}
