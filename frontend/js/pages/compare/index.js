// Compare: overlay runs or experiment groups (mean with ± std or 95 % CI bands), smoothing,
// x = round or wall time, log y and a y range; the server's summary table (mean ± std and
// CIs, tests against a reference corrected by Holm at level α) and what differs in the runs'
// configs (a column chooser for the rest); the table and the figure as files; where groups
// record an ε, the privacy trade-off (one summary value against another per group); an
// experiment's swept fields in parallel coordinates. The groups, their names, the reference
// and the warnings (duplicate seeds dropped, mixed configs) are the server's one grouping; a
// group renamed here is renamed in every file. The whole state lives in the URL (state.js;
// the shown columns in localStorage). This module wires the parts together.
import { api } from "../../api.js";
import { loadCatalog, specOf } from "../../catalog.js";
import { empty, errorBox, h, loading, replace } from "../../dom.js";
import { downloadButton } from "../../downloads.js";
import { helpLink } from "../../help.js";
import { loadMeta } from "../../meta.js";
import { replaceQuery } from "../../router.js";
import { preloadPlotly, purge } from "../../plot.js";
import { compareChart, drawChart } from "./chart.js";
import { controls, filters } from "./controls.js";
import { chooseMetric } from "./metric.js";
import { picker } from "./picker.js";
import { alphaOf, comparisonQuery, logAxis, parseState, renamed, stateQuery } from "./state.js";
import { summaryView } from "./summary.js";
import { drawSweep, sweepView } from "./sweep.js";
import { runsTable } from "./table.js";
import { drawTradeoff, tradeoffView } from "./tradeoff-view.js";

const REFRESH_MS = 2000;

/** @type {import("../../app.js").Mount} */
export function mount(root, route) {
  /** @type {ComparePage|null} */
  let page = null;
  let closed = false;
  const start = () => {
    replace(root, loading("Loading comparison…"));
    loadMeta().then(
      (meta) => {
        if (closed) return;
        page = new ComparePage(root, route.query, meta);
        page.refresh();
      },
      (err) => {
        if (!closed) replace(root, errorBox(err, start));
      },
    );
  };
  preloadPlotly(); // downloads while the data does; runs once a plot is drawn
  start();
  return () => {
    closed = true;
    page?.close();
  };
}

/** The page for an address's query: its state, its parts and its refreshes. */
class ComparePage {
  /** @param {HTMLElement} root @param {URLSearchParams} query @param {import("../../api.js").Meta} meta */
  constructor(root, query, meta) {
    this.meta = meta;
    this.state = parseState(query, meta);
    this.alive = true;
    this.timer = 0;
    /** @type {import("../../api.js").Comparison|null} the last comparison */
    this.last = null;
    /** @type {number[]} the compared runs, the experiments' included */
    this.ids = [];
    /** @type {import("./sweep.js").Sweep} */
    this.sweep = { experiments: [], runs: [] };
    /** @type {import("../../api.js").MetricSpec[]} */
    this.catalogue = [];
    this.controls = controls(this.state, meta);
    this.chart = compareChart();
    replace(this.chart.box, loading("Loading comparison…"));
    this.sweepView = sweepView((value) => {
      this.state.sweepValue = value;
      this.sync();
      this.showSweep();
    });
    this.tradeoff = tradeoffView((axis, value) => {
      if (axis === "x") this.state.tradeX = value;
      else this.state.tradeY = value;
      this.sync();
      this.showTradeoff();
    });
    this.picker = this.makePicker();
    this.summary = this.makeSummary();
    this.statusBox = h("div", { class: "table-wrap" });
    this.layout(root);
    this.bind();
  }

  makePicker() {
    const state = this.state;
    return picker({
      addRun: (id) => {
        if (id && !state.runs.includes(id)) state.runs.push(id);
        this.reload();
      },
      addExperiment: (id) => {
        if (id && !state.experiments.includes(id)) state.experiments.push(id);
        if (state.groupBy === "algorithm" && !state.runs.length)
          this.controls.groupBy.value = state.groupBy = "experiment_cell";
        this.reload();
      },
      alive: () => this.alive,
    });
  }

