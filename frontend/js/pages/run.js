// Run: live curves (initial downsampled fetch, then rounds streamed over SSE and appended
// with Plotly.extendTraces; `uirevision` keeps the user's zoom), client views, summary.
import { ApiError, api, authHeaders, toRun } from "../api.js";
import { loadCatalog, panelSpecs, specOf } from "../catalog.js";
import { confirmIn } from "../confirm.js";
import { badge, empty, errorBox, h, loading, progressBar, replace } from "../dom.js";
import { downloadButton } from "../downloads.js";
import { helpLink } from "../help.js";
import { duration, label, num, seedText, when } from "../format.js";
import { extendTraces, preloadPlotly, purge, react } from "../plot.js";
import { ParticipationView } from "../participation.js";
import { PartitionView } from "../partition.js";
import { replaceQuery } from "../router.js";
import { followEvents } from "../sse.js";
import {
  binnedTrace,
  extension,
  flatRange,
  histogramTrace,
  lineLayout,
  matrixTrace,
  panelTraces,
  panelsFor,
  PALETTE,
  referenceLines,
  timelineTrace,
  timesAt,
} from "../traces.js";

/** @typedef {import("../api.js").Run} Run */
/** @typedef {import("../api.js").Series} Series */

const FLUSH_MS = 300;
const CLIENT_VIEWS_MS = 3000;
const MAX_LOCAL_POINTS = 4000;
const PLOT_CONFIG = { responsive: true, displaylogo: false };
/** The catalogue's panel of client age: its title and definition name the staleness heatmap and distribution. */
const AGE_PANEL = "staleness";
/** The curves' x axes: key (a clock's series, or the round), its name in the address, its title. */
const X_AXES = [
  { key: "round", query: "", title: "round", option: "x = round" },
  { key: "wall_s", query: "wall", title: "wall time (s)", option: "x = wall time" },
  { key: "sim_time_s", query: "sim", title: "simulated time (s)", option: "x = simulated time" },
];

/**
 * Whether a run keeps a simulated clock (a system model, or simulated time recorded).
 * @param {Run} run @param {Map<string, Series>} series
 */
function timed(run, series) {
  return (run.config?.system?.kind ?? "none") !== "none" || series.has("sim_time_s");
}

/**
 * The one line beside a chart that says what it measures (the catalogue's), or nothing.
 * @param {string|undefined} text @param {string} panel
 */
function definition(text, panel) {
  return text ? h("p", { class: "definition", dataset: { panel } }, text) : null;
}

/**
 * Plotly.react into a div that may hold an empty-state box instead of a plot.
 * @param {HTMLElement} div @param {any[]} data @param {any} layout
 */
function draw(div, data, layout) {
  react(div, data, layout, PLOT_CONFIG);
}

