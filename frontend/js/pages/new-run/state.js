// The new-run form's address (#/new?preset=example1&variant=…&set=client.lr%3D0.05&mode=sweep
// &sweep=…, mode=tune&tune=…, or from=<run>): what the form starts from, the fields edited
// away from it, the mode and its sweep or tune, so that a reload or a shared link restores
// them. Pure: tested by node --test.
import { leaves } from "../../paths.js";

/**
 * @typedef {{name: string, grid: Record<string, any[]>, cells: import("../../api.js").Cell[], seeds: number[]}} Sweep
 * @typedef {{methods: string[]|null, space: [string, any[]][], trials: number, seeds: number,
 *   sampler: string, pruner: string, objective: string}} Tune methods: null for the preset's
 *   whole comparison set; space: each searched key and its range's values, as the rows hold them
 * @typedef {"single"|"sweep"|"tune"} Mode
 * @typedef {{mode: Mode, preset: string|null, variant: string|null, from: number|null,
 *   sets: string[], sweep: Sweep|null, tune: Tune|null}} Address what the address asks the form to show
 * @typedef {{preset: string|null, variant: string|null, from: number|null, mode: string,
 *   sweep: string|null, tune?: string|null, edits: string[]}} Shown what the form shows; sweep and
 *   tune: as JSON, null where it is the empty one
 */

/** A tune as the form starts it: POST /api/tunes's defaults, searching client.lr. @type {Tune} */
export const DEFAULT_TUNE = {
  methods: null,
  space: [["client.lr", ["log:1e-3:1"]]],
  trials: 20,
  seeds: 3,
  sampler: "tpe",
  pruner: "median",
  objective: "final_val_acc",
};

const MODES = ["single", "sweep", "tune"];

/** @param {URLSearchParams} query @returns {Address} */
export function readAddress(query) {
  const from = Number(query.get("from"));
  return {
    mode: /** @type {Mode} */ (MODES.find((m) => m === query.get("mode")) ?? "single"),
    preset: query.get("preset") || null,
    variant: query.get("variant"),
    from: Number.isInteger(from) && from > 0 ? from : null,
    sets: query.getAll("set"),
    sweep: sweepFromAddress(query.get("sweep")),
    tune: tuneFromAddress(query.get("tune")),
  };
}

/** The address of what the form shows. @param {Shown} s */
export function writeAddress(s) {
  const q = new URLSearchParams();
  if (s.preset) q.set("preset", s.preset);
  if (s.preset && s.variant) q.set("variant", s.variant);
  if (s.from !== null) q.set("from", String(s.from));
  if (s.mode !== "single") q.set("mode", s.mode);
  if (s.mode === "sweep" && s.sweep !== null) q.set("sweep", s.sweep);
  if (s.mode === "tune" && s.tune) q.set("tune", s.tune);
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

/**
 * The tune an address holds (`tune=` JSON), what it lacks or garbles from DEFAULT_TUNE;
 * null when it has none or it does not read as JSON.
 * @param {string|null} text
 * @returns {Tune|null}
 */
export function tuneFromAddress(text) {
  if (!text) return null;
  let v;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (!v || typeof v !== "object") return null;
  const d = DEFAULT_TUNE;
  const count = (/** @type {any} */ n, /** @type {number} */ fallback) => (Number.isInteger(n) ? n : fallback);
  const word = (/** @type {any} */ t, /** @type {string} */ fallback) => (typeof t === "string" && t ? t : fallback);
  const row = (/** @type {any} */ r) => Array.isArray(r) && typeof r[0] === "string" && Array.isArray(r[1]);
  return {
    methods: Array.isArray(v.methods) ? v.methods.filter((/** @type {any} */ m) => typeof m === "string") : null,
    space: Array.isArray(v.space) ? v.space.filter(row) : d.space,
    trials: count(v.trials, d.trials),
    seeds: count(v.seeds, d.seeds),
    sampler: word(v.sampler, d.sampler),
    pruner: word(v.pruner, d.pruner),
    objective: word(v.objective, d.objective),
  };
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
