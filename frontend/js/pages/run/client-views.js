// The run's client views: one entry of CLIENT_VIEWS each, fetched together on every
// refresh (a view fetched `once` when it first shows: its data never change) and drawn
// from its own result, its card across the whole width where it is `wide`.
import { api } from "../../api.js";
import { panelSpecs } from "../../catalog.js";
import { empty, h, replace } from "../../dom.js";
import { num } from "../../format.js";
import { ParticipationView } from "../../participation.js";
import { PartitionView } from "../../partition.js";
import { purge, react } from "../../plot.js";
import { binnedTrace, histogramTrace, lineLayout, matrixTrace, PALETTE, timelineTrace } from "../../traces.js";
import { epsilonBars, epsilonShapes } from "../../epsilon.js";
import { definition, placeholder } from "./plots.js";
import { failedEarly } from "./state.js";

/** @typedef {import("../../api.js").Run} Run */
/**
 * What every view's drawing may read: the run, the staleness distribution's unit and what
 * a round is in it ("round", or "server update" in an async run), the catalogue's name of
 * client age, whether the distribution's counts are on a log axis, and the timeline's
 * states with their colours (`GET /api/meta`).
 * @typedef {{run: Run, unit: string, round: string, age: string, histLog: boolean,
 *   timelineStates: import("../../api.js").TimelineState[]}} Context
 */
/**
 * A client view: `fetch` its data, then `draw` the settled result into its plot div; or,
 * for a view with plots of its own, `make` it (`update` draws the result).
 * @typedef {{key: string, plot?: string, wide?: boolean, aged?: boolean, once?: boolean,
 *   when: (run: Run, timed: boolean) => boolean, fetch: (id: number) => Promise<any>,
 *   draw?: (div: HTMLElement, result: PromiseSettledResult<any>, ctx: Context) => void,
 *   make?: () => {element: HTMLElement, plots: HTMLElement[], update: (result: PromiseSettledResult<any>) => void}}} ClientView
 *   aged: client age is defined beside it
 */
/** @typedef {{view: ClientView, element: HTMLElement, plots: HTMLElement[], update: (result: PromiseSettledResult<any>, ctx: Context) => void}} Shown */

/** The catalogue's panel of client age: its title and definition name the staleness heatmap and distribution. */
const AGE_PANEL = "staleness";
const ALWAYS = () => true;

/** @type {ClientView[]} */
export const CLIENT_VIEWS = [
  {
    key: "timeline",
    plot: "timeline",
    wide: true,
    when: (_run, timed) => timed,
    fetch: api.timeline,
    draw: drawTimeline,
  },
  {
    key: "availability",
    plot: "availability",
    when: ALWAYS,
    fetch: (id) => api.matrix(id, "availability"),
    draw: (div, result, c) =>
      drawMatrix(div, result, `Availability: share of ${c.round}s each client was available`, {
        zmin: 0,
        zmax: 1,
        colorscale: "Blues",
        zTitle: "share",
      }),
  },
  {
    key: "selection",
    plot: "selection",
    when: ALWAYS,
    fetch: (id) => api.matrix(id, "selection"),
    draw: (div, result, c) =>
      drawMatrix(div, result, `Selection: share of ${c.round}s each client's update entered`, {
        zmin: 0,
        zmax: 1,
        colorscale: "Greens",
        zTitle: "share",
      }),
  },
  {
    key: "staleness",
    plot: "staleness",
    aged: true,
    when: ALWAYS,
    fetch: (id) => api.matrix(id, "staleness"),
    draw: (div, result, c) =>
      drawMatrix(div, result, `${c.age} heatmap (${c.unit} since the client's update entered the model)`, {
        zmin: 0,
        colorscale: "YlOrRd",
        zTitle: c.unit,
      }),
  },
  {
    key: "stalenessHist",
    plot: "staleness-hist",
    aged: true,
    when: ALWAYS,
    fetch: api.stalenessDistribution,
    draw: drawAges,
  },
  { key: "participation", wide: true, when: ALWAYS, fetch: api.participation, make: () => new ParticipationView() },
  { key: "clientAcc", plot: "client-acc", when: ALWAYS, fetch: api.clientAccuracy, draw: drawClientAccuracy },
  {
    key: "privacyClients",
    plot: "privacy-clients",
    when: (run) => !run.external && (run.config?.privacy?.kind ?? "none") !== "none",
    fetch: api.privacyClients,
    draw: drawEpsilons,
  },
  {
    key: "partition",
    wide: true,
    once: true,
    when: (run) => !run.external,
    fetch: api.partition,
    make: () => new PartitionView(),
  },
];

