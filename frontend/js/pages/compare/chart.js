// The compare page's chart: each group's mean with its band (and the runs' lines), or what
// it waits for while no run has recorded the metric.
import { yRange } from "../../compare-view.js";
import { empty, h, replace } from "../../dom.js";
import { label } from "../../format.js";
import { purge, react } from "../../plot.js";
import { compareTraces, lineLayout } from "../../traces.js";
import { logAxis } from "./state.js";

/** The title of each band's chart (none: the mean alone). @type {Record<string, string>} */
const BAND_TITLES = { std: "mean ± std per group", ci: "mean and 95 % CI per group" };

/** The chart's card, its plot and the note under it. */
export function compareChart() {
  const chart = h("div", { class: "plot", dataset: { plot: "compare" } });
  return { chart, box: h("div", { class: "plot-card wide" }), waiting: h("p", { class: "help waiting" }) };
}

/** @typedef {ReturnType<typeof compareChart>} CompareChart */

/**
 * The note under the chart while some runs have not recorded the metric yet; the empty
 * state while none has. Whether any has.
 * @param {CompareChart} view @param {import("../../api.js").Comparison} c @param {string} metric
 */
function waitingFor(view, c, metric) {
  const started = c.runs.filter((r) => r.x.length).length;
  const total = c.runs.length;
  view.waiting.textContent =
    started && started < total
      ? `${total - started} of ${total} runs have not recorded ${label(metric)} yet: each group's curve covers its runs that have, up to the slowest of them, and grows as rounds land.`
      : "";
  if (started) return true;
  purge(view.chart);
  replace(
    view.box,
    empty(
      `Waiting for the first rounds: no run has recorded ${label(metric)} yet.`,
      `${total} run${total === 1 ? "" : "s"} compared; the chart fills in as rounds land.`,
    ),
  );
  return false;
}

/**
 * Draw the comparison `c` as the page's state says; the log and lines boxes show what is
 * drawn when the state leaves them to the defaults.
 * @param {CompareChart} view @param {import("../../api.js").Comparison} c
 * @param {import("./state.js").CompareState} state
 * @param {{xTitle: string, metricLog: boolean, ids: number[], logY: HTMLInputElement, showRuns: HTMLInputElement}} o
 */
export function drawChart(view, c, state, o) {
  if (!waitingFor(view, c, state.metric)) return;
  if (view.chart.parentElement !== view.box) replace(view.box, view.chart);
  const log = logAxis(state, o.metricLog);
  o.logY.checked = log;
  const range = yRange(state.yMin, state.yMax, log);
  const clip = c.bandClip ? `, band ${c.bandClip}` : ""; // kept to the metric's domain
  const per = `${BAND_TITLES[state.band] ?? "mean per group"}${clip}`;
  const layout = lineLayout(`${label(state.metric)} — ${c.groups.length ? per : "per run"}`, {
    xTitle: o.xTitle,
    yTitle: label(state.metric),
    height: 440,
    // A new axis setting wins over the user's zoom; a refresh keeps the zoom.
    uirevision: `${state.metric}|${state.x}|${o.ids.join()}|${log}|${range}`,
    log,
  });
  if (range) layout.yaxis.range = range;
  // With groups, the bands tell the story: 36 runs and 4 bands drawn at once were a blur.
  const lines = state.showRuns ?? !c.groups.some((g) => g.runIds.length > 1);
  o.showRuns.checked = lines;
  react(
    view.chart,
    compareTraces(c, { smooth: state.smooth, showRuns: lines, band: /** @type {"std"|"ci"|"none"} */ (state.band) }),
    layout,
  );
}
