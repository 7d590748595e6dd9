// Reproduction report of an experiment that reproduces a paper preset: per figure, each
// method's value in FedWatch, in the official code and in the paper; the mean curves of
// both. Refreshed until every run is done (or none is still active).
import { ApiError, api } from "../api.js";
import { empty, errorBox, h, loading, progressBar, replace } from "../dom.js";
import { helpLink } from "../help.js";
import { preloadPlotly, purge, react } from "../plot.js";
import { lineLayout, reproductionTraces } from "../traces.js";

const REFRESH_MS = 2000;
/** The report's figures, in the order shown, with their headings. */
const FIGURES = [
  ["time_avg", "time-average"],
  ["max", "max"],
  ["std_second_half", "std 2nd half"],
];

/** @type {import("../app.js").Mount} */
export function mount(root, route) {
  const id = /** @type {number} */ (route.id);
  let alive = true;
  let timer = 0;
  const title = h("h1", {}, "Reproduction");
  const head = h(
    "div",
    { class: "page-head" },
    h("div", {}, title, helpLink("reproduction", "the reproduction report")),
    h(
      "div",
      { class: "actions" },
      h("a", { href: `#/experiments/${id}`, class: "experiment-link" }, "Progress"),
      h("a", { href: `#/compare?experiment=${id}` }, "Compare the runs"),
    ),
  );
  const body = h("div", { class: "reproduction" }, loading("Loading the reproduction report…"));
  const chart = h("div", { class: "plot", dataset: { plot: "reproduction" } });
  replace(root, head, body);

  async function refresh() {
    clearTimeout(timer);
    try {
      const [report, { runs }] = await Promise.all([
        api.reproduction(id),
        api.listRuns({ experimentId: id, limit: 500 }),
      ]);
      if (!alive) return;
      title.textContent = `Reproduction: ${report.preset}`;
      document.title = `${title.textContent} · FedWatch`;
      render(body, chart, report, id);
      // Runs that failed or were cancelled never count as done: stop once none is active.
      if (report.runsDone < report.runsTotal && runs.some((r) => r.active)) timer = setTimeout(refresh, REFRESH_MS);
    } catch (err) {
      if (!alive) return;
      purge(chart);
      if (err instanceof ApiError && err.status === 404) {
        replace(
          body,
          empty(
            `Experiment #${id} has no reproduction report.`,
            `${err.message}. A report exists for experiments made by a preset's Reproduce button.`,
          ),
        );
      } else {
        replace(body, errorBox(err, refresh));
      }
    }
  }

  preloadPlotly(); // downloads while the data does; runs once a plot is drawn
  refresh();
  return () => {
    alive = false;
    clearTimeout(timer);
    purge(chart);
  };
}

/**
 * The report into `body`, its mean curves into `chart`.
 * @param {HTMLElement} body @param {HTMLElement} chart @param {import("../api.js").Reproduction} report
 * @param {number} id the experiment's
 */
function render(body, chart, report, id) {
  const fraction = report.runsTotal ? report.runsDone / report.runsTotal : 0;
  const rmses = report.rows.filter((r) => r.curveRmse !== null);
  const traces = reproductionTraces(report.rows);
  replace(
    body,
    report.paper && h("p", {}, `Paper: ${report.paper}`),
    h(
      "div",
      { class: "repro-progress", dataset: { done: String(report.runsDone), total: String(report.runsTotal) } },
      progressBar(fraction, `${report.runsDone} of ${report.runsTotal} runs`),
      h("span", { class: "muted" }, ` ${report.rounds} rounds each`),
    ),
    h("p", { class: "help" }, report.definition),
    h("p", {}, report.source ? `Official runs: ${report.source}` : "No official runs are bundled for this preset."),
    FIGURES.map(([key, heading]) => figureTable(report, key, heading)),
    h(
      "section",
      {},
      h("h2", {}, "Mean curves"),
      rmses.length
        ? h(
            "ul",
            { class: "curve-rmse" },
            rmses.map((r) =>
              h(
                "li",
                { dataset: { algorithm: r.algorithm } },
                `${r.algorithm}: RMSE ${r.rmseText} pp between FedWatch's and the official mean curve over ${sharedRounds(r)} shared rounds`,
              ),
            ),
          )
        : h("p", { class: "help" }, "No curve to compare yet."),
      h(
        "div",
        { class: "plot-card wide" },
        traces.length ? chart : empty("No curve yet.", "The chart fills in as runs finish."),
      ),
    ),
  );
  if (traces.length) {
    const layout = lineLayout("Mean test accuracy — FedWatch solid, official code dashed", {
      yTitle: "accuracy (%)",
      height: 440,
      uirevision: String(id),
    });
    react(chart, traces, layout);
  }
}

/** Rounds at which both mean curves have a point. @param {import("../api.js").ReproductionRow} r */
function sharedRounds(r) {
  const official = new Set(r.officialCurve?.rounds ?? []);
  return r.curve.rounds.filter((t) => official.has(t)).length;
}

/**
 * One figure's table: the report's columns, in percent, as the server writes them (the
 * same text as `fedwatch reproduce`'s report).
 * @param {import("../api.js").Reproduction} report @param {string} key @param {string} heading
 */
function figureTable(report, key, heading) {
  const rows = report.rows.map((r) => {
    const settings = Object.entries(r.settings)
      .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
      .join(", ");
    const published = r.published[key];
    const text = r.text[key] ?? { fedwatch: "–", official: "–", delta: "–" };
    return h(
      "tr",
      { dataset: { algorithm: r.algorithm } },
      h("th", {}, r.algorithm),
      h("td", { dataset: { key: "settings" } }, settings || "–"),
      h("td", { class: "num", dataset: { key: "fedwatch" } }, text.fedwatch),
      h("td", { class: "num", dataset: { key: "official" } }, text.official),
      h("td", { class: "num", dataset: { key: "delta" } }, text.delta),
      h(
        "td",
        { class: "num", dataset: { key: "published" } },
        published === undefined || published === null ? "–" : String(published),
      ),
    );
  });
  return h(
    "section",
    { dataset: { figure: key } },
    h("h2", {}, `${heading} (%)`),
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { class: "summary-table reproduction-table" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["method", "settings", "FedWatch", "official code", "Δ (p)", "published"].map((t) => h("th", {}, t)),
          ),
        ),
        h("tbody", {}, rows),
      ),
    ),
  );
}