/** @type {import("../app.js").Mount} */
export function mount(root, route) {
  const id = /** @type {number} */ (route.id);
  /** @type {{close: () => void}|null} */
  let stream = null;
  let flushTimer = 0;
  let viewsTimer = 0;
  let alive = true;
  /** @type {HTMLElement[]} */
  const plots = [];

  replace(root, loading(`Loading run #${id}…`));
  preloadPlotly(); // downloads while the run's data does; runs once a plot is drawn
  start().catch((err) => {
    if (!alive) return;
    if (/** @type {any} */ (err)?.status === 404) {
      const back = h("a", { href: "#/runs" }, "Back to the runs");
      replace(
        root,
        h(
          "div",
          { class: "state state-missing" },
          empty(`Run #${id} does not exist`, "It was deleted, or never created."),
          back,
        ),
      );
    } else
      replace(
        root,
        errorBox(err, () => {
          replace(root, loading());
          start();
        }),
      );
  });

  async function start() {
    const [run, series, catalogue] = await Promise.all([
      api.run(id),
      api.metrics(id, { maxPoints: 1000 }),
      loadCatalog(),
    ]);
    if (alive)
      new RunView(
        root,
        run,
        series,
        catalogue,
        plots,
        (v) => follow(v),
        route.query.get("x"),
        route.query.get("logy") === "1",
      );
  }

  /** @param {RunView} view */
  function follow(view) {
    view.refreshClientViews();
    if (!view.run.active) return;
    /** @type {Record<string, number>[]} */
    let pending = [];
    const flush = () => {
      if (!pending.length) return;
      const rows = pending;
      pending = [];
      view.setConnection(true);
      view.append(rows);
    };
    const lastRound = view.lastRound();
    stream = followEvents(api.eventsUrl(id), {
      lastEventId: lastRound === null ? null : String(lastRound),
      headers: authHeaders(),
      onEvent: (e) => {
        const data = JSON.parse(e.data);
        if (e.event === "round") pending.push(data);
        else if (e.event === "status") {
          view.setStatus(data);
          if (!view.run.active) {
            flush();
            finish(view);
          }
        }
      },
      onError: () => view.setConnection(false),
    });
    flushTimer = setInterval(flush, FLUSH_MS);
    viewsTimer = setInterval(() => view.refreshClientViews(), CLIENT_VIEWS_MS);
  }

  /** The run ended: stop following and redraw everything from the stored records. @param {RunView} view */
  async function finish(view) {
    stream?.close();
    clearInterval(flushTimer);
    clearInterval(viewsTimer);
    const [run, series] = await Promise.all([api.run(id), api.metrics(id, { maxPoints: 1000 })]);
    if (!alive) return;
    view.setRun(run);
    view.renderDetails();
    view.series = series;
    view.drawCurves();
    view.refreshClientViews();
  }

  return () => {
    alive = false;
    stream?.close();
    clearInterval(flushTimer);
    clearInterval(viewsTimer);
    for (const p of plots) purge(p);
  };
}

class RunView {
  /**
   * @param {HTMLElement} root @param {Run} run @param {Map<string, Series>} series
   * @param {import("../api.js").MetricSpec[]} catalogue the metric catalogue: panels, summary rows
   * @param {HTMLElement[]} plots every plot div, purged on unmount
   * @param {(v: RunView) => void} onReady
   * @param {string|null} [x] the x axis the address asks for: `wall` (or `wall_s`) for wall
   *   time, `sim` (or `sim_time_s`) for simulated time
   * @param {boolean} [logY] a logarithmic y axis on every curve (`?logy=1`)
   */
  constructor(root, run, series, catalogue, plots, onReady, x = null, logY = false) {
    this.run = run;
    this.series = series;
    this.catalogue = catalogue;
    this.plots = plots;
    /** follows the run while it is active; called again when it resumes */
    this.onReady = onReady;
    this.resampling = false;
    /** @type {HTMLElement|null} the open edit form (name, notes, tags), if any */
    this.editor = null;
    /**
     * What this page saved of the name, notes and tags, until a run read from the server
     * shows it: an event or an answer read before the save was stored, arriving after it,
     * must not show the values from before.
     * @type {{name: string, notes: string, tags: string[]}|null}
     */
    this.saved = null;
    this.timed = timed(run, series);
    /** x axis of the curves: a key of X_AXES; in the address as `?x=wall` or `?x=sim` */
    this.xKey =
      X_AXES.find((a) => a.key !== "round" && (x === a.query || x === a.key) && (a.key !== "sim_time_s" || this.timed))
        ?.key ?? "round";
    /** @type {Map<string, {div: HTMLElement, traces: any[], metrics: string[], flat?: boolean}>} flat: its y range is fixed (`flatRange`) */
    this.panels = new Map();
    this.head = h("div", { class: "run-head" });
    this.asking = h("div", { class: "confirm-slot", hidden: true });
    this.curves = h("div", { class: "plots curves" });
    this.connection = h("span", { class: "live-dot", title: "live" });
    this.xSelect = /** @type {HTMLSelectElement} */ (
      h(
        "select",
        {
          name: "x",
          "aria-label": "x axis",
          on: {
            change: () => {
              this.xKey = this.xSelect.value;
              this.syncQuery();
              this.drawCurves();
            },
          },
        },
        X_AXES.filter((a) => a.key !== "sim_time_s" || this.timed).map((a) => h("option", { value: a.key }, a.option)),
      )
    );
    this.xSelect.value = this.xKey;
    /** a log y axis on every curve (the optimality gap's is always log) */
    this.logY = logY;
    this.logBox = /** @type {HTMLInputElement} */ (
      h("input", {
        type: "checkbox",
        name: "logy",
        checked: logY,
        on: {
          change: () => {
            this.logY = this.logBox.checked;
            this.syncQuery();
            this.drawCurves();
          },
        },
      })
    );
    /** a log y axis on the staleness distribution, whose counts span decades */
    this.histLog = /** @type {HTMLInputElement} */ (
      h("input", { type: "checkbox", name: "hist-log", on: { change: () => this.refreshClientViews() } })
    );
    this.clientBox = h("div", { class: "plots client-views" });
    this.details = h("div", { class: "run-details" });
    replace(
      root,
      this.head,
      this.asking,
      h(
        "section",
        {},
        h(
          "div",
          { class: "section-head" },
          h("h2", {}, "Training curves ", this.connection, " ", helpLink("curves", "the training curves")),
          h("div", { class: "toolbar" }, this.xSelect, h("label", { class: "check" }, this.logBox, "log y")),
        ),
        this.curves,
      ),
      h(
        "section",
        {},
        h(
          "div",
          { class: "section-head" },
          h("h2", {}, "Clients ", helpLink("clients", "the client views")),
          h("label", { class: "check" }, this.histLog, "log counts (staleness distribution)"),
        ),
        this.clientBox,
      ),
      this.details,
    );
    this.participation = new ParticipationView();
    this.plots.push(...this.participation.plots); // purged with the page's
    this.partition = new PartitionView();
    this.plots.push(...this.partition.plots);
    /** @type {Promise<import("../api.js").PartitionSummary>|null} its data never change: fetched once */
    this.partitionFetch = null;
    this.clientDivs = {
      ...(this.timed ? { timeline: this.plotDiv("timeline") } : {}),
      availability: this.plotDiv("availability"),
      selection: this.plotDiv("selection"),
      staleness: this.plotDiv("staleness"),
      stalenessHist: this.plotDiv("staleness-hist"),
      participation: this.participation.element,
      clientAcc: this.plotDiv("client-acc"),
      ...(this.run.external ? {} : { partition: this.partition.element }),
    };
    this.showClientCards();
    this.renderHead();
    this.renderDetails();
    this.drawCurves();
    onReady(this);
  }

