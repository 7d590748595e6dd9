// The runs table: its columns (fixed ones and those the "Columns" menu shows or hides; at
// 1440 px the default set fits without scrolling sideways), its empty state and its pager.
import { specOf } from "../../catalog.js";
import { badge, empty, h, progressBar } from "../../dom.js";
import { heading, headline, num, seedText, shortWhen, when } from "../../format.js";
import { standing } from "../../standing.js";
import { pageOf, runCount } from "./state.js";

/** @typedef {import("../../api.js").Run} Run */
/** @typedef {import("../../columns.js").Column & {heading?: string, cell: (run: Run) => HTMLElement}} RunColumn */
/**
 * What the rows act on: the picked runs and the page's actions.
 * @typedef {{picked: Set<number>, rankBy: () => string, toggle: (id: number, on: boolean) => void,
 *   filterTag: (tag: string) => void, cancel: (run: Run) => void, remove: (run: Run) => void}} Rows
 */

/** @param {Rows} rows @returns {RunColumn[]} */
export function runColumns(rows) {
  return [
    pickColumn(rows),
    { key: "id", label: "#", cell: (run) => h("td", { class: "num" }, String(run.id)) },
    nameColumn(rows),
    {
      key: "status",
      label: "status",
      cell: (run) => h("td", {}, badge(run.cancelling ? "cancelling" : run.status), standing(run)),
    },
    {
      key: "progress",
      label: "progress",
      optional: true,
      cell: (run) =>
        h("td", { class: "progress-cell" }, progressBar(run.progress, `${run.roundsDone} / ${run.roundsTotal}`)),
    },
    { key: "algorithm", label: "algorithm", optional: true, cell: (run) => h("td", {}, run.algorithm) },
    { key: "dataset", label: "dataset", optional: true, hidden: true, cell: (run) => h("td", {}, run.dataset) },
    {
      key: "availability",
      label: "availability",
      optional: true,
      hidden: true,
      cell: (run) => h("td", {}, run.availability),
    },
    {
      key: "seed",
      label: "seed",
      optional: true,
      hidden: true,
      cell: (run) => h("td", { class: "num" }, seedText(run.seed)),
    },
    ...laterColumns(rows),
  ];
}

/** @param {Rows} rows @returns {RunColumn} */
function pickColumn(rows) {
  return {
    key: "pick",
    label: "select",
    heading: "",
    cell: (run) =>
      h(
        "td",
        {},
        h("input", {
          type: "checkbox",
          "aria-label": `select run ${run.id}`,
          checked: rows.picked.has(run.id),
          on: {
            change: (/** @type {Event} */ e) => rows.toggle(run.id, /** @type {HTMLInputElement} */ (e.target).checked),
          },
        }),
      ),
  };
}

/**
 * The name, linked to the run, with its notes and its tags (a tag filters by it; a tune's
 * trial or final run, tagged `tune:<id>`, also links the tune's page).
 * @param {Rows} rows @returns {RunColumn}
 */
function nameColumn(rows) {
  /** @param {string} t */
  const tag = (t) => [
    h(
      "button",
      { type: "button", class: "tag", title: `only runs tagged ${t}`, on: { click: () => rows.filterTag(t) } },
      t,
    ),
    /^tune:\d+$/.test(t) && h("a", { class: "tag tune-link", href: `#/tunes/${t.slice(5)}` }, "tune page"),
  ];
  return {
    key: "name",
    label: "name",
    cell: (run) =>
      h(
        "td",
        { class: "name-cell" },
        h("a", { href: `#/runs/${run.id}`, class: "run-name" }, run.name || `run ${run.id}`),
        run.notes && h("div", { class: "muted small" }, run.notes),
        run.tags.length > 0 && h("div", { class: "tags" }, run.tags.map(tag)),
      ),
  };
}

/** The experiment, the result, the creation time and the row's actions. @param {Rows} rows @returns {RunColumn[]} */
function laterColumns(rows) {
  return [
    {
      key: "experiment",
      label: "experiment",
      optional: true,
      cell: (run) =>
        h(
          "td",
          {},
          run.experimentId === null
            ? "—"
            : h("a", { href: `#/experiments/${run.experimentId}` }, `#${run.experimentId}`),
        ),
    },
    {
      key: "result",
      label: "result",
      optional: true,
      cell: (run) => h("td", { class: "nowrap" }, rankedValue(rows.rankBy(), run.summary) ?? headline(run.summary)),
    },
    {
      key: "created",
      label: "created",
      optional: true,
      cell: (run) => h("td", { class: "nowrap small", title: when(run.createdAt) }, shortWhen(run.createdAt)),
    },
    {
      key: "actions",
      label: "actions",
      heading: "",
      cell: (run) =>
        h(
          "td",
          { class: "actions" },
          run.active &&
            !run.cancelling &&
            h("button", { type: "button", on: { click: () => rows.cancel(run) } }, "Cancel"),
          h("button", { type: "button", class: "danger", on: { click: () => rows.remove(run) } }, "Delete"),
        ),
    },
  ];
}

/** The value the table is ranked by, if any. @param {string} rankBy @param {Record<string, any>|null} summary */
function rankedValue(rankBy, summary) {
  const value = summary?.[rankBy];
  if (!rankBy || !specOf(rankBy)?.rank || value === null || value === undefined) return null;
  return `${heading(rankBy)} ${num(value, 3)}`;
}

/**
 * The table of `runs` in `columns`; its head's checkbox picks every run on the page.
 * @param {Run[]} runs @param {RunColumn[]} columns @param {Rows} rows @param {() => void} pickAll
 */
export function runsTable(runs, columns, rows, pickAll) {
  const all = /** @type {HTMLInputElement} */ (
    h("input", {
      type: "checkbox",
      name: "pick-all",
      "aria-label": "select every run on this page",
      checked: runs.every((r) => rows.picked.has(r.id)),
      on: {
        change: () => {
          for (const r of runs) rows.toggle(r.id, all.checked);
          pickAll();
        },
      },
    })
  );
  const head = (/** @type {RunColumn} */ c) =>
    h("th", { dataset: { key: c.key } }, c.key === "pick" ? all : (c.heading ?? c.label));
  const body = runs.map((run) =>
    h(
      "tr",
      { dataset: { runId: String(run.id) } },
      columns.map((c) => c.cell(run)),
    ),
  );
  return h("table", { class: "runs-table" }, h("thead", {}, h("tr", {}, columns.map(head))), h("tbody", {}, body));
}

/** The empty table: none match the filters, or none yet (and how to start one). @param {boolean} filtered */
export function noRuns(filtered) {
  return filtered
    ? empty("No run matches these filters.")
    : empty("No runs yet.", [
        "Start one from ",
        h("a", { href: "#/new" }, "New run"),
        ", or try the ",
        h("a", { href: "#/new?preset=example1" }, "example1 preset"),
        ": it takes seconds.",
      ]);
}

/**
 * The pager's items: the count, and the pages where there are several.
 * @param {number} count @param {number} offset @param {(delta: number) => void} move
 */
export function pagerItems(count, offset, move) {
  const { page, pages } = pageOf(offset, count);
  return [
    count > 0 && h("span", { class: "muted" }, runCount(count)),
    pages > 1 && h("button", { type: "button", disabled: page <= 1, on: { click: () => move(-1) } }, "Previous"),
    pages > 1 && h("span", {}, `page ${page} of ${pages}`),
    pages > 1 && h("button", { type: "button", disabled: page >= pages, on: { click: () => move(1) } }, "Next"),
  ];
}