/** The client views of one run: their cards, and each refresh's fetches drawn. */
export class ClientViews {
  /**
   * @param {Run} run @param {boolean} timed @param {() => boolean} histLog
   * @param {import("../../api.js").TimelineState[]} timelineStates
   */
  constructor(run, timed, histLog, timelineStates) {
    this.histLog = histLog;
    this.timelineStates = timelineStates;
    this.element = h("div", { class: "plots client-views" });
    /** @type {Shown[]} */
    this.shown = CLIENT_VIEWS.filter((v) => v.when(run, timed)).map(shownView);
    /** @type {Set<string>} the views fetched `once` whose fetch is under way or done */
    this.fetched = new Set();
    this.showCards();
  }

  /** Every plot div, purged with the page. */
  plots() {
    return this.shown.flatMap((s) => s.plots);
  }

  /** The cards (the wide ones across the whole width); client age defined beside the views of it. */
  showCards() {
    const age = panelSpecs().find((p) => p.name === AGE_PANEL)?.description;
    replace(
      this.element,
      this.shown.map(({ view, element }) =>
        h(
          "div",
          { class: view.wide ? "plot-card span-all" : "plot-card" },
          element,
          view.aged ? definition(age, AGE_PANEL) : null,
        ),
      ),
    );
  }

  /** Fetch every view's data and draw it. @param {Run} run */
  async refresh(run) {
    if (failedEarly(run)) {
      for (const div of this.plots()) purge(div);
      replace(
        this.element,
        empty("No client views: the run failed before its first round.", "Its error is shown above."),
      );
      return;
    }
    if (!this.element.querySelector(".plot-card")) this.showCards(); // it failed early, then was resumed
    for (const s of this.shown.filter((s) => s.view.once && !this.fetched.has(s.view.key))) {
      this.fetched.add(s.view.key);
      Promise.allSettled([s.view.fetch(run.id)]).then(([result]) => s.update(result, this.context(run, new Map())));
    }
    const each = this.shown.filter((s) => !s.view.once);
    const results = await Promise.allSettled(each.map((s) => s.view.fetch(run.id)));
    const byKey = new Map(each.map((s, i) => [s.view.key, results[i]]));
    const ctx = this.context(run, byKey);
    each.forEach((s, i) => s.update(results[i], ctx));
  }

  /** @param {Run} run @param {Map<string, PromiseSettledResult<any>>} results by view @returns {Context} */
  context(run, results) {
    const spread = results.get("stalenessHist");
    // in an async run a round is a server update: staleness counts model versions
    const unit = spread?.status === "fulfilled" ? spread.value.unit : "rounds";
    const age = panelSpecs().find((p) => p.name === AGE_PANEL)?.title ?? AGE_PANEL;
    const round = unit === "versions" ? "server update" : "round";
    return { run, unit, round, age, histLog: this.histLog(), timelineStates: this.timelineStates };
  }
}

/** @param {ClientView} view @returns {Shown} */
function shownView(view) {
  if (view.make) {
    const made = view.make();
    return { view, element: made.element, plots: made.plots, update: (result) => made.update(result) };
  }
  const div = h("div", { class: "plot", dataset: { plot: view.plot ?? view.key } });
  const drawn = /** @type {NonNullable<ClientView["draw"]>} */ (view.draw);
  return { view, element: div, plots: [div], update: (result, ctx) => drawn(div, result, ctx) };
}