  /** The client views' cards (the timeline across the whole width); the staleness heatmap and distribution
   * show client age, defined beside them as the catalogue's panel of it says. */
  showClientCards() {
    const age = panelSpecs().find((p) => p.name === AGE_PANEL)?.description;
    replace(
      this.clientBox,
      Object.entries(this.clientDivs).map(([k, d]) =>
        h(
          "div",
          { class: ["timeline", "participation", "partition"].includes(k) ? "plot-card span-all" : "plot-card" },
          d,
          k === "staleness" || k === "stalenessHist" ? definition(age, AGE_PANEL) : null,
        ),
      ),
    );
  }

  /** The x axis and the log y choice, in the address. */
  syncQuery() {
    replaceQuery(`/runs/${this.run.id}`, {
      x: X_AXES.find((a) => a.key === this.xKey)?.query ?? "",
      logy: this.logY ? "1" : "",
    });
  }

  /** @param {string} name */
  plotDiv(name) {
    const div = h("div", { class: "plot", dataset: { plot: name } });
    this.plots.push(div);
    return div;
  }

  renderHead() {
    const r = this.run;
    this.connection.hidden = !r.active;
    replace(
      this.head,
      h(
        "div",
        { class: "page-head" },
        h(
          "h1",
          {},
          h("span", { class: "run-id" }, `#${r.id}`),
          " ",
          h("span", { class: "run-title" }, r.name || `run ${r.id}`),
        ),
        h(
          "div",
          { class: "actions" },
          h("button", { type: "button", title: "Rename, notes, tags", on: { click: () => this.edit() } }, "Edit"),
          r.active && !r.cancelling && h("button", { type: "button", on: { click: () => this.cancel() } }, "Cancel"),
          r.resumable &&
            h(
              "button",
              {
                type: "button",
                title: "Queue it again; it continues from its last checkpoint",
                on: { click: () => this.resume() },
              },
              "Resume",
            ),
          downloadButton("Export CSV", () => `/api/runs/${r.id}/export.csv`, {
            title: "Every round's metrics",
            format: "csv",
          }),
          downloadButton("Bundle", () => `/api/runs/${r.id}/export.zip`, {
            title: "The run with its config: config, summary, every round's metrics and client records (.zip)",
            format: "zip",
          }),
          r.roundsDone > 0 &&
            downloadButton("Figure", () => `/api/runs/${r.id}/figure.pdf`, {
              title: "The run's accuracy and loss curves as a PDF for a paper",
              format: "pdf",
            }),
          r.modelBytes !== null &&
            downloadButton("Model", () => `/api/runs/${r.id}/model`, {
              title: `The final global model (safetensors, ${(r.modelBytes / 1024).toFixed(0)} KiB)`,
              format: "safetensors",
            }),
          !r.external && h("a", { class: "button", href: `#/new?from=${r.id}` }, "Run again…"),
          r.experimentId !== null &&
            h(
              "a",
              { class: "button", href: `#/compare?experiment=${r.experimentId}` },
              `Experiment #${r.experimentId}`,
            ),
        ),
      ),
      h(
        "div",
        { class: "status-line" },
        badge(r.cancelling ? "cancelling" : r.status),
        progressBar(r.progress, `round ${r.roundsDone} / ${r.roundsTotal}`),
      ),
      h(
        "dl",
        { class: "facts" },
        fact("algorithm", r.algorithm),
        fact("dataset", r.dataset),
        fact("availability", r.availability),
        fact("clients", String(r.nClients || "—")),
        fact("seed", seedText(r.seed)),
        fact("created", when(r.createdAt)),
        fact("started", when(r.startedAt)),
        fact("finished", when(r.finishedAt)),
        r.worker && fact("worker", r.worker),
      ),
      r.tags.length > 0 &&
        h(
          "div",
          { class: "tags" },
          r.tags.map((t) => h("a", { class: "tag", href: `#/runs?tag=${encodeURIComponent(t)}` }, t)),
        ),
      r.notes && h("p", { class: "notes" }, r.notes),
      r.error && h("pre", { class: "run-error", role: "alert" }, r.error),
      this.editor,
    ); // kept across the re-renders of a live run
  }

