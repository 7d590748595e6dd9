// Compare: overlay runs or experiment groups (mean ± std bands), smoothing, x = round or
// wall time, log y and a y range; summary table with paired t-tests and what differs in
// the runs' configs (a column chooser for the rest); an experiment's swept fields in
// parallel coordinates. The whole state lives in the URL (the shown columns in localStorage).
import { api } from "../api.js";
import { loadCatalog, specOf } from "../catalog.js";
import { columnChooser, shownColumns } from "../columns.js";
import { configLines, parcoordsTrace, sweptFields, yRange } from "../compare-view.js";
import { badge, empty, errorBox, h, loading, progressBar, replace } from "../dom.js";
import { heading, label, meanStd as fmtMeanStd, num, pValue } from "../format.js";
import { idList, replaceQuery } from "../router.js";
import { preloadPlotly, purge, react } from "../plot.js";
import { compareTraces, groupLabels, lineLayout, plotText } from "../traces.js";

const REFRESH_MS = 2000;
const PREFERRED_METRICS = ["test_acc", "param", "opt_gap", "test_loss", "train_loss"];
const PLOT_CONFIG = { responsive: true, displaylogo: false };
/** Summary values shown by default (the first that have data); the chooser adds the others. */
const DEFAULT_VALUES = 5;

/** @typedef {import("../columns.js").Column & {heading?: string}} TableColumn */

/** The x axes a comparison can take, by the `x` the API reads, with their titles. @type {Record<string, string>} */
const X_TITLES = { round: "round", wall_s: "wall time (s)", sim_time_s: "simulated time (s)" };

