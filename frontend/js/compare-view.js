// Pure pieces of the compare page: the config-diff text of a table row, the y range of
// the plot from its min/max inputs, and the parallel-coordinates view of a sweep.
import { getPath } from "./paths.js";
import { plotText } from "./traces.js";

/** A config value as the page writes it: text as is, null "—", others as JSON. @param {any} v */
export function configValue(v) {
  if (v === null || v === undefined) return "—";
  return typeof v === "string" ? v : JSON.stringify(v);
}

/**
 * A row's lines of the config diff: "client.lr = 0.01", or "client.lr = 0.01 | 0.1" when
 * the group's runs differ in it.
 * @param {string[]} keys the fields that differ (`configKeys`) @param {Record<string, any[]>} values the row's
 * @returns {string[]}
 */
export function configLines(keys, values) {
  return keys.filter((k) => k in values).map((k) => `${k} = ${values[k].map(configValue).join(" | ")}`);
}

/**
 * The line that stands for the fields only some compared runs have: "simulated config (90
 * fields)" (a simulated run against an external one's own 4).
 * @param {string} source what the group's runs are: simulated, external or mixed @param {number} n
 */
export function onlyLine(source, n) {
  return `${source} config (${n} field${n === 1 ? "" : "s"})`;
}

/**
 * The plot's y range from the min and max inputs (text; empty: automatic): null for a
 * fully automatic axis, else [min, max] with null for an automatic end. A log axis takes
 * log10 of positive bounds (Plotly's log ranges) and ignores others; min ≥ max is ignored.
 * @param {string} min @param {string} max @param {boolean} log
 * @returns {(number|null)[]|null}
 */
export function yRange(min, max, log) {
  const parse = (/** @type {string} */ s) => {
    const v = s.trim() === "" ? NaN : Number(s);
    if (!Number.isFinite(v) || (log && v <= 0)) return null;
    return log ? Math.log10(v) : v;
  };
  const lo = parse(min);
  const hi = parse(max);
  if ((lo === null && hi === null) || (lo !== null && hi !== null && lo >= hi)) return null;
  return [lo, hi];
}

/**
 * The fields experiments sweep: their grids' keys, then their explicit cells' keys.
 * @param {import("./api.js").Experiment[]} experiments
 * @returns {string[]}
 */
export function sweptFields(experiments) {
  const fields = experiments.flatMap((e) => [...Object.keys(e.grid), ...e.cells.flatMap((c) => Object.keys(c.set))]);
  return [...new Set(fields)].filter((f) => f !== "seed");
}

/**
 * One parcoords axis: a numeric field keeps its values (ticks at the values swept); any
 * other (text, booleans, lists, a field a run lacks) is categorical: its values in sorted
 * order as tick labels.
 * @param {string} label @param {any[]} values
 */
function dimension(label, values) {
  const numeric = values.every((v) => typeof v === "number" && Number.isFinite(v));
  /** @type {any[]} */
  let ticks;
  /** @type {number[]} */
  let coded;
  /** @type {string[]} */
  let text;
  if (numeric) {
    ticks = [...new Set(values)].sort((a, b) => a - b);
    coded = values;
    text = ticks.map((v) => String(v));
  } else {
    text = [...new Set(values.map(configValue))].sort();
    ticks = text.map((_, i) => i);
    coded = values.map((v) => text.indexOf(configValue(v)));
  }
  const lo = Math.min(...ticks);
  const hi = Math.max(...ticks);
  const pad = lo === hi ? Math.abs(lo) / 2 || 1 : 0;
  /** @type {Record<string, any>} */
  const dim = { label: plotText(label), values: coded, range: [lo - pad, hi + pad] };
  if (!numeric || ticks.length <= 12) {
    dim.tickvals = ticks;
    dim.ticktext = text; // parcoords writes tick labels as plain text (its axis labels as HTML)
  }
  return dim;
}

/**
 * The parallel-coordinates view of a sweep: one axis per swept field (from each run's
 * config), then the summary value, one line per run that has the value, coloured by it
 * (the better end of the scale the same colour whichever way the value is better).
 * @param {string[]} fields
 * @param {{id: number, config: Record<string, any>|null, summary: Record<string, any>|null}[]} runs
 * @param {string} value a summary value's name
 * @param {{label?: string, better?: "higher"|"lower"|null}} [o]
 */
export function parcoordsTrace(fields, runs, value, o = {}) {
  const withValue = runs.filter((r) => typeof r.summary?.[value] === "number" && Number.isFinite(r.summary[value]));
  const scores = withValue.map((r) => /** @type {number} */ (r.summary?.[value]));
  const dimensions = fields.map((f) =>
    dimension(
      f,
      withValue.map((r) => getPath(r.config ?? {}, f) ?? null),
    ),
  );
  dimensions.push({ label: plotText(o.label ?? value), values: scores });
  return {
    type: "parcoords",
    dimensions,
    // The last axis is the colour scale: no colour bar beside it.
    line: { color: scores, colorscale: "Viridis", reversescale: o.better === "lower", showscale: false },
    labelangle: fields.length > 5 ? -15 : 0,
    uirevision: `${fields.join()}|${value}`, // a refresh keeps the user's brushed ranges
    meta: { runs: withValue.map((r) => r.id), value },
  };
}

/**
 * The groups renamed, from the `labels` the API and the page's URL take: comma-separated
 * GROUP:NAME pairs, a backslash keeping the next character as it is ("\,", "\:").
 * Malformed pairs are left out (the server says what is wrong with them).
 * @param {string} text @returns {Map<string, string>}
 */
export function parseLabels(text) {
  /** @param {string} s @param {string} sep @param {boolean} once */
  const split = (s, sep, once) => {
    const parts = [];
    let start = 0;
    for (let i = 0; i < s.length; i++) {
      if (s[i] === "\\") i++;
      else if (s[i] === sep && !(once && parts.length)) {
        parts.push(s.slice(start, i));
        start = i + 1;
      }
    }
    return [...parts, s.slice(start)];
  };
  const plain = (/** @type {string} */ s) => s.replace(/\\(.)/g, "$1").trim();
  /** @type {Map<string, string>} */
  const out = new Map();
  for (const part of text ? split(text, ",", false) : []) {
    const [group, name] = split(part, ":", true);
    if (name !== undefined && plain(group) && plain(name)) out.set(plain(group), plain(name));
  }
  return out;
}

/** The inverse of `parseLabels`. @param {Map<string, string>} labels */
export function formatLabels(labels) {
  const escaped = (/** @type {string} */ s) => s.replace(/([\\,:])/g, "\\$1");
  return [...labels].map(([group, name]) => `${escaped(group)}:${escaped(name)}`).join(",");
}