  /** @param {any} wire a Run without config, from a status event */
  setStatus(wire) {
    const { config, summary } = this.run;
    const fields = this.unlessStale(statusFields(wire));
    // An event read just before the cancel was stored may arrive after its answer.
    if (this.run.cancelling && fields.status === "running") fields.cancelling = true;
    this.run = { ...this.run, ...fields, config, summary: wire.summary ?? summary };
    this.renderHead();
  }

  /** @param {boolean} ok */
  setConnection(ok) {
    this.connection.classList.toggle("down", !ok);
    this.connection.title = ok ? "live" : "reconnecting…";
  }

  /** @param {Run} run as the API helpers return it */
  setRun(run) {
    const fresh = this.unlessStale(run);
    this.run = { ...fresh, config: run.config ?? this.run.config, summary: run.summary ?? this.run.summary };
    this.renderHead();
  }

  /**
   * `fields` of a run read from the server, with what this page saved in place of the
   * name, notes and tags where they were read before the save was stored.
   * @template {{name?: string, notes?: string, tags?: string[]}} T @param {T} fields @returns {T}
   */
  unlessStale(fields) {
    const saved = this.saved;
    if (!saved) return fields;
    const shown =
      fields.name === saved.name && fields.notes === saved.notes && fields.tags?.join() === saved.tags.join();
    if (shown) this.saved = null;
    return shown ? fields : { ...fields, ...saved };
  }