/** @type {import("../app.js").Mount} */
export function mount(root, route) {
  const q = route.query;
  const state = {
    runs: idList(q.get("runs")),
    experiments: idList(q.get("experiment")),
    metric: q.get("metric") ?? "",
    groupBy: q.get("group_by") ?? (q.get("experiment") ? "experiment_cell" : "algorithm"),
    x: X_TITLES[q.get("x") ?? ""] ? /** @type {string} */ (q.get("x")) : "round",
    smooth: Math.min(0.99, Math.max(0, Number(q.get("smooth") ?? 0) || 0)),
    /** @type {boolean|null} individual runs' lines; null: shown only when no group has 2+ runs */
    showRuns: q.has("lines") ? q.get("lines") !== "0" : null,
    reference: q.get("reference") ?? "",
    /** @type {boolean|null} log y axis; null: log only for the optimality gap */
    logY: q.has("logy") ? q.get("logy") !== "0" : null,
    yMin: q.get("ymin") ?? "",
    yMax: q.get("ymax") ?? "",
    /** the summary value the sweep's parallel coordinates show */
    sweepValue: q.get("pc") ?? "",
  };
  let alive = true;
  let timer = 0;
  /** @type {import("../api.js").Comparison|null} */
  let last = null;
  /** @type {number[]} */
  let ids = [];
  /** The compared experiments and their runs, for the sweep view. */
  /** @type {{experiments: import("../api.js").Experiment[], runs: import("../api.js").Run[]}} */
  let sweep = { experiments: [], runs: [] };
  /** @type {import("../api.js").MetricSpec[]} */
  let catalogue = [];

  const metric = /** @type {HTMLSelectElement} */ (h("select", { name: "metric", "aria-label": "metric" }));
  const groupBy = selectOf("group_by", [["algorithm", "group by algorithm"], ["experiment_cell", "group by experiment cell"], ["none", "no grouping"]], state.groupBy);
  const xAxis = selectOf("x", [["round", "x = round"], ["wall_s", "x = wall time"], ["sim_time_s", "x = simulated time"]], state.x);
  const smooth = /** @type {HTMLInputElement} */ (h("input", { type: "range", name: "smooth", min: "0", max: "0.99", step: "0.01", value: String(state.smooth), "aria-label": "smoothing" }));
  const smoothValue = h("output", {}, state.smooth.toFixed(2));
  const showRuns = /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", name: "lines", checked: Boolean(state.showRuns) }));
  const logY = /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", name: "logy", checked: Boolean(state.logY) }));
  const yMin = /** @type {HTMLInputElement} */ (h("input", { type: "number", name: "ymin", step: "any", placeholder: "auto", value: state.yMin, "aria-label": "y min", class: "axis-bound" }));
  const yMax = /** @type {HTMLInputElement} */ (h("input", { type: "number", name: "ymax", step: "any", placeholder: "auto", value: state.yMax, "aria-label": "y max", class: "axis-bound" }));
  const sweepValue = /** @type {HTMLSelectElement} */ (h("select", { name: "pc", "aria-label": "summary value of the parallel coordinates" }));
  const sweepChart = h("div", { class: "plot", dataset: { plot: "parcoords" } });
  const sweepBox = h("div", { class: "plot-card wide" });
  const sweepSection = h("section", { class: "sweep-view", hidden: true },
    h("h2", {}, "Swept fields"),
    h("div", { class: "toolbar" }, h("label", { class: "inline" }, "one line per run, coloured by ", sweepValue)),
    sweepBox);
  const chooser = columnChooser("compare", () => last && renderTable(last));
  const reference = /** @type {HTMLSelectElement} */ (h("select", { name: "reference", "aria-label": "t-test reference" }));
  const addRun = /** @type {HTMLSelectElement} */ (h("select", { "aria-label": "add run" }, h("option", { value: "" }, "+ add run…")));
  const addExperiment = /** @type {HTMLSelectElement} */ (h("select", { "aria-label": "add experiment" }, h("option", { value: "" }, "+ add experiment…")));
  const chips = h("div", { class: "chips" });
  const chart = h("div", { class: "plot", dataset: { plot: "compare" } });
  const chartBox = h("div", { class: "plot-card wide" }, loading("Loading comparison…"));
  const statusBox = h("div", { class: "table-wrap" });
  const tableBox = h("div", { class: "table-wrap" });

  replace(root,
    h("div", { class: "page-head" }, h("h1", {}, "Compare")),
    h("div", { class: "picker" }, chips, addRun, addExperiment),
    h("div", { class: "filters" }, metric, groupBy, xAxis,
      h("label", { class: "inline" }, "smoothing ", smooth, smoothValue),
      h("label", { class: "check" }, showRuns, "individual runs"),
      h("label", { class: "check" }, logY, "log y"),
      h("label", { class: "inline" }, "y from", yMin, "to", yMax)),
    chartBox,
    h("section", {}, h("h2", {}, "Summary"), h("div", { class: "toolbar" }, h("label", { class: "inline" }, "paired t-tests against ", reference), chooser.el), tableBox),
    sweepSection,
    h("section", {}, h("h2", {}, "Runs"), statusBox));

  metric.addEventListener("change", () => {
    state.metric = metric.value;
    state.yMin = yMin.value = state.yMax = yMax.value = "";  // a range is one metric's
    reload();
  });
  groupBy.addEventListener("change", () => { state.groupBy = groupBy.value; state.reference = ""; reload(); });
  xAxis.addEventListener("change", () => { state.x = xAxis.value; reload(); });
  reference.addEventListener("change", () => { state.reference = reference.value; reload(); });
  smooth.addEventListener("input", () => {
    state.smooth = Number(smooth.value);
    smoothValue.textContent = state.smooth.toFixed(2);
    sync();
    drawChart();
  });
  showRuns.addEventListener("change", () => { state.showRuns = showRuns.checked; sync(); drawChart(); });
  logY.addEventListener("change", () => { state.logY = logY.checked; sync(); drawChart(); });
  for (const bound of [yMin, yMax]) {
    bound.addEventListener("input", () => {
      state.yMin = yMin.value;
      state.yMax = yMax.value;
      sync();
      drawChart();
    });
  }
  sweepValue.addEventListener("change", () => { state.sweepValue = sweepValue.value; sync(); drawSweep(); });
  addRun.addEventListener("change", () => {
    const id = Number(addRun.value);
    if (id && !state.runs.includes(id)) state.runs.push(id);
    addRun.value = "";
    reload();
  });
  addExperiment.addEventListener("change", () => {
    const id = Number(addExperiment.value);
    if (id && !state.experiments.includes(id)) state.experiments.push(id);
    addExperiment.value = "";
    if (state.groupBy === "algorithm" && !state.runs.length) groupBy.value = state.groupBy = "experiment_cell";
    reload();
  });

  api.listRuns({ limit: 200 }).then(({ runs }) => {
    for (const r of runs) addRun.appendChild(h("option", { value: String(r.id) }, `#${r.id} ${r.name} (${r.algorithm}, ${r.status})`));
  }).catch(() => {});
  api.experiments().then((exps) => {
    for (const e of exps) addExperiment.appendChild(h("option", { value: String(e.id) }, `#${e.id} ${e.name} (${e.runIds.length} runs)`));
  }).catch(() => {});

  function sync() {
    replaceQuery("/compare", {
      runs: state.runs, experiment: state.experiments, metric: state.metric, group_by: state.groupBy,
      x: state.x === "round" ? "" : state.x, smooth: state.smooth ? state.smooth.toFixed(2) : "",
      lines: state.showRuns === null ? "" : state.showRuns ? "1" : "0", reference: state.reference,
      logy: state.logY === null ? "" : state.logY ? "1" : "0", ymin: state.yMin.trim(), ymax: state.yMax.trim(),
      pc: state.sweepValue,
    });
  }

  function reload() {
    clearTimeout(timer);
    last = null;
    replace(chartBox, loading("Loading comparison…"));
    refresh();
  }

  async function refresh() {
    clearTimeout(timer);
    sync();
    try {
      const experiments = await Promise.all(state.experiments.map((e) => api.experiment(e)));
      ids = [...new Set([...state.runs, ...experiments.flatMap((e) => e.runIds)])];
      renderChips(experiments);
      if (!ids.length) {
        replace(chartBox, empty("Nothing to compare yet.", "Add runs or an experiment above, or tick runs in the Runs table and press Compare."));
        replace(tableBox);
        replace(statusBox);
        sweep = { experiments: [], runs: [] };
        drawSweep();
        return;
      }
      const [runs, specs] = await Promise.all([Promise.all(ids.map((id) => api.run(id))), loadCatalog()]);
      catalogue = specs;
      if (!alive) return;
      await chooseMetric(runs);
      const comparison = await api.compare({ runs: ids, metric: state.metric, groupBy: state.groupBy, x: state.x, reference: state.reference || undefined });
      if (!alive) return;
      last = comparison;
      drawChart();
      renderTable(comparison);
      renderStatuses(runs, comparison);
      sweep = { experiments, runs: runs.filter((r) => r.experimentId !== null && state.experiments.includes(r.experimentId)) };
      drawSweep();
      if (runs.some((r) => r.active)) timer = setTimeout(refresh, REFRESH_MS);
    } catch (err) {
      if (!alive) return;
      purge(chart);
      replace(chartBox, errorBox(err, reload));
    }
  }

  /** @param {import("../api.js").Experiment[]} experiments */
  function renderChips(experiments) {
    replace(chips,
      experiments.map((e) => [
        chip(`experiment #${e.id} ${e.name}`, () => { state.experiments = state.experiments.filter((x) => x !== e.id); reload(); }),
        h("a", { class: "report-link experiment-link", href: `#/experiments/${e.id}` }, "Progress"),
        e.preset && h("a", { class: "report-link", href: `#/experiments/${e.id}/reproduction` }, "Reproduction report"),
      ]),
      state.runs.map((id) => chip(`run #${id}`, () => { state.runs = state.runs.filter((x) => x !== id); reload(); })));
  }

  /** Fill the metric list from what the first started run recorded. @param {import("../api.js").Run[]} runs */
  async function chooseMetric(runs) {
    if (metric.options.length > 1 && state.metric) return;
    const started = runs.find((r) => r.roundsDone > 0);
    const names = started ? [...(await api.metrics(started.id, { maxPoints: 1 })).keys()].filter((n) => n !== "wall_s") : [];
    if (!state.metric) {
      const fallback = runs.every((r) => r.dataset === "mean_estimation") ? "param" : "test_acc";
      state.metric = PREFERRED_METRICS.find((m) => names.includes(m)) ?? names[0] ?? fallback;
    }
    const options = names.includes(state.metric) ? names : [state.metric, ...names];
    replace(metric, options.map((n) => h("option", { value: n }, label(n))));
    metric.value = state.metric;
  }

  function drawChart() {
    if (!last) return;
    if (!last.runs.some((r) => r.x.length)) {
      purge(chart);
      replace(chartBox, empty(`No ${label(state.metric)} recorded yet.`, "The chart fills in as rounds land."));
      return;
    }
    if (chart.parentElement !== chartBox) replace(chartBox, chart);
    const log = state.logY ?? state.metric === "opt_gap";
    logY.checked = log;
    const range = yRange(state.yMin, state.yMax, log);
    const layout = lineLayout(`${label(state.metric)} — ${last.groups.length ? "mean ± std per group" : "per run"}`, {
      xTitle: X_TITLES[state.x], yTitle: label(state.metric), height: 440,
      // A new axis setting wins over the user's zoom; a refresh keeps the zoom.
      uirevision: `${state.metric}|${state.x}|${ids.join()}|${log}|${range}`, log,
    });
    if (range) layout.yaxis.range = range;
    // With groups, the bands tell the story: 36 runs and 4 bands drawn at once were a blur.
    const lines = state.showRuns ?? !last.groups.some((g) => g.runIds.length > 1);
    showRuns.checked = lines;
    react(chart, compareTraces(last, { smooth: state.smooth, showRuns: lines }), layout, PLOT_CONFIG);
  }

  /**
   * The server's table (its columns are the catalogue's compared values) as it comes: the
   * page computes no statistic. Columns no group has are left out.
   * @param {import("../api.js").Comparison} c
   */
  function renderTable(c) {
    const groups = c.table.map((r) => r.group);
    replace(reference, groups.map((g) => h("option", { value: g }, groupLabels(groups).get(g) ?? g)));
    const ref = c.ttests[0]?.reference ?? groups[0] ?? "";
    reference.value = state.reference || ref;
    if (!c.table.length) {
      replace(tableBox, empty("No summary yet."));
      return;
    }
    const values = c.columns.filter((k) => c.table.some((row) => row.stats[k]?.n));
    /** @type {TableColumn[]} */
    const all = [
      { key: "group", label: "group" },
      { key: "n", label: "n", optional: true },
      { key: "ttest", label: "paired t-tests", optional: true },
      ...(c.configKeys.length ? [{ key: "config", label: "config diff", optional: true }] : []),
      ...values.map((k, i) => ({ key: k, label: label(k), heading: heading(k), optional: true, hidden: i >= DEFAULT_VALUES })),
    ];
    chooser.update(all);
    const cols = shownColumns(all, chooser.choice());
    const ttest = new Map(c.ttests.map((t) => [`${t.group}\u0000${t.metric}`, t]));
    const names = groupLabels(groups);
    const rows = c.table.map((row) => {
      const pairs = Math.max(0, ...c.ttests.filter((t) => t.group === row.group).map((t) => t.nPairs));
      let test = "needs 2+ paired seeds";
      if (row.group === reference.value) test = "reference";
      else if (pairs > 1) test = `${pairs} pairs`;
      /** @param {TableColumn} col */
      const cell = (col) => {
        if (col.key === "group") return h("th", { title: row.group }, names.get(row.group) ?? row.group);
        if (col.key === "n") return h("td", { class: "num", dataset: { key: "n" } }, String(row.n));
        if (col.key === "ttest") return h("td", { class: "num", dataset: { key: "ttest" } }, test);
        if (col.key === "config") return h("td", { class: "config-diff", dataset: { key: "config" } }, configLines(c.configKeys, row.config).map((line) => h("div", {}, line)));
        return h("td", { class: "num", dataset: { key: col.key } }, fmtMeanStd(row.stats[col.key]), testNote(ttest.get(`${row.group}\u0000${col.key}`)));
      };
      return h("tr", { dataset: { group: row.group } }, cols.map(cell));
    });
    replace(tableBox, h("table", { class: "summary-table" },
      h("thead", {}, h("tr", {}, cols.map((col) => h("th", { title: col.label, dataset: { key: col.key } }, col.heading ?? col.label)))),
      h("tbody", {}, rows)),
      h("p", { class: "help" }, "Mean ± standard deviation over each group's runs. Under a value, the paired t-test of the group against the reference (runs paired by seed): better or worse by the metric's direction, and p; hover for the mean difference, its 95 % confidence interval and the effect size d_z."));
  }

  /**
   * The compared experiments' runs in parallel coordinates: an axis per swept field, then
   * the chosen summary value (the catalogue's compared ones); shown while an experiment
   * that sweeps something is compared.
   */
  function drawSweep() {
    const fields = sweptFields(sweep.experiments);
    if (!fields.length || !sweep.runs.length) {
      sweepSection.hidden = true;
      purge(sweepChart);
      return;
    }
    sweepSection.hidden = false;
    const has = (/** @type {string} */ k) => sweep.runs.some((r) => typeof r.summary?.[k] === "number");
    const options = catalogue.filter((s) => s.kind === "summary" && s.compare && has(s.name)).map((s) => s.name);
    // The URL's choice holds its place while no run has it yet.
    if (state.sweepValue && !options.includes(state.sweepValue)) options.unshift(state.sweepValue);
    const value = state.sweepValue || options.find((k) => specOf(k)?.rank) || options[0] || "";
    if (sweepValue.options.length !== options.length || [...sweepValue.options].some((o, i) => o.value !== options[i])) {
      replace(sweepValue, options.map((k) => h("option", { value: k }, label(k))));
    }
    sweepValue.value = value;
    const trace = parcoordsTrace(fields, sweep.runs, value, { label: label(value), better: specOf(value)?.better ?? null });
    const lines = trace.meta.runs.length;
    if (!lines) {
      purge(sweepChart);
      replace(sweepBox, empty(`No run has ${label(value) || "a summary value"} yet.`, "Lines appear as the sweep's runs finish."));
      return;
    }
    if (sweepChart.parentElement !== sweepBox) replace(sweepBox, sweepChart);
    const missing = sweep.runs.length - lines;
    const title = `${fields.length} swept field${fields.length === 1 ? "" : "s"} against ${label(value)}${missing ? ` (${missing} of ${sweep.runs.length} runs have no value yet)` : ""}`;
    const layout = {
      title: { text: plotText(title), font: { size: 14 }, x: 0.01, xanchor: "left" },
      height: 380, margin: { l: 70, r: 70, t: 90, b: 30 }, paper_bgcolor: "rgba(0,0,0,0)", uirevision: trace.uirevision,
    };
    react(sweepChart, [trace], layout, PLOT_CONFIG);
  }

  /** @param {import("../api.js").Run[]} runs @param {import("../api.js").Comparison} c */
  function renderStatuses(runs, c) {
    const names = groupLabels(c.groups.map((g) => g.name));
    const groupOf = new Map(c.runs.map((r) => [r.id, names.get(r.group) ?? r.group]));
    replace(statusBox, h("table", { class: "runs-table compact" },
      h("thead", {}, h("tr", {}, ["#", "name", "group", "status", "progress", "seed"].map((t) => h("th", {}, t)))),
      h("tbody", {}, runs.map((r) => h("tr", { dataset: { runId: String(r.id) } },
        h("td", { class: "num" }, String(r.id)),
        h("td", {}, h("a", { href: `#/runs/${r.id}` }, r.name || `run ${r.id}`)),
        h("td", {}, groupOf.get(r.id) ?? "—"),
        h("td", {}, badge(r.status)),
        h("td", { class: "progress-cell" }, progressBar(r.progress, `${r.roundsDone} / ${r.roundsTotal}`)),
        h("td", { class: "num" }, String(r.seed)))))));
  }

  preloadPlotly();  // downloads while the data does; runs once a plot is drawn
  refresh();
  return () => {
    alive = false;
    clearTimeout(timer);
    purge(chart);
    purge(sweepChart);
  };
}