/**
 * @param {HTMLElement} div @param {PromiseSettledResult<import("../../api.js").Matrix>} result
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
  react(div, [matrixTrace(m, opts)], layout);
}

/**
 * The client timeline: each client (row) in simulated time, coloured by what it did.
 * @param {HTMLElement} div @param {PromiseSettledResult<import("../../api.js").ClientTimeline|null>} result
 * @param {Context} c
 */
function drawTimeline(div, result, c) {
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
  react(div, [timelineTrace(t, c.timelineStates)], layout);
}

/**
 * The distribution of client age over every client × round cell.
 * @param {HTMLElement} div @param {PromiseSettledResult<Awaited<ReturnType<typeof api.stalenessDistribution>>>} result @param {Context} c
 */
function drawAges(div, result, c) {
  if (result.status !== "fulfilled" || result.value.cells <= 0) {
    placeholder(div, result, `${c.age} distribution`, "No client age recorded yet.");
    return;
  }
  const s = result.value;
  const title = `${c.age} distribution in ${c.unit}: all ${s.cells.toLocaleString()} client × ${c.round} cells (mean ${num(s.mean, 3)}, max ${s.max})`;
  const layout = lineLayout(title, {
    xTitle: `${c.age.toLowerCase()} (${c.unit})`,
    yTitle: "cells",
    uirevision: `stale-hist-${c.histLog}`,
    legend: false,
    log: c.histLog,
  });
  layout.yaxis.tickformat = "~s"; // 8k, not 0.8e+4
  react(div, [binnedTrace(s, "staleness", PALETTE[3])], { ...layout, hovermode: "closest", bargap: 0.05 });
}

/**
 * Per-client test accuracy at the last evaluation, or why there is none.
 * @param {HTMLElement} div @param {PromiseSettledResult<Awaited<ReturnType<typeof api.clientAccuracy>>>} result @param {Context} c
 */
function drawClientAccuracy(div, result, c) {
  if (result.status === "fulfilled" && result.value.values.some((v) => typeof v === "number")) {
    const a = result.value;
    const layout = lineLayout(`Per-client test accuracy at round ${a.round}`, {
      xTitle: "accuracy",
      yTitle: "clients",
      uirevision: "client-acc",
      legend: false,
    });
    react(div, [histogramTrace(a.values, "clients", PALETTE[2])], { ...layout, hovermode: "closest", bargap: 0.05 });
    return;
  }
  const why =
    c.run.config?.eval?.client_every === 0
      ? "Per-client accuracy is evaluated only when eval.client_every > 0."
      : "No per-client evaluation yet.";
  placeholder(div, result, "Per-client test accuracy", why);
}

/**
 * The clients by ε after the latest round, the assumed, median and worst figures marked,
 * and whether each client's ε is amplified by its own availability (and why).
 * @param {HTMLElement} div @param {PromiseSettledResult<import("../../api.js").PrivacyClients>} result
 */
function drawEpsilons(div, result) {
  const name = "Per-client privacy loss ε";
  if (result.status !== "fulfilled" || !result.value.histogram) {
    const why = result.status === "fulfilled" ? (result.value.noHistogram ?? "") : "No round recorded yet.";
    placeholder(div, result, name, why);
    return;
  }
  const p = result.value;
  const hist = /** @type {import("../../api.js").EpsilonHistogram} */ (p.histogram);
  const how = p.amplified ? "amplified by each client's availability" : "not amplified";
  const approx = hist.exact ? "" : ", interpolated between exact points";
  const title = `${name} at δ = ${p.delta} after round ${p.round} (${how}${approx})`;
  const layout = lineLayout(title, { xTitle: "ε", yTitle: "clients", uirevision: "privacy-clients", legend: false });
  react(div, [epsilonBars(hist)], { ...layout, ...epsilonShapes(p), hovermode: "closest", bargap: 0.05 });
  div.title = p.amplification;
}