  /** The name, notes and tags in a form under the title; saved with PATCH. */
  edit() {
    const r = this.run;
    const name = h("input", { name: "edit-name", value: r.name, maxLength: 200, "aria-label": "name" });
    const tags = h("input", {
      name: "edit-tags",
      value: r.tags.join(", "),
      placeholder: "tags, comma-separated",
      "aria-label": "tags",
    });
    const notes = h("textarea", { name: "edit-notes", rows: 2, maxLength: 20000, "aria-label": "notes" }, r.notes);
    const problem = h("div", { class: "field-error" });
    const save = async () => {
      const value = (/** @type {any} */ el) => /** @type {HTMLInputElement} */ (el).value;
      try {
        const edited = await api.editRun(r.id, {
          name: value(name).trim(),
          notes: value(notes),
          tags: value(tags)
            .split(",")
            .map((t) => t.trim())
            .filter(Boolean),
        });
        this.editor = null;
        this.saved = null;
        this.setRun(edited);
        this.saved = { name: edited.name, notes: edited.notes, tags: edited.tags };
      } catch (err) {
        problem.textContent =
          err instanceof ApiError && err.fields.length
            ? err.fields.map((f) => `${f.path}: ${f.message}`).join("; ")
            : String(err);
      }
    };
    const close = () => {
      this.editor = null;
      this.renderHead();
    };
    this.editor = h(
      "form",
      {
        class: "edit-run",
        on: {
          submit: (/** @type {Event} */ e) => {
            e.preventDefault();
            save();
          },
        },
      },
      name,
      tags,
      notes,
      problem,
      h(
        "div",
        { class: "actions" },
        h("button", { type: "submit", class: "primary" }, "Save"),
        h("button", { type: "button", on: { click: close } }, "Discard"),
      ),
    );
    this.renderHead();
  }

  async cancel() {
    if (!(await confirmIn(this.asking, `Cancel run #${this.run.id}?`, "Cancel run"))) return;
    try {
      this.setRun(await api.cancelRun(this.run.id));
    } catch (err) {
      alert(err instanceof Error ? err.message : String(err));
    }
  }

  async resume() {
    try {
      this.setRun(await api.resumeRun(this.run.id));
      this.onReady(this);
    } catch (err) {
      alert(err instanceof Error ? err.message : String(err));
    }
  }

  /** Last round present in the fetched series (where the event stream resumes). */
  lastRound() {
    let last = null;
    for (const s of this.series.values()) if (s.round.length) last = Math.max(last ?? -1, s.round[s.round.length - 1]);
    return last;
  }

  drawCurves() {
    const panels = panelsFor(this.series.keys(), this.catalogue, panelSpecs());
    if (!panels.length) {
      for (const { div } of this.panels.values()) purge(div);
      this.panels.clear();
      replace(
        this.curves,
        this.run.active
          ? empty("Waiting for the first round…", "Curves appear here as rounds finish.")
          : this.failedEarly()
            ? empty("No curves: the run failed before its first round.", "Its error is shown above.")
            : empty("This run recorded no metrics."),
      );
      return;
    }
    const ids = panels.map((p) => p.id).join();
    if (ids !== [...this.panels.keys()].join()) {
      for (const { div } of this.panels.values()) purge(div);
      this.panels.clear();
      replace(this.curves);
      for (const p of panels) {
        const div = this.plotDiv(`curve-${p.id}`);
        this.curves.appendChild(h("div", { class: "plot-card" }, div, definition(p.description, p.id)));
        this.panels.set(p.id, { div, traces: [], metrics: p.metrics });
      }
    }
    const clock = this.xKey === "round" ? undefined : this.series.get(this.xKey);
    const axis = X_AXES.find((a) => a.key === (clock ? this.xKey : "round"));
    /** @type {(rounds: number[]) => number[]} */
    const x = clock ? (rounds) => timesAt(clock, rounds) : (rounds) => rounds.slice();
    for (const p of panels) {
      const slot = /** @type {{div: HTMLElement, traces: any[], metrics: string[], flat?: boolean}} */ (
        this.panels.get(p.id)
      );
      slot.traces = panelTraces(p, this.series, x);
      slot.metrics = p.metrics;
      const log = Boolean(p.log || this.logY);
      const refs = p.metrics.flatMap((m) => this.run.references[m] ?? []);
      const yRange = flatRange(
        slot.traces,
        refs.map((r) => r.value),
        log,
      );
      slot.flat = yRange !== null;
      const layout = { yTitle: p.yTitle, log, yRange, uirevision: `run-${this.run.id}-${p.id}-${this.xKey}-${log}` };
      draw(slot.div, slot.traces, {
        ...lineLayout(p.title, { ...layout, xTitle: axis?.title }),
        ...referenceLines(refs),
      });
    }
  }

