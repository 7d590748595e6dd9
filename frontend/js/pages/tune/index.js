// A tune: the protocol, each method's progress against its budget, the optimisation
// history of each method (pruned trials marked ×), parameter importances, a
// parallel-coordinates plot of the completed trials, every trial with its run, and the
// final comparison once it exists. Refreshed until the tune is done.
import { ApiError } from "../../api.js";
import { badge, empty, errorBox, h, loading, progressBar, replace } from "../../dom.js";
import { purge, react } from "../../plot.js";
import { fetchTune } from "./data.js";
import { historyTraces, importanceTraces, parcoordsTrace } from "./traces.js";

const REFRESH_MS = 2000;

/** @type {import("../../app.js").Mount} */
export function mount(root, route) {
  const id = /** @type {number} */ (route.id);
  let alive = true;
  let timer = 0;
  let shown = "";
  /** @type {HTMLElement[]} */
  let plots = [];
  replace(root, loading(`Loading tune #${id}…`));

  async function refresh() {
    clearTimeout(timer);
    try {
      const tune = await fetchTune(id);
      if (!alive) return;
      const key = JSON.stringify(tune);
      if (key !== shown) {
        shown = key;
        plots.forEach(purge);
        plots = renderTune(root, tune);
      }
      if (tune.status !== "done") timer = setTimeout(refresh, REFRESH_MS);
    } catch (err) {
      if (!alive) return;
      shown = "";
      if (err instanceof ApiError && err.status === 404) {
        replace(root, empty(`Tune #${id} does not exist`, "It was never created."));
      } else {
        replace(root, errorBox(err, refresh));
      }
    }
  }

  refresh();
  return () => {
    alive = false;
    clearTimeout(timer);
    plots.forEach(purge);
  };
}

/** @typedef {{histories: HTMLElement[], importances: HTMLElement, parallels: HTMLElement[]}} TunePlots */

/**
 * The page of the tune `t` in `root`, its plots drawn; returns the plot divs.
 * @param {HTMLElement} root @param {import("./data.js").Tune} t
 */
function renderTune(root, t) {
  const methods = t.progress.map((p) => p.method);
  /** @type {TunePlots} */
  const els = {
    histories: methods.map((m) => h("div", { class: "plot tune-history", "data-method": m })),
    importances: h("div", { class: "plot tune-importances" }),
    parallels: methods.map((m) => h("div", { class: "plot tune-parallel", "data-method": m })),
  };
  replace(root, ...sections(t, methods, els));
  drawPlots(t, methods, els);
  return [...els.histories, els.importances, ...els.parallels];
}

/** @param {import("./data.js").Tune} t @param {string[]} methods @param {TunePlots} els */
function sections(t, methods, els) {
  return [
    h("div", { class: "page-head" }, h("h1", {}, `Tune #${t.id}: ${t.name} `, badge(t.status))),
    h("p", { class: "tune-protocol" }, t.protocol),
    ...t.flags.map((f) => h("p", { class: "tune-flag" }, f)),
    finalLink(t),
    h("h2", {}, "Progress"),
    progressTable(t),
    h("h2", {}, "Optimisation history"),
    ...methods.map((m, i) => h("section", {}, h("h3", {}, m), els.histories[i])),
    h("h2", {}, "Parameter importances"),
    Object.keys(t.importances).length
      ? els.importances
      : empty("No importances yet", "They come once two trials of a method completed."),
    h("h2", {}, "Parallel coordinates"),
    ...methods.map((m, i) => h("section", {}, h("h3", {}, m), els.parallels[i])),
    h("h2", {}, "Trials"),
    trialsTable(t),
  ];
}

/** The final comparison's experiment, or when it starts. @param {import("./data.js").Tune} t */
function finalLink(t) {
  if (!t.experimentId) return h("p", {}, "The final runs start once every method has finished its trials.");
  const link = h(
    "a",
    { href: `#/experiments/${t.experimentId}`, class: "tune-final" },
    `experiment #${t.experimentId}`,
  );
  return h("p", {}, "Final comparison: ", link);
}

/** @param {import("./data.js").Tune} t @param {string[]} methods @param {TunePlots} els */
function drawPlots(t, methods, els) {
  const title = { title: { text: t.objective } };
  methods.forEach((m, i) => {
    const traces = historyTraces(
      t.trials.filter((x) => x.method === m),
      t.direction,
    );
    react(els.histories[i], traces, { xaxis: { title: { text: "trial" } }, yaxis: title, uirevision: m, height: 280 });
    const axes = t.parallel[m] ?? [];
    if (axes.length && axes[0].values.length)
      react(els.parallels[i], [parcoordsTrace(axes)], { height: 300, uirevision: m });
    else replace(els.parallels[i], empty("No completed trial yet"));
  });
  if (Object.keys(t.importances).length)
    react(els.importances, importanceTraces(t.importances), { barmode: "group", height: 240 });
}

/** @param {import("./data.js").Tune} t */
function progressTable(t) {
  const head = ["method", "finished", "complete", "pruned", "failed", "running", "best value", ...t.keys];
  return h(
    "table",
    { class: "tune-progress" },
    h("thead", {}, h("tr", {}, ...head.map((c) => h("th", {}, c)))),
    h(
      "tbody",
      {},
      ...t.progress.map((p) =>
        h(
          "tr",
          { "data-method": p.method, class: p.short ? "short" : "" },
          h("td", {}, p.method),
          h(
            "td",
            {},
            progressBar(Math.min(1, (p.complete + p.pruned) / p.budget), `${p.complete + p.pruned} / ${p.budget}`),
          ),
          h("td", {}, String(p.complete)),
          h("td", {}, String(p.pruned)),
          h("td", {}, String(p.failed)),
          h("td", {}, String(p.running)),
          h("td", {}, p.bestValue === null ? "—" : p.bestValue.toPrecision(4)),
          ...t.keys.map((k) => h("td", {}, p.bestParams ? shown(p.bestParams[k]) : "—")),
        ),
      ),
    ),
  );
}

/** @param {import("./data.js").Tune} t */
function trialsTable(t) {
  const head = ["method", "trial", "state", "value", ...t.keys, "run"];
  return h(
    "table",
    { class: "tune-trials" },
    h("thead", {}, h("tr", {}, ...head.map((c) => h("th", {}, c)))),
    h(
      "tbody",
      {},
      ...t.trials.map((x) =>
        h(
          "tr",
          { "data-state": x.state, "data-trial": `${x.method}:${x.number}` },
          h("td", {}, x.method),
          h("td", {}, String(x.number)),
          h("td", { title: x.error ?? "" }, x.state === "pruned" ? `pruned at round ${x.prunedAtRound}` : x.state),
          h("td", {}, x.value === null ? "—" : x.value.toPrecision(4)),
          ...t.keys.map((k) => h("td", {}, shown(x.params[k]))),
          h("td", {}, x.runId ? h("a", { href: `#/runs/${x.runId}` }, `#${x.runId}`) : "—"),
        ),
      ),
    ),
  );
}

/** @param {any} v */
function shown(v) {
  return typeof v === "number" && !Number.isInteger(v) ? v.toPrecision(4) : String(v ?? "—");
}
