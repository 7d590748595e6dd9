// Compare: overlay runs or experiment groups (mean with ± std or 95 % CI bands), smoothing,
// x = round or wall time, log y and a y range; the server's summary table (mean ± std and
// CIs, tests against a reference corrected by Holm at level α) and what differs in the runs'
// configs (a column chooser for the rest); the table (CSV, Markdown, LaTeX) and the figure
// (PDF, SVG, PNG) as files; an experiment's swept fields in parallel coordinates. The
// groups, their names, the reference and the warnings (duplicate seeds dropped, mixed
// configs) are the server's one grouping; a group renamed here is renamed in every file.
// The whole state lives in the URL (the shown columns in localStorage).
import { api } from "../api.js";
import { loadCatalog, specOf } from "../catalog.js";
import { columnChooser, shownColumns } from "../columns.js";
import {
  configLines,
  formatLabels,
  onlyLine,
  parcoordsTrace,
  parseLabels,
  sweptFields,
  yRange,
} from "../compare-view.js";
import { badge, empty, errorBox, h, loading, progressBar, replace } from "../dom.js";
import { downloadButton, FIGURE_FILES, TABLE_FILES } from "../downloads.js";
import { helpLink } from "../help.js";
import { label, seedText } from "../format.js";
import { idList, replaceQuery } from "../router.js";
import { preloadPlotly, purge, react } from "../plot.js";
import { compareTraces, lineLayout, plotText } from "../traces.js";