  /** Append streamed rows to the local series and the plots. @param {Record<string, number>[]} rows */
  append(rows) {
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
    const last = rows[rows.length - 1].round;
    if (this.run.roundsTotal) {
      this.run = { ...this.run, roundsDone: last + 1, progress: (last + 1) / this.run.roundsTotal };
      const bar = this.head.querySelector(".progress");
      bar?.replaceWith(progressBar(this.run.progress, `round ${this.run.roundsDone} / ${this.run.roundsTotal}`));
    }
    const longest = Math.max(...[...this.series.values()].map((s) => s.round.length));
    if (newMetric || longest > MAX_LOCAL_POINTS) {
      if (longest > MAX_LOCAL_POINTS) this.resample();
      else this.drawCurves();
      return;
    }
    const extensions = [...this.panels.values()].map((slot) => ({
      slot,
      ext: extension(slot.traces, rows, this.xKey),
    }));
    // a constant panel's fixed y range is set again once a new value leaves the constant
    const unfixed = extensions.some(
      ({ slot, ext }) => slot.flat && ext && flatRange([...slot.traces, ...ext.update.y.map((y) => ({ y }))]) === null,
    );
    if (unfixed) {
      this.drawCurves();
      return;
    }
    for (const { slot, ext } of extensions) if (ext) extendTraces(slot.div, ext.update, ext.indices);
  }

  /** Too many raw points held: fetch the downsampled series again. */
  async resample() {
    if (this.resampling) return;
    this.resampling = true;
    try {
      this.series = await api.metrics(this.run.id, { maxPoints: 1000 });
      this.drawCurves();
    } finally {
      this.resampling = false;
    }
  }

  /** Whether the run failed before recording a round: nothing to chart, its error to read. */
  failedEarly() {
    return this.run.status === "failed" && this.run.roundsDone === 0;
  }

  async refreshClientViews() {
    const id = this.run.id;
    if (this.failedEarly()) {
      for (const div of Object.values(this.clientDivs)) purge(div);
      replace(
        this.clientBox,
        empty("No client views: the run failed before its first round.", "Its error is shown above."),
      );
      return;
    }
    if (!this.clientBox.querySelector(".plot-card")) this.showClientCards(); // it failed early, then was resumed
    if (this.clientDivs.partition && !this.partitionFetch) {
      this.partitionFetch = api.partition(id);
      Promise.allSettled([this.partitionFetch]).then(([result]) => this.partition.update(result));
    }
    const [avail, sel, stale, acc, spread, timeline, part] = await Promise.allSettled([
      api.matrix(id, "availability"),
      api.matrix(id, "selection"),
      api.matrix(id, "staleness"),
      api.clientAccuracy(id),
      api.stalenessDistribution(id),
      this.timed ? api.timeline(id) : Promise.resolve(null),
      api.participation(id),
    ]);
    const d = this.clientDivs;
    if (d.timeline) drawTimeline(d.timeline, timeline);
    // in an async run a round is a server update: staleness counts model versions
    const unit = spread.status === "fulfilled" ? spread.value.unit : "rounds";
    const round = unit === "versions" ? "server update" : "round";
    const age = panelSpecs().find((p) => p.name === AGE_PANEL)?.title ?? AGE_PANEL;
    drawMatrix(d.availability, avail, `Availability: share of ${round}s each client was available`, {
      zmin: 0,
      zmax: 1,
      colorscale: "Blues",
      zTitle: "share",
    });
    drawMatrix(d.selection, sel, `Selection: share of ${round}s each client's update entered`, {
      zmin: 0,
      zmax: 1,
      colorscale: "Greens",
      zTitle: "share",
    });
    drawMatrix(d.staleness, stale, `${age} heatmap (${unit} since the client's update entered the model)`, {
      zmin: 0,
      colorscale: "YlOrRd",
      zTitle: unit,
    });
    this.participation.update(part);
    if (spread.status === "fulfilled" && spread.value.cells > 0) {
      const s = spread.value;
      const title = `${age} distribution in ${unit}: all ${s.cells.toLocaleString()} client × ${round} cells (mean ${num(s.mean, 3)}, max ${s.max})`;
      const layout = lineLayout(title, {
        xTitle: `${age.toLowerCase()} (${unit})`,
        yTitle: "cells",
        uirevision: `stale-hist-${this.histLog.checked}`,
        legend: false,
        log: this.histLog.checked,
      });
      layout.yaxis.tickformat = "~s"; // 8k, not 0.8e+4
      draw(d.stalenessHist, [binnedTrace(s, "staleness", PALETTE[3])], {
        ...layout,
        hovermode: "closest",
        bargap: 0.05,
      });
    } else placeholder(d.stalenessHist, spread, `${age} distribution`, "No client age recorded yet.");
    if (acc.status === "fulfilled" && acc.value.values.some((v) => typeof v === "number")) {
      draw(d.clientAcc, [histogramTrace(acc.value.values, "clients", PALETTE[2])], {
        ...lineLayout(`Per-client test accuracy at round ${acc.value.round}`, {
          xTitle: "accuracy",
          yTitle: "clients",
          uirevision: "client-acc",
          legend: false,
        }),
        hovermode: "closest",
        bargap: 0.05,
      });
    } else {
      const why =
        this.run.config?.eval?.client_every === 0
          ? "Per-client accuracy is evaluated only when eval.client_every > 0."
          : "No per-client evaluation yet.";
      placeholder(d.clientAcc, acc, "Per-client test accuracy", why);
    }
  }