/**
 * A group's paired t-test on one value, under the value; nothing without two pairs.
 * @param {import("../api.js").TTest|undefined} t
 */
function testNote(t) {
  if (!t || t.nPairs < 2 || t.meanDiff === null) return null;
  const ci = t.ciLow === null || t.ciHigh === null ? "" : ` [${num(t.ciLow, 3)}, ${num(t.ciHigh, 3)}]`;
  const d = t.effectSize === null ? "" : `, d_z = ${num(t.effectSize, 3)}`;
  const title = `mean difference ${num(t.meanDiff, 3)}${ci} (95 % CI)${d}, ${t.nPairs} pairs`;
  return h("div", { class: `ttest ${t.direction ?? ""}`, title }, `${t.direction ?? ""} · ${pValue(t.pValue)}`);
}

/** @param {string} text @param {() => void} onRemove */
function chip(text, onRemove) {
  return h("span", { class: "chip" }, text, h("button", { type: "button", class: "link", "aria-label": `remove ${text}`, on: { click: onRemove } }, "×"));
}

/** @param {string} name @param {string[][]} options @param {string} value */
function selectOf(name, options, value) {
  const el = /** @type {HTMLSelectElement} */ (h("select", { name, "aria-label": name }, options.map(([v, t]) => h("option", { value: v }, t))));
  el.value = value;
  return el;
}