const REFRESH_MS = 2000;
const PREFERRED_METRICS = ["test_acc", "param", "opt_gap", "test_loss", "train_loss"];
const PLOT_CONFIG = { responsive: true, displaylogo: false };
/** Summary values shown by default (a preset's headline values, else the first that have data); the chooser adds the others. */
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
    /** the groups renamed, as the API's `labels` takes them ("fedavg:FedAvg (ours)") */
    labels: q.get("labels") ?? "",
    /** @type {boolean|null} log y axis; null: log only for the optimality gap */
    logY: q.has("logy") ? q.get("logy") !== "0" : null,
    yMin: q.get("ymin") ?? "",
    yMax: q.get("ymax") ?? "",
    /** the summary value the sweep's parallel coordinates show */
    sweepValue: q.get("pc") ?? "",
    /** @type {"std"|"ci"} the band around each group's mean */
    band: q.get("band") === "ci" ? "ci" : "std",
    /** significance level of the corrected tests */
    alpha: Number(q.get("alpha")) > 0 && Number(q.get("alpha")) < 1 ? Number(q.get("alpha")) : 0.05,
    /** @type {"column"|"full"} the figure file's width */
    width: q.get("width") === "full" ? "full" : "column",
  };
  /** The page's mutable state besides its query (`state`), in one place: whether it is mounted, its refresh timer, the last comparison and its run ids, the compared sweep, the metric catalogue, and the compared runs by id. */
  const page = {
    alive: true,
    timer: 0,
    /** @type {import("../api.js").Comparison|null} */
    last: null,
    /** @type {number[]} */
    ids: [],
    /** @type {{experiments: import("../api.js").Experiment[], runs: import("../api.js").Run[]}} the compared experiments and their runs, for the sweep view */
    sweep: { experiments: [], runs: [] },
    /** @type {import("../api.js").MetricSpec[]} */
    catalogue: [],
    /** @type {Map<number, import("../api.js").Run>} the compared runs, by id */
    runById: new Map(),
  };

  const metric = /** @type {HTMLSelectElement} */ (h("select", { name: "metric", "aria-label": "metric" }));
  const groupBy = selectOf(
    "group_by",
    [
      ["algorithm", "group by algorithm"],
      ["experiment_cell", "group by experiment cell"],
      ["none", "no grouping"],
    ],
    state.groupBy,
  );
  const xAxis = selectOf(
    "x",
    [
      ["round", "x = round"],
      ["wall_s", "x = wall time"],
      ["sim_time_s", "x = simulated time"],
    ],
    state.x,
  );
  const bandOf = selectOf(
    "band",
    [
      ["std", "band: ± std"],
      ["ci", "band: 95 % CI of the mean"],
    ],
    state.band,
  );
  const alpha = /** @type {HTMLInputElement} */ (
    h("input", {
      type: "number",
      name: "alpha",
      min: "0.001",
      max: "0.5",
      step: "0.01",
      value: String(state.alpha),
      "aria-label": "significance level α",
      class: "axis-bound",
    })
  );
  const width = selectOf(
    "width",
    [
      ["column", "column (3.5 in)"],
      ["full", "full width (7 in)"],
    ],
    state.width,
  );
  const captionBox = h("p", { class: "help caption" });
  const warningsBox = h("div", { class: "compare-warnings", role: "status" });
  const waitingNote = h("p", { class: "help waiting" });
  const smooth = /** @type {HTMLInputElement} */ (
    h("input", {
      type: "range",
      name: "smooth",
      min: "0",
      max: "0.99",
      step: "0.01",
      value: String(state.smooth),
      "aria-label": "smoothing",
    })
  );
  const smoothValue = h("output", {}, state.smooth.toFixed(2));
  const showRuns = /** @type {HTMLInputElement} */ (
    h("input", { type: "checkbox", name: "lines", checked: Boolean(state.showRuns) })
  );
  const logY = /** @type {HTMLInputElement} */ (
    h("input", { type: "checkbox", name: "logy", checked: Boolean(state.logY) })
  );
  const yMin = /** @type {HTMLInputElement} */ (
    h("input", {
      type: "number",
      name: "ymin",
      step: "any",
      placeholder: "auto",
      value: state.yMin,
      "aria-label": "y min",
      class: "axis-bound",
    })
  );
  const yMax = /** @type {HTMLInputElement} */ (
    h("input", {
      type: "number",
      name: "ymax",
      step: "any",
      placeholder: "auto",
      value: state.yMax,
      "aria-label": "y max",
      class: "axis-bound",
    })
  );
  const sweepValue = /** @type {HTMLSelectElement} */ (
    h("select", { name: "pc", "aria-label": "summary value of the parallel coordinates" })
  );
  const sweepChart = h("div", { class: "plot", dataset: { plot: "parcoords" } });
  const sweepBox = h("div", { class: "plot-card wide" });
  const sweepSection = h(
    "section",
    { class: "sweep-view", hidden: true },
    h("h2", {}, "Swept fields"),
    h("div", { class: "toolbar" }, h("label", { class: "inline" }, "one line per run, coloured by ", sweepValue)),
    sweepBox,
  );
  const chooser = columnChooser("compare", () => page.last && renderTable(page.last));
  const reference = /** @type {HTMLSelectElement} */ (
    h("select", { name: "reference", "aria-label": "t-test reference" })
  );
  const addRun = /** @type {HTMLSelectElement} */ (
    h("select", { "aria-label": "add run" }, h("option", { value: "" }, "+ add run…"))
  );
  const addExperiment = /** @type {HTMLSelectElement} */ (
    h("select", { "aria-label": "add experiment" }, h("option", { value: "" }, "+ add experiment…"))
  );
  const chips = h("div", { class: "chips" });
  const chart = h("div", { class: "plot", dataset: { plot: "compare" } });
  const chartBox = h("div", { class: "plot-card wide" }, loading("Loading comparison…"));
  const statusBox = h("div", { class: "table-wrap" });
  const tableBox = h("div", { class: "table-wrap" });

  replace(
    root,
    h("div", { class: "page-head" }, h("h1", {}, "Compare ", helpLink("compare", "the compare page"))),
    h("div", { class: "picker" }, chips, addRun, addExperiment),
    h(
      "div",
      { class: "filters" },
      metric,
      groupBy,
      xAxis,
      bandOf,
      h("label", { class: "inline" }, "smoothing ", smooth, smoothValue),
      h("label", { class: "check" }, showRuns, "individual runs"),
      h("label", { class: "check" }, logY, "log y"),
      h("label", { class: "inline" }, "y from", yMin, "to", yMax),
    ),
    chartBox,
    waitingNote,
    h(
      "div",
      { class: "toolbar downloads", dataset: { files: "figure" } },
      "Figure: ",
      width,
      FIGURE_FILES.map(([fmt, text]) => fileButton(text, fmt, `Download the curves as ${text}`)),
    ),
    h(
      "section",
      {},
      h("h2", {}, "Summary ", helpLink("summary", "the summary table")),
      h(
        "div",
        { class: "toolbar" },
        h("label", { class: "inline" }, "tests against ", reference),
        h("label", { class: "inline" }, "α ", alpha),
        chooser.el,
      ),
      warningsBox,
      tableBox,
      captionBox,
      h(
        "div",
        { class: "toolbar downloads", dataset: { files: "table" } },
        "Table: ",
        TABLE_FILES.map(([fmt, text]) => fileButton(text, fmt, `Download the table as ${text}`)),
      ),
    ),
    sweepSection,
    h("section", {}, h("h2", {}, "Runs"), statusBox),
  );

  metric.addEventListener("change", () => {
    state.metric = metric.value;
    state.yMin = yMin.value = state.yMax = yMax.value = ""; // a range is one metric's
    reload();
  });
  groupBy.addEventListener("change", () => {
    state.groupBy = groupBy.value;
    state.reference = state.labels = ""; // both name groups of the grouping before
    reload();
  });
  xAxis.addEventListener("change", () => {
    state.x = xAxis.value;
    reload();
  });
  reference.addEventListener("change", () => {
    state.reference = reference.value;
    reload();
  });
  bandOf.addEventListener("change", () => {
    state.band = bandOf.value === "ci" ? "ci" : "std";
    sync();
    drawChart();
  });
  width.addEventListener("change", () => {
    state.width = width.value === "full" ? "full" : "column";
    sync();
  });
  alpha.addEventListener("change", () => {
    const value = Number(alpha.value);
    if (!(value > 0 && value < 1)) {
      alpha.value = String(state.alpha);
      return;
    }
    state.alpha = value;
    reload();
  });
  smooth.addEventListener("input", () => {
    state.smooth = Number(smooth.value);
    smoothValue.textContent = state.smooth.toFixed(2);
    sync();
    drawChart();
  });
  showRuns.addEventListener("change", () => {
    state.showRuns = showRuns.checked;
    sync();
    drawChart();
  });
  logY.addEventListener("change", () => {
    state.logY = logY.checked;
    sync();
    drawChart();
  });
  for (const bound of [yMin, yMax]) {
    bound.addEventListener("input", () => {
      state.yMin = yMin.value;
      state.yMax = yMax.value;
      sync();
      drawChart();
    });
  }
  sweepValue.addEventListener("change", () => {
    state.sweepValue = sweepValue.value;
    sync();
    drawSweep();
  });
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

  addRun.addEventListener("focus", () => fillRunPicker());
  fillRunPicker();
  api
    .experiments()
    .then((exps) => {
      for (const e of exps)
        addExperiment.appendChild(h("option", { value: String(e.id) }, `#${e.id} ${e.name} (${e.runIds.length} runs)`));
    })
    .catch(() => {});

  function sync() {
    replaceQuery("/compare", {
      runs: state.runs,
      experiment: state.experiments,
      metric: state.metric,
      group_by: state.groupBy,
      x: state.x === "round" ? "" : state.x,
      smooth: state.smooth ? state.smooth.toFixed(2) : "",
      lines: state.showRuns === null ? "" : state.showRuns ? "1" : "0",
      reference: state.reference,
      labels: state.labels,
      logy: state.logY === null ? "" : state.logY ? "1" : "0",
      ymin: state.yMin.trim(),
      ymax: state.yMax.trim(),
      pc: state.sweepValue,
      band: state.band === "std" ? "" : state.band,
      alpha: state.alpha === 0.05 ? "" : String(state.alpha),
      width: state.width === "column" ? "" : state.width,
    });
  }

  /** The comparison as the page shows it, for the API's files. */
  function query() {
    return {
      runs: page.ids,
      metric: state.metric,
      groupBy: state.groupBy,
      x: state.x,
      reference: state.reference || undefined,
      alpha: state.alpha,
      labels: state.labels || undefined,
    };
  }

  /**
   * Rename a group (its key) to `name`, or give it back its own name (empty): in the URL,
   * the table, the chart and every file.
   * @param {string} group @param {string} name
   */
  function rename(group, name) {
    const labels = parseLabels(state.labels);
    if (name.trim()) labels.set(group, name.trim());
    else labels.delete(group);
    state.labels = formatLabels(labels);
    reload();
  }

  /**
   * A button that downloads the table or the figure in `fmt`, as the page shows them.
   * @param {string} text @param {string} fmt @param {string} title
   */
  function fileButton(text, fmt, title) {
    const figure = () => ({
      band: state.band,
      width: state.width,
      log: Boolean(state.logY ?? state.metric === "opt_gap"),
    });
    return downloadButton(text, () => (page.ids.length ? api.comparePath(query(), fmt, figure()) : null), {
      title,
      format: fmt,
    });
  }

  /**
   * The run picker's options with each run's status as it is now: read again on focus and
   * on every refresh, since a run listed while queued finishes with the page open.
   */
  async function fillRunPicker() {
    const listed = await api.listRuns({ limit: 200 }).catch(() => null);
    if (!listed || !page.alive) return;
    replace(
      addRun,
      h("option", { value: "" }, "+ add run…"),
      listed.runs.map((r) => h("option", { value: String(r.id) }, `#${r.id} ${r.name} (${r.algorithm}, ${r.status})`)),
    );
  }

  function reload() {
    clearTimeout(page.timer);
    page.last = null;
    replace(chartBox, loading("Loading comparison…"));
    refresh();
  }

  async function refresh() {
    clearTimeout(page.timer);
    sync();
    try {
      const experiments = await Promise.all(state.experiments.map((e) => api.experiment(e)));
      page.ids = [...new Set([...state.runs, ...experiments.flatMap((e) => e.runIds)])];
      renderChips(experiments);
      if (!page.ids.length) {
        replace(
          chartBox,
          empty(
            "Nothing to compare yet.",
            "Add runs or an experiment above, or tick runs in the Runs table and press Compare.",
          ),
        );
        replace(tableBox);
        replace(statusBox);
        page.sweep = { experiments: [], runs: [] };
        drawSweep();
        return;
      }
      const [runs, specs] = await Promise.all([Promise.all(page.ids.map((id) => api.run(id))), loadCatalog()]);
      page.catalogue = specs;
      page.runById = new Map(runs.map((r) => [r.id, r]));
      if (!page.alive) return;
      await chooseMetric(runs);
      const comparison = await api.compare(query());
      if (!page.alive) return;
      page.last = comparison;
      drawChart();
      renderTable(comparison);
      renderStatuses(runs, comparison);
      if (document.activeElement !== addRun) fillRunPicker(); // not while it is open
      page.sweep = {
        experiments,
        runs: runs.filter((r) => r.experimentId !== null && state.experiments.includes(r.experimentId)),
      };
      drawSweep();
      if (runs.some((r) => r.active)) page.timer = setTimeout(refresh, REFRESH_MS);
    } catch (err) {
      if (!page.alive) return;
      purge(chart);
      replace(chartBox, errorBox(err, reload));
    }
  }

  /** @param {import("../api.js").Experiment[]} experiments */
  function renderChips(experiments) {
    replace(
      chips,
      experiments.map((e) => [
        chip(`experiment #${e.id} ${e.name}`, () => {
          state.experiments = state.experiments.filter((x) => x !== e.id);
          reload();
        }),
        h("a", { class: "report-link experiment-link", href: `#/experiments/${e.id}` }, "Progress"),
        e.preset && h("a", { class: "report-link", href: `#/experiments/${e.id}/reproduction` }, "Reproduction report"),
      ]),
      state.runs.map((id) =>
        chip(`run #${id}`, () => {
          state.runs = state.runs.filter((x) => x !== id);
          reload();
        }),
      ),
    );
  }

  /**
   * Fill the metric list from what the started runs recorded: one started run of each algorithm, so that
   * one method's own metrics (an async method's update staleness) are there beside a synchronous one's.
   * @param {import("../api.js").Run[]} runs
   */
  async function chooseMetric(runs) {
    if (metric.options.length > 1 && state.metric) return;
    const started = [...new Map(runs.filter((r) => r.roundsDone > 0).map((r) => [r.algorithm, r])).values()];
    const recorded = await Promise.all(
      started.map(async (r) => [...(await api.metrics(r.id, { maxPoints: 1 })).keys()]),
    );
    const names = [...new Set(recorded.flat())].filter((n) => n !== "wall_s");
    if (!state.metric) {
      const fallback = runs.every((r) => r.dataset === "mean_estimation") ? "param" : "test_acc";
      state.metric = PREFERRED_METRICS.find((m) => names.includes(m)) ?? names[0] ?? fallback;
    }
    const options = names.includes(state.metric) ? names : [state.metric, ...names];
    replace(
      metric,
      options.map((n) => h("option", { value: n }, label(n))),
    );
    metric.value = state.metric;
  }

  function drawChart() {
    if (!page.last) return;
    const started = page.last.runs.filter((r) => r.x.length).length;
    const total = page.last.runs.length;
    waitingNote.textContent =
      started && started < total
        ? `${total - started} of ${total} runs have not recorded ${label(state.metric)} yet: each group's curve covers its runs that have, up to the slowest of them, and grows as rounds land.`
        : "";
    if (!started) {
      purge(chart);
      replace(
        chartBox,
        empty(
          `Waiting for the first rounds: no run has recorded ${label(state.metric)} yet.`,
          `${total} run${total === 1 ? "" : "s"} compared; the chart fills in as rounds land.`,
        ),
      );
      return;
    }
    if (chart.parentElement !== chartBox) replace(chartBox, chart);
    const log = state.logY ?? state.metric === "opt_gap";
    logY.checked = log;
    const range = yRange(state.yMin, state.yMax, log);
    const clip = page.last.bandClip ? `, band ${page.last.bandClip}` : ""; // kept to the metric's domain
    const per = `${state.band === "ci" ? "mean and 95 % CI per group" : "mean ± std per group"}${clip}`;
    const layout = lineLayout(`${label(state.metric)} — ${page.last.groups.length ? per : "per run"}`, {
      xTitle: X_TITLES[state.x],
      yTitle: label(state.metric),
      height: 440,
      // A new axis setting wins over the user's zoom; a refresh keeps the zoom.
      uirevision: `${state.metric}|${state.x}|${page.ids.join()}|${log}|${range}`,
      log,
    });
    if (range) layout.yaxis.range = range;
    // With groups, the bands tell the story: 36 runs and 4 bands drawn at once were a blur.
    const lines = state.showRuns ?? !page.last.groups.some((g) => g.runIds.length > 1);
    showRuns.checked = lines;
    react(
      chart,
      compareTraces(page.last, { smooth: state.smooth, showRuns: lines, band: state.band }),
      layout,
      PLOT_CONFIG,
    );
  }

  /**
   * The server's table (its columns are the catalogue's compared values) as it comes: the
   * page computes no statistic and formats no number (cells, CIs and p-values are the
   * server's text, in the one number format of every export). Columns no group has are
   * left out.
   * @param {import("../api.js").Comparison} c
   */
  function renderTable(c) {
    replace(
      reference,
      c.table.map((r) => h("option", { value: r.group }, r.label)),
    );
    reference.value = c.reference ?? ""; // the server's choice: asked for, the preset's, the sweep's first
    captionBox.textContent = c.caption;
    replace(
      warningsBox,
      c.warnings.map((w) => h("p", { class: "warning", dataset: { kind: w.kind, group: w.group } }, w.message)),
    );
    if (!c.table.length) {
      replace(tableBox, empty("No summary yet."));
      return;
    }
    // The figures of the machine (wall time, updates/s) come last, apart: never tested.
    const machine = new Set(c.machine);
    const has = c.columns.filter((k) => c.table.some((row) => row.stats[k]?.n));
    const values = [...has.filter((k) => !machine.has(k)), ...has.filter((k) => machine.has(k))];
    /** @type {TableColumn[]} */
    const all = [
      { key: "group", label: "group" },
      { key: "n", label: "n", optional: true },
      { key: "ttest", label: "test", optional: true },
      ...(c.configKeys.length || c.configPartial.length
        ? [{ key: "config", label: "config diff", optional: true }]
        : []),
      ...values.map((k, i) => ({
        key: k,
        label: machine.has(k) ? `${label(k)} (machine)` : label(k),
        heading: c.headings[k] ?? label(k),
        optional: true,
        hidden: c.headline.length ? !c.headline.includes(k) : i >= DEFAULT_VALUES,
      })),
    ];
    chooser.update(all);
    const cols = shownColumns(all, chooser.choice());
    const ttest = new Map(c.ttests.map((t) => [`${t.group}\u0000${t.metric}`, t]));
    const firstMachine = cols.find((col) => machine.has(col.key))?.key;
    /** @param {string} key " machine" (and " apart" for the first) on a figure of the machine */
    function machineClass(key) {
      if (!machine.has(key)) return "";
      return key === firstMachine ? " machine apart" : " machine";
    }
    const MACHINE_TITLE = "A figure of the machine and its load, not of the method: never tested or marked best";
    const rows = c.table.map((row) => {
      const mine = c.ttests.filter((t) => t.group === row.group);
      const ran = mine.find((t) => t.test !== null);
      let test = ran
        ? `${ran.test}, ${ran.nPairs ? `${ran.nPairs} pairs` : `${row.n} runs`}`
        : (mine.find((t) => t.reason)?.reason ?? "—");
      if (row.group === reference.value) test = "reference";
      /** @param {TableColumn} col */
      const cell = (col) => {
        if (col.key === "group") return groupCell(row);
        if (col.key === "n") return h("td", { class: "num", dataset: { key: "n" } }, String(row.n));
        if (col.key === "ttest") return h("td", { class: "num", dataset: { key: "ttest" } }, test);
        if (col.key === "config")
          return h("td", { class: "config-diff", dataset: { key: "config" } }, configCell(c, row));
        const stat = row.stats[col.key];
        return h(
          "td",
          { class: `num${machineClass(col.key)}`, dataset: { key: col.key } },
          stat?.text ?? "—",
          stat?.ciText && h("div", { class: "ci", title: "95 % confidence interval of the mean" }, `CI ${stat.ciText}`),
          stat?.ciNote && h("div", { class: "ci" }, stat.ciNote),
          testNote(ttest.get(`${row.group}\u0000${col.key}`)),
        );
      };
      return h("tr", { dataset: { group: row.group } }, cols.map(cell));
    });
    replace(
      tableBox,
      h(
        "table",
        { class: "summary-table" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            cols.map((col) =>
              machine.has(col.key)
                ? h(
                    "th",
                    { class: machineClass(col.key).trim(), title: MACHINE_TITLE, dataset: { key: col.key } },
                    col.heading ?? col.label,
                    h("div", { class: "ci" }, "machine (not compared)"),
                  )
                : h("th", { title: col.label, dataset: { key: col.key } }, col.heading ?? col.label),
            ),
          ),
        ),
        h("tbody", {}, rows),
      ),
    );
  }

  /**
   * A row's group: its name, and a button that renames it in place (Enter keeps the new
   * name, Escape the old; an empty name gives the group back its own).
   * @param {import("../api.js").CompareRow} row
   */
  function groupCell(row) {
    const th = h("th", { title: row.group, class: "group-name" });
    const show = () =>
      replace(
        th,
        h("span", { class: "label" }, row.label),
        h(
          "button",
          { type: "button", class: "link rename", "aria-label": `rename ${row.label}`, on: { click: edit } },
          "✎",
        ),
      );
    function edit() {
      const input = /** @type {HTMLInputElement} */ (
        h("input", { type: "text", name: "label", value: row.label, "aria-label": `new name of ${row.label}` })
      );
      input.addEventListener("keydown", (e) => {
        if (e.key === "Enter" && input.value.trim() !== row.label) rename(row.group, input.value);
        else if (e.key === "Enter" || e.key === "Escape") show();
      });
      replace(th, input);
      input.focus();
      input.select();
    }
    show();
    return th;
  }

  /**
   * A row's config diff: the fields every run has that differ, one line each; the fields
   * only some runs have collapsed into one line ("external config (4 fields)"), expandable.
   * @param {import("../api.js").Comparison} c @param {import("../api.js").CompareRow} row
   */
  function configCell(c, row) {
    const shared = configLines(c.configKeys, row.config).map((line) => h("div", {}, line));
    const own = Object.keys(row.configOnly);
    if (!own.length) return shared;
    const ids = c.runs.filter((r) => r.group === row.group).map((r) => r.id);
    const kinds = new Set(ids.map((id) => (page.runById.get(id)?.external ? "external" : "simulated")));
    const source = kinds.size === 1 ? [...kinds][0] : "mixed";
    return [
      ...shared,
      h(
        "details",
        { class: "config-only" },
        h("summary", {}, onlyLine(source, own.length)),
        configLines(own, row.configOnly).map((line) => h("div", {}, line)),
      ),
    ];
  }

  /**
   * The compared experiments' runs in parallel coordinates: an axis per swept field, then
   * the chosen summary value (the catalogue's compared ones); shown while an experiment
   * that sweeps something is compared.
   */
  function drawSweep() {
    const fields = sweptFields(page.sweep.experiments);
    if (!fields.length || !page.sweep.runs.length) {
      sweepSection.hidden = true;
      purge(sweepChart);
      return;
    }
    sweepSection.hidden = false;
    const has = (/** @type {string} */ k) => page.sweep.runs.some((r) => typeof r.summary?.[k] === "number");
    const options = page.catalogue.filter((s) => s.kind === "summary" && s.compare && has(s.name)).map((s) => s.name);
    // The URL's choice holds its place while no run has it yet.
    if (state.sweepValue && !options.includes(state.sweepValue)) options.unshift(state.sweepValue);
    const value = state.sweepValue || options.find((k) => specOf(k)?.rank) || options[0] || "";
    if (
      sweepValue.options.length !== options.length ||
      [...sweepValue.options].some((o, i) => o.value !== options[i])
    ) {
      replace(
        sweepValue,
        options.map((k) => h("option", { value: k }, label(k))),
      );
    }
    sweepValue.value = value;
    const trace = parcoordsTrace(fields, page.sweep.runs, value, {
      label: label(value),
      better: specOf(value)?.better ?? null,
    });
    const lines = trace.meta.runs.length;
    if (!lines) {
      purge(sweepChart);
      replace(
        sweepBox,
        empty(`No run has ${label(value) || "a summary value"} yet.`, "Lines appear as the sweep's runs finish."),
      );
      return;
    }
    if (sweepChart.parentElement !== sweepBox) replace(sweepBox, sweepChart);
    const missing = page.sweep.runs.length - lines;
    const title = `${fields.length} swept field${fields.length === 1 ? "" : "s"} against ${label(value)}${missing ? ` (${missing} of ${page.sweep.runs.length} runs have no value yet)` : ""}`;
    const layout = {
      title: { text: plotText(title), font: { size: 14 }, x: 0.01, xanchor: "left" },
      height: 380,
      margin: { l: 70, r: 70, t: 90, b: 30 },
      paper_bgcolor: "rgba(0,0,0,0)",
      uirevision: trace.uirevision,
    };
    react(sweepChart, [trace], layout, PLOT_CONFIG);
  }

  /** @param {import("../api.js").Run[]} runs @param {import("../api.js").Comparison} c */
  function renderStatuses(runs, c) {
    const groupOf = new Map(c.runs.map((r) => [r.id, r.label]));
    for (const id of c.dropped) groupOf.set(id, "dropped: a newer run has its seed");
    replace(
      statusBox,
      h(
        "table",
        { class: "runs-table compact" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["#", "name", "group", "status", "progress", "seed"].map((t) => h("th", {}, t)),
          ),
        ),
        h(
          "tbody",
          {},
          runs.map((r) =>
            h(
              "tr",
              { dataset: { runId: String(r.id) } },
              h("td", { class: "num" }, String(r.id)),
              h("td", {}, h("a", { href: `#/runs/${r.id}` }, r.name || `run ${r.id}`)),
              h("td", {}, groupOf.get(r.id) ?? "—"),
              h("td", {}, badge(r.status)),
              h("td", { class: "progress-cell" }, progressBar(r.progress, `${r.roundsDone} / ${r.roundsTotal}`)),
              h("td", { class: "num" }, seedText(r.seed)),
            ),
          ),
        ),
      ),
    );
  }

  preloadPlotly(); // downloads while the data does; runs once a plot is drawn
  refresh();
  return () => {
    page.alive = false;
    clearTimeout(page.timer);
    purge(chart);
    purge(sweepChart);
  };
}