  renderDetails() {
    const s = this.run.summary;
    const rows = s ? summaryRows(s, this.catalogue, this.run) : [];
    const summary = rows.length
      ? h(
          "table",
          { class: "kv" },
          h(
            "tbody",
            {},
            rows.map(([k, v]) =>
              h("tr", { dataset: { key: k } }, h("th", {}, label(k)), h("td", {}, shownValue(k, v))),
            ),
          ),
        )
      : empty(this.run.active ? "The summary appears when the run ends." : "No summary.");
    const config = this.run.config;
    replace(
      this.details,
      h("section", { class: "summary" }, h("h2", {}, "Summary"), summary),
      h(
        "section",
        { class: "config" },
        h("h2", {}, "Config"),
        config
          ? [
              h("pre", { class: "config-json" }, JSON.stringify(essentialConfig(config), null, 2)),
              h(
                "details",
                { class: "config-full" },
                h("summary", {}, "Full config (with unset values and the parameters of components not selected)"),
                h("pre", { class: "config-json" }, JSON.stringify(config, null, 2)),
              ),
            ]
          : empty("No config."),
      ),
    );
  }
}

/**
 * The summary values to show: the catalogue's in its order, then those it does not know (a
 * summary written by external code). A row says something: a number, but not the rounds
 * done where the head shows them already, or a flag that is set (`stopped: false` is not
 * shown).
 * @param {Record<string, any>} summary @param {import("../api.js").MetricSpec[]} catalogue
 * @param {Run} run
 * @returns {[string, number|boolean][]}
 */
function summaryRows(summary, catalogue, run) {
  const known = new Set(catalogue.map((m) => m.name));
  const names = [
    ...catalogue.filter((m) => m.kind === "summary").map((m) => m.name),
    ...Object.keys(summary).filter((k) => !known.has(k)),
  ];
  /** @param {string} k @param {any} v */
  const informative = (k, v) => {
    if (k === "rounds_done") return v !== run.roundsDone;
    return v === true || (typeof v === "number" && Number.isFinite(v));
  };
  return names.filter((k) => informative(k, summary[k])).map((k) => [k, summary[k]]);
}

