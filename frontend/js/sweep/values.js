// A sweep's values and errors, pure (no DOM; `node --test` reads it): typed values parsed,
// its size, a preset's methods as cells, and where the server's errors about it go.
import { plainMessage, sweepMessages } from "../field-errors.js";

/** @typedef {import("../api.js").Cell} Cell */
/** @typedef {import("../api.js").FieldError} FieldError */

/**
 * Parse "0, 1, 2" into values of a field's kind; unparsable items are kept as text so that
 * the API reports them with their field path.
 * @param {string} text @param {string} kind
 */
export function parseValues(text, kind) {
  const items = text
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  if (kind === "int" || kind === "number") return items.map((t) => (Number.isNaN(Number(t)) ? t : Number(t)));
  return items;
}

/**
 * Number of runs a sweep creates: cells (none: one) × grid combinations × seeds.
 * @param {Record<string, any[]>} grid @param {any[]} seeds @param {Cell[]} [cells]
 */
export function sweepSize(grid, seeds, cells = []) {
  return Math.max(1, cells.length) * Object.values(grid).reduce((n, values) => n * values.length, 1) * seeds.length;
}

/** A preset's methods as cells: each labelled with its algorithm. @param {import("../api.js").Method[]} methods @returns {Cell[]} */
export function methodCells(methods) {
  return methods.map((m) => ({ label: m.label || m.algorithm, set: { "algorithm.name": m.algorithm, ...m.set } }));
}

/** "cafed — client.lr = 0.01, server.lr = 0.3": a cell's settings beyond its label. @param {Cell} cell */
export function cellText(cell) {
  const settings = Object.entries(cell.set)
    .filter(([k, v]) => !(k === "algorithm.name" && v === cell.label))
    .map(([k, v]) => `${k} = ${typeof v === "string" ? v : JSON.stringify(v)}`);
  return [cell.label, settings.join(", ")].filter(Boolean).join(" — ");
}

/** The "label, seed=N: " the server puts before an error about one run of a sweep. */
const RUN_PREFIX = /^(?:[^:]*, )?seed=\d+: /;

/**
 * A cell's error in plain words: the setting it is about, without the "label, seed=N: "
 * the server puts first (the row names the cell).
 * @param {string} key @param {string} message
 */
export function cellError(key, message) {
  const text = message.replace(RUN_PREFIX, "");
  return key ? `${key}: ${text}` : text;
}

/**
 * Where the server's errors about a sweep go: the seeds' field (`seeds`, `seeds.<i>`: its
 * last message), a swept field's row (`grid.<path>`: its messages said once, by row index),
 * a cell's row (`cells.<i>[.set.<key>]`: its messages in plain words, by cell index), or
 * elsewhere (`rest`).
 * @param {FieldError[]} errors @param {[string, any[]][]} rows each swept field's path and values, in row order
 * @param {Cell[]} cells the sweep's cells
 * @returns {{seeds: string|null, rows: Map<number, string>, cells: Map<number, string[]>, rest: FieldError[]}}
 */
export function placeErrors(errors, rows, cells) {
  /** @type {string|null} */
  let seeds = null;
  /** @type {Map<number, FieldError[]>} */
  const byRow = new Map();
  /** @type {Map<number, Set<string>>} */
  const byCell = new Map();
  const rest = errors.filter((e) => {
    if (e.path === "seeds" || /^seeds\.\d+$/.test(e.path)) {
      seeds = plainMessage(e.message);
      return false;
    }
    const row = e.path.startsWith("grid.") ? rows.findIndex(([path]) => path === e.path.slice(5)) : -1;
    if (row >= 0) {
      byRow.set(row, [...(byRow.get(row) ?? []), e]);
      return false;
    }
    const m = /^cells\.(\d+)(?:\.set\.(.+)|\.(.+))?$/.exec(e.path);
    if (!m || !cells[Number(m[1])]) return true;
    const messages = byCell.get(Number(m[1])) ?? new Set();
    byCell.set(
      Number(m[1]),
      messages.add(cellError(m[2] ?? m[3] ?? "", plainMessage(e.message.replace(RUN_PREFIX, "")))),
    );
    return false;
  });
  const n = sweepSize(Object.fromEntries(rows), [0], cells); // the runs of one seed
  const rowText = (/** @type {FieldError[]} */ found) =>
    sweepMessages(found, n)
      .map((e) => e.message)
      .join("; ");
  return {
    seeds,
    rows: new Map([...byRow].map(([i, found]) => [i, rowText(found)])),
    cells: new Map([...byCell].map(([i, messages]) => [i, [...messages]])),
    rest,
  };
}

/** The range kinds POST /api/tunes takes, as `key=kind:...`. */
const RANGE = /^(log|linear|int|choice):/;

/**
 * A searched key's range as POST /api/tunes takes it: `log:1e-3:1`, `int:1:5`,
 * `linear:0:1` or `choice:a,b` as typed, `0:1` as `linear:0:1`, and comma-separated
 * values as a choice; null for nothing typed.
 * @param {string} text
 * @returns {string|null}
 */
export function rangeSpec(text) {
  const t = text.trim();
  if (!t) return null;
  if (RANGE.test(t)) return t;
  if (/^[^,:]+:[^,:]+$/.test(t)) return `linear:${t}`;
  return `choice:${parseValues(t, "text").join(",")}`;
}

/**
 * What is wrong with a typed range, or null: its form only (a bound that is not a number,
 * a missing bound); the server checks the rest (an inverted range, a bound its key refuses).
 * @param {string} text
 */
export function rangeProblem(text) {
  const spec = rangeSpec(text);
  if (spec === null) return "type a range (log:1e-3:1, int:1:5, 0:1) or values (a, b)";
  if (spec.startsWith("choice:")) return spec === "choice:" ? "name at least one value" : null;
  const bounds = spec.split(":").slice(1);
  if (bounds.length !== 2) return `expected ${spec.split(":")[0]}:LOW:HIGH`;
  const bad = bounds.find((b) => b.trim() === "" || Number.isNaN(Number(b)));
  return bad === undefined ? null : `${JSON.stringify(bad)} is not a number`;
}

/**
 * A searched key's row values as POST /api/tunes takes them: a typed range as it is, the
 * options ticked as a choice.
 * @param {any[]} values
 */
export function rowRange(values) {
  if (values.length === 1 && RANGE.test(String(values[0]))) return String(values[0]);
  return `choice:${values.map(String).join(",")}`;
}