/**
 * A group's test on one value, under the value: the verdict after the table's correction
 * (better or worse only where significant, else n.s.) and the adjusted p; hover for the
 * test, the raw p, the mean difference with its CI and the effect size. Where nothing
 * varied, "no test" and the difference ("−0.5000 (constant)"); nothing where no other
 * test ran.
 * @param {import("../api.js").TTest|undefined} t
 */
function testNote(t) {
  if (t?.degenerate) return h("div", { class: "ttest ns", title: t.reason ?? "" }, `no test · Δ ${t.diffText}`);
  if (!t || t.verdict === null) return null;
  const title = `${t.test}: ${t.pText} uncorrected, Holm ${t.pAdjustedText}; difference ${t.diffText} (95 % CI)`;
  const kind = t.verdict === "n.s." ? "ns" : t.verdict;
  return h("div", { class: `ttest ${kind}`, title }, `${t.verdict} · Holm ${t.pAdjustedText}`);
}

/** @param {string} text @param {() => void} onRemove */
function chip(text, onRemove) {
  return h(
    "span",
    { class: "chip" },
    text,
    h("button", { type: "button", class: "link", "aria-label": `remove ${text}`, on: { click: onRemove } }, "×"),
  );
}

/** @param {string} name @param {string[][]} options @param {string} value */
function selectOf(name, options, value) {
  const el = /** @type {HTMLSelectElement} */ (
    h(
      "select",
      { name, "aria-label": name },
      options.map(([v, t]) => h("option", { value: v }, t)),
    )
  );
  el.value = value;
  return el;
}