/** A summary value in the catalogue's unit ("0.38 s", "76.12 %"). @param {string} k @param {number|boolean} v */
function shownValue(k, v) {
  if (typeof v === "boolean") return "yes";
  if (k === "wall_s") return duration(v);
  const spec = specOf(k);
  const text = num(v * (spec?.scale ?? 1), 5);
  return spec?.unit ? `${text} ${spec.unit}` : text;
}

/**
 * A run's config as it matters to the run: no unset (null) values, and in each section only
 * the parameters of the component it selects (`algorithm.fedavg` of `algorithm.name =
 * fedavg`; the schema gives every registered component its sub-object).
 * @param {Record<string, any>} config @returns {Record<string, any>}
 */
export function essentialConfig(config) {
  /** @param {any} v @returns {any} */
  const pruned = (v) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    return Object.fromEntries(
      Object.entries(v)
        .filter(([, x]) => x !== null)
        .map(([k, x]) => [k, pruned(x)]),
    );
  };
  return Object.fromEntries(
    Object.entries(config)
      .filter(([, v]) => v !== null)
      .map(([key, section]) => {
        if (section === null || typeof section !== "object" || Array.isArray(section)) return [key, section];
        const chosen = new Set(Object.values(section).filter((v) => typeof v === "string"));
        const kept = Object.entries(section).filter(
          ([k, v]) => v !== null && (typeof v !== "object" || Array.isArray(v) || chosen.has(k)),
        );
        return [key, pruned(Object.fromEntries(kept))];
      }),
  );
}

/** A fact of the head; none for a value not there (not started, not finished). @param {string} k @param {string} v */
function fact(k, v) {
  if (!v || v === "—") return null;
  return h("div", {}, h("dt", {}, k), h("dd", {}, v));
}

// Run fields carried by a status event.
const STATUS_FIELDS = /** @type {const} */ ([
  "name",
  "notes",
  "tags",
  "status",
  "progress",
  "roundsDone",
  "roundsTotal",
  "startedAt",
  "finishedAt",
  "error",
  "worker",
  "active",
  "resumable",
  "cancelling",
]);

/** @param {any} w @returns {Partial<import("../api.js").Run>} */
function statusFields(w) {
  const r = toRun(w);
  return Object.fromEntries(STATUS_FIELDS.map((k) => [k, r[k]]));
}

/**
 * @param {HTMLElement} div @param {PromiseSettledResult<import("../api.js").Matrix>} result
 * @param {string} title @param {any} opts
 */
function drawMatrix(div, result, title, opts) {
  if (result.status !== "fulfilled" || !result.value.values.length) {
    placeholder(div, result, title, "Nothing recorded yet.");
    return;
  }
  const m = result.value;
  const height = Math.min(520, Math.max(220, 14 * m.clients.length + 110));
  const layout = {
    ...lineLayout(title, { uirevision: title, height, legend: false }),
    hovermode: "closest",
    yaxis: { autorange: "reversed", type: "category", title: { text: "" } },
  };
  draw(div, [matrixTrace(m, opts)], layout);
}

/**
 * The client timeline: each client (row) in simulated time, coloured by what it did.
 * @param {HTMLElement} div @param {PromiseSettledResult<import("../api.js").ClientTimeline|null>} result
 */
function drawTimeline(div, result) {
  const title = "Client timeline in simulated time: online, training, uploading; updates kept, partial or dropped";
  if (result.status !== "fulfilled" || !result.value?.times.length) {
    placeholder(div, result, "Client timeline", "Nothing recorded yet.");
    return;
  }
  const t = result.value;
  const height = Math.min(560, Math.max(240, 14 * t.clients.length + 110));
  const layout = {
    ...lineLayout(title, { xTitle: "simulated time (s)", uirevision: "timeline", height, legend: false }),
    hovermode: "closest",
    yaxis: { autorange: "reversed", type: "category", title: { text: "" } },
  };
  draw(div, [timelineTrace(t)], layout);
}

/**
 * An empty or error state in place of a plot.
 * @param {HTMLElement} div @param {PromiseSettledResult<any>} result @param {string} title @param {string} why
 */
function placeholder(div, result, title, why) {
  purge(div);
  replace(div, result.status === "rejected" ? errorBox(result.reason) : empty(title, why));
}
