// Experiment: the sweep as a whole, its grid, cells and seeds, how far its runs are
// together (rounds done over total, runs by status, the ETA of the last one), its runs as
// they progress, links to compare them (and to the reproduction report of a preset's), and
// their comparison table and figure as files.
// Refreshed while any of its runs is active.
import { ApiError, api } from "../api.js";
import { confirmIn } from "../confirm.js";
import { badge, empty, errorBox, h, loading, progressBar, replace } from "../dom.js";
import { downloadButton, FIGURE_FILES, TABLE_FILES } from "../downloads.js";
import { seedText, when } from "../format.js";
import { etaText, speedText, standing } from "../standing.js";
import { loadStatuses } from "../statuses.js";
import { helpLink } from "../help.js";
import { go } from "../router.js";
import { cellText } from "../sweep/values.js";

const REFRESH_MS = 2000;

/** @type {import("../app.js").Mount} */
export function mount(root, route) {
  const id = /** @type {number} */ (route.id);
  let alive = true;
  let timer = 0;
  let shown = "";
  const asking = h("div", { class: "confirm-slot", hidden: true });
  replace(root, loading(`Loading experiment #${id}…`));

  async function refresh() {
    clearTimeout(timer);
    try {
      const [experiment, { runs, count }, statuses] = await Promise.all([
        api.experiment(id),
        api.listRuns({ experimentId: id, order: "activity", limit: 500 }),
        loadStatuses(),
      ]);
      if (!alive) return;
      // Re-render only on change: an idle page keeps its links still under the pointer.
      const key = JSON.stringify([experiment, runs, count]);
      if (key !== shown) {
        shown = key;
        render(experiment, runs, count, statuses);
      }
      if (activeCount(experiment.progress.byStatus, statuses) > 0) timer = setTimeout(refresh, REFRESH_MS);
    } catch (err) {
      if (!alive) return;
      shown = "";
      if (err instanceof ApiError && err.status === 404) {
        replace(
          root,
          h(
            "div",
            { class: "state state-missing" },
            empty(`Experiment #${id} does not exist`, "It was never created."),
            h("a", { href: "#/runs" }, "Back to the runs"),
          ),
        );
      } else {
        replace(root, errorBox(err, refresh));
      }
    }
  }

  /**
   * @param {import("../api.js").Experiment} e @param {import("../api.js").Run[]} runs
   * @param {number} count all its runs (the table shows the first 500)
   * @param {import("../api.js").StatusSpec[]} specs the statuses, in lifecycle order
   */
  function render(e, runs, count, specs) {
    const p = e.progress;
    const total = Object.values(p.byStatus).reduce((a, b) => a + b, 0);
    const statuses = specs.map((s) => s.name).filter((s) => p.byStatus[s]);
    const active = activeCount(p.byStatus, specs);
    const grid = Object.entries(e.grid);
    replace(
      root,
      h(
        "div",
        { class: "page-head" },
        h(
          "h1",
          {},
          h("span", { class: "run-id" }, `#${e.id}`),
          " ",
          h("span", { class: "experiment-title" }, e.name),
          " ",
          helpLink("experiment", "the experiment page"),
        ),
        h(
          "div",
          { class: "actions" },
          h("a", { class: "button", href: `#/compare?experiment=${e.id}` }, "Compare"),
          e.preset && h("a", { class: "button", href: `#/experiments/${e.id}/reproduction` }, "Reproduction report"),
          h("button", { type: "button", class: "danger", on: { click: () => remove(e) } }, "Delete experiment"),
        ),
      ),
      asking,
      e.runIds.length > 0 &&
        h(
          "div",
          { class: "toolbar downloads", dataset: { files: "experiment" } },
          "Comparison of its cells: ",
          TABLE_FILES.slice(0, 2).map(([fmt, text]) =>
            downloadButton(text, () => comparePath(e, runs, fmt), {
              title: `The summary table as ${text}`,
              format: fmt,
            }),
          ),
          downloadButton("Figure (PDF)", () => comparePath(e, runs, "pdf"), {
            title: "The cells' mean curves with ± std bands",
            format: "pdf",
          }),
        ),
      h(
        "section",
        { class: "experiment-progress" },
        h(
          "div",
          { class: "status-line" },
          progressBar(
            p.roundsTotal ? p.roundsDone / p.roundsTotal : 0,
            `${p.roundsDone.toLocaleString()} / ${p.roundsTotal.toLocaleString()} rounds`,
          ),
        ),
        h(
          "dl",
          { class: "facts" },
          h(
            "div",
            { class: "status-counts" },
            h("dt", {}, `${total} run${total === 1 ? "" : "s"}`),
            h(
              "dd",
              {},
              statuses.map((s) =>
                h("span", { class: "status-count", dataset: { status: s } }, badge(s), ` ${p.byStatus[s]}`),
              ),
            ),
          ),
          fact("ETA", active ? etaText(p.etaS) : "done", "overall-eta"),
          fact("speed", speedText(p.roundsPerS), "speed"),
          fact("created", when(e.createdAt)),
        ),
      ),
      h(
        "section",
        { class: "experiment-design" },
        h(
          "dl",
          { class: "facts" },
          fact("seeds", e.seeds.join(", ")),
          e.preset && fact("preset", e.preset),
          grid.length > 0 &&
            fact("grid", grid.map(([k, values]) => `${k} ∈ {${values.map(show).join(", ")}}`).join(" × ")),
          e.cells.length > 0 && fact("cells", `${e.cells.length}`),
        ),
        e.cells.length > 0 &&
          h(
            "ul",
            { class: "experiment-cells small" },
            e.cells.map((c) => h("li", {}, cellText(c))),
          ),
      ),
      h(
        "section",
        {},
        h("h2", {}, "Runs"),
        runs.length
          ? h(
              "div",
              { class: "table-wrap" },
              h(
                "table",
                { class: "runs-table compact" },
                h(
                  "thead",
                  {},
                  h(
                    "tr",
                    {},
                    ["#", "name", "status", "progress", "seed"].map((t) => h("th", {}, t)),
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
                      h(
                        "td",
                        { class: "name-cell" },
                        h("a", { href: `#/runs/${r.id}`, class: "run-name" }, r.name || `run ${r.id}`),
                      ),
                      h("td", {}, badge(r.cancelling ? "cancelling" : r.status), standing(r)),
                      h(
                        "td",
                        { class: "progress-cell" },
                        progressBar(r.progress, `${r.roundsDone} / ${r.roundsTotal}`),
                      ),
                      h("td", { class: "num" }, seedText(r.seed)),
                    ),
                  ),
                ),
              ),
            )
          : empty("This experiment has no runs left.", "Its runs were deleted."),
        count > runs.length && h("p", { class: "help" }, `The first ${runs.length} of ${count} runs.`),
      ),
    );
  }

  /** The experiment and its runs, after one confirmation. @param {import("../api.js").Experiment} e */
  async function remove(e) {
    const n = e.runIds.length;
    const question = `Delete experiment #${e.id} "${e.name}" and its ${n} run${n === 1 ? "" : "s"} with all their records? This cannot be undone.`;
    if (!(await confirmIn(asking, question, "Delete experiment"))) return;
    try {
      await api.deleteExperiment(e.id);
      go("/runs");
    } catch (err) {
      alert(err instanceof Error ? err.message : String(err));
    }
  }

  refresh();
  return () => {
    alive = false;
    clearTimeout(timer);
  };
}

/**
 * The API path of the experiment's comparison (its cells as groups) as a file.
 * @param {import("../api.js").Experiment} e @param {import("../api.js").Run[]} runs @param {string} fmt
 */
function comparePath(e, runs, fmt) {
  const metric = runs.length && runs.every((r) => r.dataset === "mean_estimation") ? "param" : "test_acc";
  return api.comparePath({ runs: e.runIds, metric, groupBy: "experiment_cell", x: "round" }, fmt);
}

/** @param {string} k @param {string} v @param {string} [key] */
function fact(k, v, key) {
  return h("div", { dataset: key ? { key } : {} }, h("dt", {}, k), h("dd", {}, v));
}

/** A grid value as written in a config. @param {any} v */
function show(v) {
  return typeof v === "string" ? v : JSON.stringify(v);
}

/**
 * Runs in an active status (queued, running, stalled: `GET /api/meta`).
 * @param {Record<string, number>} byStatus @param {import("../api.js").StatusSpec[]} specs
 */
function activeCount(byStatus, specs) {
  return specs.filter((s) => s.active).reduce((n, s) => n + (byStatus[s.name] ?? 0), 0);
}