  makeSummary() {
    return summaryView({
      alpha: this.controls.alpha,
      files: h(
        "div",
        { class: "toolbar downloads", dataset: { files: "table" } },
        "Table: ",
        this.meta.tableFormats.map((f) => this.tableButton(f)),
      ),
      onReference: (group) => {
        this.state.reference = group;
        this.reload();
      },
      rename: (group, name) => {
        this.state.labels = renamed(this.state.labels, group, name);
        this.reload();
      },
    });
  }

  /** @param {HTMLElement} root */
  layout(root) {
    replace(
      root,
      h("div", { class: "page-head" }, h("h1", {}, "Compare ", helpLink("compare", "the compare page"))),
      this.picker.el,
      filters(this.controls),
      this.chart.box,
      this.chart.waiting,
      h(
        "div",
        { class: "toolbar downloads", dataset: { files: "figure" } },
        "Figure: ",
        this.controls.width,
        this.meta.figureFormats.map((f) => this.figureButton(f)),
      ),
      this.summary.section,
      this.tradeoff.section,
      this.sweepView.section,
      h("section", {}, h("h2", {}, "Runs"), this.statusBox),
    );
  }

  /** The chart's and files' log axis: as chosen, else the metric's scale. */
  log() {
    return logAxis(this.state, specOf(this.state.metric)?.log ?? false);
  }

  sync() {
    replaceQuery("/compare", stateQuery(this.state, this.meta));
  }

  /**
   * A button that downloads the table as a file, as the page shows it.
   * @param {import("../../api.js").Choice} format
   */
  tableButton(format) {
    const path = () => (this.ids.length ? api.comparePath(comparisonQuery(this.state, this.ids), format.name) : null);
    return downloadButton(format.label, path, { title: `Download the table as ${format.label}`, format: format.name });
  }

  /**
   * A button that downloads the figure as a file, as the page shows it.
   * @param {import("../../api.js").Choice} format
   */
  figureButton(format) {
    const figure = () => ({ band: this.state.band, width: this.state.width, log: this.log() });
    const path = () =>
      this.ids.length ? api.compareFigurePath(comparisonQuery(this.state, this.ids), format.name, figure()) : null;
    return downloadButton(format.label, path, { title: `Download the curves as ${format.label}`, format: format.name });
  }

  /** Redraw the chart from the last comparison, as the state says now. */
  showChart() {
    if (!this.last) return;
    const xTitle = this.meta.xAxes.find((a) => a.key === this.state.x)?.title ?? this.state.x;
    const c = this.controls;
    drawChart(this.chart, this.last, this.state, {
      xTitle,
      metricLog: this.log(),
      ids: this.ids,
      logY: c.logY,
      showRuns: c.showRuns,
    });
  }

  showTradeoff() {
    if (this.last) drawTradeoff(this.tradeoff, this.last, this.state, this.ids);
  }

  showSweep() {
    drawSweep(this.sweepView, this.sweep, this.catalogue, this.state.sweepValue);
  }

