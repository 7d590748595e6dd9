// The run's training curves: one chart per catalogue panel, drawn from the downsampled
// series, then extended with the rounds streamed in (Plotly.extendTraces; `uirevision`
// keeps the user's zoom); their x axis and log y axis in the address.
import { api } from "../../api.js";
import { panelSpecs } from "../../catalog.js";
import { empty, h, replace } from "../../dom.js";
import { extendTraces, purge, react } from "../../plot.js";
import { replaceQuery } from "../../router.js";
import { extension, flatRange, lineLayout, panelTraces, panelsFor, referenceLines, timesAt } from "../../traces.js";
import { definition } from "./plots.js";
import { axesFor, curvesQuery, failedEarly, timed, xKeyFor } from "./state.js";

/** @typedef {import("../../api.js").Run} Run */
/** @typedef {import("../../api.js").Series} Series */
/** @typedef {{div: HTMLElement, traces: any[], metrics: string[], flat?: boolean}} Slot flat: its y range is fixed (`flatRange`) */

const MAX_LOCAL_POINTS = 4000;

export class Curves {
  /**
   * @param {() => Run} run the run as the page shows it
   * @param {Map<string, Series>} series @param {import("../../api.js").MetricSpec[]} catalogue
   * @param {(name: string) => HTMLElement} plotDiv a plot div, purged with the page
   * @param {{x: string|null, logY: boolean}} asked the address's x axis (its word or key) and log y axis (`?logy=1`)
   * @param {import("../../api.js").XAxisSpec[]} axes the charts' x axes (`GET /api/meta`)
   */
  constructor(run, series, catalogue, plotDiv, asked, axes) {
    this.run = run;
    this.series = series;
    this.catalogue = catalogue;
    this.plotDiv = plotDiv;
    this.resampling = false;
    this.timed = timed(run(), series);
    this.axes = axesFor(axes, this.timed);
    /** x axis of the curves: a key of the axes */
    this.xKey = xKeyFor(this.axes, asked.x);
    /** a log y axis on every curve (the optimality gap's is always log) */
    this.logY = asked.logY;
    /** @type {Map<string, Slot>} */
    this.panels = new Map();
    this.element = h("div", { class: "plots curves" });
    this.xSelect = /** @type {HTMLSelectElement} */ (
      h(
        "select",
        { name: "x", "aria-label": "x axis", on: { change: () => this.choose(this.xSelect.value, this.logY) } },
        this.axes.map((a) => h("option", { value: a.key }, a.option)),
      )
    );
    this.xSelect.value = this.xKey;
    this.logBox = /** @type {HTMLInputElement} */ (
      h("input", {
        type: "checkbox",
        name: "logy",
        checked: this.logY,
        on: { change: () => this.choose(this.xKey, this.logBox.checked) },
      })
    );
  }

  /** The x axis and the log y choice: the select and the checkbox. */
  toolbar() {
    return h("div", { class: "toolbar" }, this.xSelect, h("label", { class: "check" }, this.logBox, "log y"));
  }

  /** @param {string} xKey @param {boolean} logY */
  choose(xKey, logY) {
    this.xKey = xKey;
    this.logY = logY;
    replaceQuery(`/runs/${this.run().id}`, curvesQuery(this.axes, this.xKey, this.logY));
    this.draw();
  }

  /** Last round present in the fetched series (where the event stream resumes). */
  lastRound() {
    let last = null;
    for (const s of this.series.values()) if (s.round.length) last = Math.max(last ?? -1, s.round[s.round.length - 1]);
    return last;
  }

  draw() {
    const panels = panelsFor(this.series.keys(), this.catalogue, panelSpecs());
    if (!panels.length) return this.drawNone();
    const ids = panels.map((p) => p.id).join();
    if (ids !== [...this.panels.keys()].join()) this.cards(panels);
    const xSeries = this.xKey === "round" ? undefined : this.series.get(this.xKey);
    const axis = this.axes.find((a) => a.key === (xSeries ? this.xKey : "round"));
    /** @type {(rounds: number[]) => number[]} */
    const x = xSeries ? (rounds) => timesAt(xSeries, rounds) : (rounds) => rounds.slice();
    for (const p of panels) {
      const slot = /** @type {Slot} */ (this.panels.get(p.id));
      slot.traces = panelTraces(p, this.series, x);
      slot.metrics = p.metrics;
      const log = Boolean(p.log || this.logY);
      const refs = p.metrics.flatMap((m) => this.run().references[m] ?? []);
      const yRange = flatRange(
        slot.traces,
        refs.map((r) => r.value),
        log,
      );
      slot.flat = yRange !== null;
      const layout = { yTitle: p.yTitle, log, yRange, uirevision: `run-${this.run().id}-${p.id}-${this.xKey}-${log}` };
      react(slot.div, slot.traces, {
        ...lineLayout(p.title, { ...layout, xTitle: axis?.title }),
        ...referenceLines(refs),
      });
    }
  }

  /** No curve to draw: why, in words. */
  drawNone() {
    this.clear();
    const run = this.run();
    replace(
      this.element,
      run.active
        ? empty("Waiting for the first round…", "Curves appear here as rounds finish.")
        : failedEarly(run)
          ? empty("No curves: the run failed before its first round.", "Its error is shown above.")
          : empty("This run recorded no metrics."),
    );
  }

  clear() {
    for (const { div } of this.panels.values()) purge(div);
    this.panels.clear();
  }

  /** A card per panel, with the line that says what it measures. @param {{id: string, description?: string, metrics: string[]}[]} panels */
  cards(panels) {
    this.clear();
    replace(this.element);
    for (const p of panels) {
      const div = this.plotDiv(`curve-${p.id}`);
      this.element.appendChild(h("div", { class: "plot-card" }, div, definition(p.description, p.id)));
      this.panels.set(p.id, { div, traces: [], metrics: p.metrics });
    }
  }

  /** Append streamed rows to the local series and the plots. @param {Record<string, number>[]} rows */
  append(rows) {
    const newMetric = this.hold(rows);
    const longest = Math.max(...[...this.series.values()].map((s) => s.round.length));
    if (longest > MAX_LOCAL_POINTS) return this.resample();
    if (newMetric) return this.draw();
    const extensions = [...this.panels.values()].map((slot) => ({
      slot,
      ext: extension(slot.traces, rows, this.xKey),
    }));
    // a constant panel's fixed y range is set again once a new value leaves the constant
    const unfixed = extensions.some(
      ({ slot, ext }) => slot.flat && ext && flatRange([...slot.traces, ...ext.update.y.map((y) => ({ y }))]) === null,
    );
    if (unfixed) return this.draw();
    for (const { slot, ext } of extensions) if (ext) extendTraces(slot.div, ext.update, ext.indices);
  }

  /** Add the rows to the local series; whether a metric is new. @param {Record<string, number>[]} rows */
  hold(rows) {
    let newMetric = false;
    for (const row of rows) {
      for (const [name, v] of Object.entries(row)) {
        if (name === "round" || typeof v !== "number") continue;
        let s = this.series.get(name);
        if (!s) {
          s = { round: [], last: [], min: [], max: [] };
          this.series.set(name, s);
          newMetric = true;
        }
        s.round.push(row.round);
        s.last.push(v);
        s.min.push(v);
        s.max.push(v);
      }
    }
    return newMetric;
  }

  /** Too many raw points held: fetch the downsampled series again. */
  async resample() {
    if (this.resampling) return;
    this.resampling = true;
    try {
      this.series = await api.metrics(this.run().id, { maxPoints: 1000 });
      this.draw();
    } finally {
      this.resampling = false;
    }
  }
}
