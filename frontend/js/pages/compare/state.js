// The compare page's state and its address (`#/compare?runs=1,2&metric=test_acc&x=wall`):
// read from the query with every bad value replaced by its default, and written back with
// the defaults left out. Pure (no DOM): `node --test` reads it (tests/js/compare-state.test.js).
import { formatLabels, parseLabels } from "../../compare-view.js";
import { idList } from "../../router.js";

/** @typedef {import("../../api.js").XAxisSpec} XAxis */
/**
 * The server's UI facts the page's state reads (`GET /api/meta`): the x axes with the word
 * the address writes, the default α, the groupings and the bands, in display order (the
 * first band the default).
 * @typedef {Pick<import("../../api.js").Meta, "xAxes" | "alpha" | "groupBy" | "bands">} CompareFacts
 */

/**
 * @typedef {object} CompareState
 * @property {number[]} runs the runs compared one by one
 * @property {number[]} experiments the experiments compared (all their runs)
 * @property {string} metric "": the runs' dataset's default, once they are read
 * @property {string} groupBy
 * @property {string} x the x axis's key, as the API reads it
 * @property {number} smooth in [0, 0.99]
 * @property {boolean|null} showRuns individual runs' lines; null: shown only when no group has 2+ runs
 * @property {string} reference the tests' reference group ("": the server's choice)
 * @property {string} labels the groups renamed, as the API's `labels` takes them ("fedavg:FedAvg (ours)")
 * @property {boolean|null} logY log y axis; null: the metric's own scale
 * @property {string} yMin as typed ("": auto)
 * @property {string} yMax as typed ("": auto)
 * @property {string} sweepValue the summary value the sweep's parallel coordinates show
 * @property {string} band the band around each group's mean
 * @property {number} alpha significance level of the corrected tests, in (0, 1)
 * @property {"column"|"full"} width the figure file's width
 * @property {string} tradeX the trade-off chart's x ("": the server's default)
 * @property {string} tradeY the trade-off chart's y ("": the server's default)
 */

/**
 * `value` if it is one of `names`, else `fallback`.
 * @param {string|null} value @param {string[]} names @param {string} fallback
 */
function oneOf(value, names, fallback) {
  return value !== null && names.includes(value) ? value : fallback;
}

/** A flag: absent, null; "0", off; anything else, on. @param {URLSearchParams} q @param {string} name */
function flag(q, name) {
  return q.has(name) ? q.get(name) !== "0" : null;
}

/**
 * The x axis's key from its word in the address, or from its key (the spelling of older
 * addresses); the first axis for anything else.
 * @param {string|null} value @param {XAxis[]} axes
 */
export function xKey(value, axes) {
  return (axes.find((a) => a.word === value || a.key === value) ?? axes[0]).key;
}

/** The significance level typed, if it is one (in (0, 1)), else null. @param {string|null} text */
export function alphaOf(text) {
  const value = Number(text);
  return text && value > 0 && value < 1 ? value : null;
}

/** @param {URLSearchParams} q @param {CompareFacts} facts @returns {CompareState} */
export function parseState(q, facts) {
  const experiments = idList(q.get("experiment"));
  return {
    runs: idList(q.get("runs")),
    experiments,
    metric: q.get("metric") ?? "",
    groupBy: oneOf(
      q.get("group_by"),
      facts.groupBy.map((c) => c.name),
      experiments.length ? "experiment_cell" : "algorithm",
    ),
    x: xKey(q.get("x"), facts.xAxes),
    smooth: Math.min(0.99, Math.max(0, Number(q.get("smooth") ?? 0) || 0)),
    showRuns: flag(q, "lines"),
    reference: q.get("reference") ?? "",
    labels: q.get("labels") ?? "",
    logY: flag(q, "logy"),
    yMin: q.get("ymin") ?? "",
    yMax: q.get("ymax") ?? "",
    sweepValue: q.get("pc") ?? "",
    band: oneOf(
      q.get("band"),
      facts.bands.map((c) => c.name),
      facts.bands[0].name,
    ),
    alpha: alphaOf(q.get("alpha")) ?? facts.alpha,
    width: q.get("width") === "full" ? "full" : "column",
    tradeX: q.get("tx") ?? "",
    tradeY: q.get("ty") ?? "",
  };
}

/**
 * The address's query of `state`: defaults left out, the x axis by its word.
 * @param {CompareState} state @param {CompareFacts} facts @returns {Record<string, string|number[]>}
 */
export function stateQuery(state, facts) {
  const bit = (/** @type {boolean|null} */ b) => (b === null ? "" : b ? "1" : "0");
  const axis = facts.xAxes.find((a) => a.key === state.x);
  return {
    runs: state.runs,
    experiment: state.experiments,
    metric: state.metric,
    group_by: state.groupBy,
    x: !axis || axis === facts.xAxes[0] ? "" : axis.word,
    smooth: state.smooth ? state.smooth.toFixed(2) : "",
    lines: bit(state.showRuns),
    reference: state.reference,
    labels: state.labels,
    logy: bit(state.logY),
    ymin: state.yMin.trim(),
    ymax: state.yMax.trim(),
    pc: state.sweepValue,
    band: state.band === facts.bands[0].name ? "" : state.band,
    alpha: state.alpha === facts.alpha ? "" : String(state.alpha),
    width: state.width === "column" ? "" : state.width,
    tx: state.tradeX,
    ty: state.tradeY,
  };
}

/**
 * The comparison as the page shows it, as the API reads it.
 * @param {CompareState} state @param {number[]} ids the compared runs, the experiments' included
 * @returns {import("../../api.js").CompareQuery}
 */
export function comparisonQuery(state, ids) {
  return {
    runs: ids,
    metric: state.metric,
    groupBy: state.groupBy,
    x: state.x,
    reference: state.reference || undefined,
    alpha: state.alpha,
    labels: state.labels || undefined,
  };
}

/**
 * Whether the y axis is logarithmic: as chosen, else the metric's own scale.
 * @param {CompareState} state @param {boolean} metricLog the catalogue's scale of the metric
 */
export function logAxis(state, metricLog) {
  return state.logY ?? metricLog;
}

/**
 * The `labels` with `group` renamed to `name`, or given back its own name (an empty name).
 * @param {string} labels @param {string} group @param {string} name
 */
export function renamed(labels, group, name) {
  const map = parseLabels(labels);
  if (name.trim()) map.set(group, name.trim());
  else map.delete(group);
  return formatLabels(map);
}

/**
 * The metric a comparison shows first: the runs' dataset's default if a run recorded it,
 * else the first one recorded, else that default all the same (nothing is recorded yet).
 * @param {string[]} recorded the metrics the started runs recorded @param {string} datasetDefault
 */
export function defaultMetric(recorded, datasetDefault) {
  return recorded.includes(datasetDefault) ? datasetDefault : (recorded[0] ?? datasetDefault);
}

/**
 * The trade-off chart's axes: each as chosen where the comparison can plot it, else the
 * server's default.
 * @param {CompareState} state @param {import("../../api.js").TradeOff} t
 * @returns {{x: string, y: string}}
 */
export function tradeAxes(state, t) {
  const pick = (/** @type {string} */ chosen, /** @type {string} */ fallback) =>
    t.values.includes(chosen) ? chosen : fallback;
  return { x: pick(state.tradeX, t.x), y: pick(state.tradeY, t.y) };
}