  /** The controls' events: those the server answers reload, the others redraw. */
  bind() {
    const { controls: c, state } = this;
    /** @param {HTMLElement} el @param {string} type @param {() => void} set @param {() => void} then */
    const on = (el, type, set, then) =>
      el.addEventListener(type, () => {
        set();
        then();
      });
    const reload = () => this.reload();
    const redraw = () => {
      this.sync();
      this.showChart();
    };
    on(
      c.metric,
      "change",
      () => {
        state.metric = c.metric.value;
        state.yMin = c.yMin.value = state.yMax = c.yMax.value = ""; // a range is one metric's
      },
      reload,
    );
    on(
      c.groupBy,
      "change",
      () => {
        state.groupBy = c.groupBy.value;
        state.reference = state.labels = ""; // both name groups of the grouping before
      },
      reload,
    );
    on(c.xAxis, "change", () => (state.x = c.xAxis.value), reload);
    on(c.band, "change", () => (state.band = c.band.value), redraw);
    on(
      c.width,
      "change",
      () => (state.width = c.width.value === "full" ? "full" : "column"),
      () => this.sync(),
    );
    c.alpha.addEventListener("change", () => {
      const value = alphaOf(c.alpha.value);
      if (value === null) c.alpha.value = String(state.alpha);
      else {
        state.alpha = value;
        this.reload();
      }
    });
    const smooth = () => {
      state.smooth = Number(c.smooth.value);
      c.smoothValue.textContent = state.smooth.toFixed(2);
    };
    on(c.smooth, "input", smooth, redraw);
    on(c.showRuns, "change", () => (state.showRuns = c.showRuns.checked), redraw);
    on(c.logY, "change", () => (state.logY = c.logY.checked), redraw);
    const bounds = () => {
      state.yMin = c.yMin.value;
      state.yMax = c.yMax.value;
    };
    for (const bound of [c.yMin, c.yMax]) on(bound, "input", bounds, redraw);
  }

  reload() {
    clearTimeout(this.timer);
    this.last = null;
    replace(this.chart.box, loading("Loading comparison…"));
    this.refresh();
  }

  /** Nothing compared: say how to add something. */
  showNothing() {
    replace(
      this.chart.box,
      empty(
        "Nothing to compare yet.",
        "Add runs or an experiment above, or tick runs in the Runs table and press Compare.",
      ),
    );
    this.summary.clear();
    this.tradeoff.section.hidden = true;
    purge(this.tradeoff.chart);
    replace(this.statusBox);
    this.sweep = { experiments: [], runs: [] };
    this.showSweep();
  }

  /** @param {import("../../api.js").Experiment[]} experiments */
  showChips(experiments) {
    const state = this.state;
    this.picker.chips(experiments, state.runs, {
      experiment: (id) => {
        state.experiments = state.experiments.filter((x) => x !== id);
        this.reload();
      },
      run: (id) => {
        state.runs = state.runs.filter((x) => x !== id);
        this.reload();
      },
    });
  }

  async refresh() {
    clearTimeout(this.timer);
    this.sync();
    try {
      const experiments = await Promise.all(this.state.experiments.map((e) => api.experiment(e)));
      this.ids = [...new Set([...this.state.runs, ...experiments.flatMap((e) => e.runIds)])];
      this.showChips(experiments);
      if (!this.ids.length) return this.showNothing();
      const [runs, specs] = await Promise.all([Promise.all(this.ids.map((id) => api.run(id))), loadCatalog()]);
      this.catalogue = specs;
      if (!this.alive) return;
      await chooseMetric(this.controls.metric, this.state, runs, this.meta);
      const comparison = await api.compare(comparisonQuery(this.state, this.ids));
      if (!this.alive) return;
      this.show(comparison, runs, experiments);
      if (runs.some((r) => r.active)) this.timer = setTimeout(() => this.refresh(), REFRESH_MS);
    } catch (err) {
      if (!this.alive) return;
      purge(this.chart.chart);
      replace(
        this.chart.box,
        errorBox(err, () => this.reload()),
      );
    }
  }

  /**
   * @param {import("../../api.js").Comparison} comparison @param {import("../../api.js").Run[]} runs
   * @param {import("../../api.js").Experiment[]} experiments
   */
  show(comparison, runs, experiments) {
    this.last = comparison;
    this.showChart();
    this.summary.render(comparison, new Map(runs.map((r) => [r.id, r])));
    this.showTradeoff();
    replace(this.statusBox, runsTable(runs, comparison));
    this.picker.refill();
    this.sweep = {
      experiments,
      runs: runs.filter((r) => r.experimentId !== null && this.state.experiments.includes(r.experimentId)),
    };
    this.showSweep();
  }

  close() {
    this.alive = false;
    clearTimeout(this.timer);
    purge(this.chart.chart);
    purge(this.sweepView.chart);
    purge(this.tradeoff.chart);
  }
}
