// Experiment: the sweep as a whole, its grid, cells and seeds, how far its runs are
// together (rounds done over total, runs by status, the ETA of the last one), its runs as
// they progress, links to compare them (and to the reproduction report of a preset's), and
// their comparison table and figure as files.
// Refreshed while any of its runs is active.
import { ApiError, api } from "../api.js";
import { confirmIn } from "../confirm.js";
import { badge, empty, errorBox, h, loading, progressBar, replace } from "../dom.js";
import { downloadButton } from "../downloads.js";
import { seedText, when } from "../format.js";
import { etaText, speedText, standing } from "../standing.js";
import { loadMeta } from "../meta.js";
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
      const [experiment, { runs, count }, meta] = await Promise.all([
        api.experiment(id),
        api.listRuns({ experimentId: id, order: "activity", limit: 500 }),
        loadMeta(),
      ]);
      if (!alive) return;
      // Re-render only on change: an idle page keeps its links still under the pointer.
      const key = JSON.stringify([experiment, runs, count]);
      if (key !== shown) {
        shown = key;
        replace(root, ...page(experiment, runs, count, meta, { asking, remove }));
      }
      if (activeCount(experiment.progress.byStatus, meta.statuses) > 0) timer = setTimeout(refresh, REFRESH_MS);
    } catch (err) {
      if (!alive) return;
      shown = "";
      replace(root, err instanceof ApiError && err.status === 404 ? missing(id) : errorBox(err, refresh));
    }
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

/** The page of an experiment that does not exist. @param {number} id */
function missing(id) {
  return h(
    "div",
    { class: "state state-missing" },
    empty(`Experiment #${id} does not exist`, "It was never created."),
    h("a", { href: "#/runs" }, "Back to the runs"),
  );
}

/**
 * The page's parts: its head, its files, its progress, its design and its runs.
 * @param {import("../api.js").Experiment} e @param {import("../api.js").Run[]} runs
 * @param {number} count all its runs (the table shows the first 500) @param {import("../api.js").Meta} meta
 * @param {{asking: HTMLElement, remove: (e: import("../api.js").Experiment) => void}} o the confirmation's slot, and what Delete does
 */
function page(e, runs, count, meta, o) {
  return [
    head(e, o.remove),
    o.asking,
    e.runIds.length > 0 && files(e, runs, meta),
    progress(e, meta.statuses),
    design(e),
    h(
      "section",
      {},
      h("h2", {}, "Runs"),
      runs.length ? runsTable(runs) : empty("This experiment has no runs left.", "Its runs were deleted."),
      count > runs.length && h("p", { class: "help" }, `The first ${runs.length} of ${count} runs.`),
    ),
  ];
}

/**
 * Its title and actions: compare, the reproduction report (a preset's), delete.
 * @param {import("../api.js").Experiment} e @param {(e: import("../api.js").Experiment) => void} remove
 */
function head(e, remove) {
  return h(
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
  );
}

/**
 * The comparison of its cells as files: the table in each served format, the figure in the first.
 * @param {import("../api.js").Experiment} e @param {import("../api.js").Run[]} runs @param {import("../api.js").Meta} meta
 */
function files(e, runs, meta) {
  const q = () => ({
    runs: e.runIds,
    metric: meta.defaultMetrics[runs[0]?.dataset] ?? "",
    groupBy: "experiment_cell",
    x: meta.xAxes[0].key,
  });
  const figure = meta.figureFormats[0];
  return h(
    "div",
    { class: "toolbar downloads", dataset: { files: "experiment" } },
    "Comparison of its cells: ",
    meta.tableFormats.map((f) =>
      downloadButton(f.label, () => api.comparePath(q(), f.name), {
        title: `The summary table as ${f.label}`,
        format: f.name,
      }),
    ),
    downloadButton(`Figure (${figure.label})`, () => api.compareFigurePath(q(), figure.name), {
      title: "The cells' mean curves with ± std bands",
      format: figure.name,
    }),
  );
}

/**
 * How far its runs are together: rounds done over total, runs by status, the ETA of the last one.
 * @param {import("../api.js").Experiment} e @param {import("../api.js").StatusSpec[]} specs the statuses, in lifecycle order
 */
function progress(e, specs) {
  const p = e.progress;
  const total = Object.values(p.byStatus).reduce((a, b) => a + b, 0);
  const statuses = specs.map((s) => s.name).filter((s) => p.byStatus[s]);
  const active = activeCount(p.byStatus, specs);
  return h(
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
  );
}

/** Its design: seeds, preset, grid and cells. @param {import("../api.js").Experiment} e */
function design(e) {
  const grid = Object.entries(e.grid);
  return h(
    "section",
    { class: "experiment-design" },
    h(
      "dl",
      { class: "facts" },
      fact("seeds", e.seeds.join(", ")),
      e.preset && fact("preset", e.preset),
      grid.length > 0 && fact("grid", grid.map(([k, values]) => `${k} ∈ {${values.map(show).join(", ")}}`).join(" × ")),
      e.cells.length > 0 && fact("cells", `${e.cells.length}`),
    ),
    e.cells.length > 0 &&
      h(
        "ul",
        { class: "experiment-cells small" },
        e.cells.map((c) => h("li", {}, cellText(c))),
      ),
  );
}

/** Its runs as they progress. @param {import("../api.js").Run[]} runs */
function runsTable(runs) {
  return h(
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
            h("td", { class: "progress-cell" }, progressBar(r.progress, `${r.roundsDone} / ${r.roundsTotal}`)),
            h("td", { class: "num" }, seedText(r.seed)),
          ),
        ),
      ),
    ),
  );
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
