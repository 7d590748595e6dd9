// The compare page's tables: the server's summary (its columns the catalogue's compared
// values, a column chooser for the rest) as it comes, the page computing no statistic and
// formatting no number (cells, CIs and p-values are the server's text, in the one number
// format of every export); and the compared runs with their groups and statuses.
import { configLines, onlyLine } from "../../compare-view.js";
import { badge, empty, h, progressBar, replace } from "../../dom.js";
import { label, seedText } from "../../format.js";
import { shownColumns } from "../../columns.js";

/** Summary values shown by default (a preset's headline values, else the first that have data and the ε values two groups record); the chooser adds the others. */
const DEFAULT_VALUES = 5;
const MACHINE_TITLE = "A figure of the machine and its load, not of the method: never tested or marked best";

/** @typedef {import("../../columns.js").Column & {heading?: string}} TableColumn */
/** @typedef {import("../../api.js").Comparison} Comparison */
/** @typedef {import("../../api.js").CompareRow} CompareRow */
/**
 * What the summary's cells need besides the comparison: the reference group, the compared
 * runs by id, and how a group is renamed.
 * @typedef {{reference: string, runById: Map<number, import("../../api.js").Run>, rename: (group: string, name: string) => void}} TableContext
 */

/**
 * The summary's columns: group, n, test, the config diff (when configs differ), then the
 * values some group has, the figures of the machine (wall time, updates/s) last, apart.
 * @param {Comparison} c
 * @returns {TableColumn[]}
 */
export function tableColumns(c) {
  const machine = new Set(c.machine);
  const has = c.columns.filter((k) => c.table.some((row) => row.stats[k]?.n));
  const values = [...has.filter((k) => !machine.has(k)), ...has.filter((k) => machine.has(k))];
  return [
    { key: "group", label: "group" },
    { key: "n", label: "n", optional: true },
    { key: "ttest", label: "test", optional: true },
    ...(c.configKeys.length || c.configPartial.length ? [{ key: "config", label: "config diff", optional: true }] : []),
    ...values.map((k, i) => ({
      key: k,
      label: machine.has(k) ? `${label(k)} (machine)` : label(k),
      heading: c.headings[k] ?? label(k),
      optional: true,
      hidden: c.headline.length ? !c.headline.includes(k) : i >= DEFAULT_VALUES && !c.tradeoff?.epsilon.includes(k),
    })),
  ];
}

/**
 * The summary table of `c` with the columns `cols` shown.
 * @param {Comparison} c @param {TableColumn[]} cols @param {TableContext} ctx
 */
export function summaryTable(c, cols, ctx) {
  if (!c.table.length) return empty("No summary yet.");
  const machine = new Set(c.machine);
  const firstMachine = cols.find((col) => machine.has(col.key))?.key;
  /** @param {string} key " machine" (and " apart" for the first) on a figure of the machine */
  const machineClass = (key) => (!machine.has(key) ? "" : key === firstMachine ? " machine apart" : " machine");
  const head = cols.map((col) =>
    machine.has(col.key)
      ? h(
          "th",
          { class: machineClass(col.key).trim(), title: MACHINE_TITLE, dataset: { key: col.key } },
          col.heading ?? col.label,
          h("div", { class: "ci" }, "machine (not compared)"),
        )
      : h("th", { title: col.label, dataset: { key: col.key } }, col.heading ?? col.label),
  );
  return h(
    "table",
    { class: "summary-table" },
    h("thead", {}, h("tr", {}, head)),
    h(
      "tbody",
      {},
      c.table.map((row) => summaryRow(c, row, cols, machineClass, ctx)),
    ),
  );
}

/**
 * The text of a group's test column: the test run with its pairs or runs, else why none ran.
 * @param {Comparison} c @param {CompareRow} row @param {string} reference
 */
function testText(c, row, reference) {
  if (row.group === reference) return "reference";
  const mine = c.ttests.filter((t) => t.group === row.group);
  const ran = mine.find((t) => t.test !== null);
  return ran
    ? `${ran.test}, ${ran.nPairs ? `${ran.nPairs} pairs` : `${row.n} runs`}`
    : (mine.find((t) => t.reason)?.reason ?? "—");
}

/**
 * @param {Comparison} c @param {CompareRow} row @param {TableColumn[]} cols
 * @param {(key: string) => string} machineClass @param {TableContext} ctx
 */
function summaryRow(c, row, cols, machineClass, ctx) {
  const ttest = new Map(c.ttests.filter((t) => t.group === row.group).map((t) => [t.metric, t]));
  /** @param {TableColumn} col */
  const cell = (col) => {
    if (col.key === "group") return groupCell(row, ctx.rename);
    if (col.key === "n") return h("td", { class: "num", dataset: { key: "n" } }, String(row.n));
    if (col.key === "ttest")
      return h("td", { class: "num", dataset: { key: "ttest" } }, testText(c, row, ctx.reference));
    if (col.key === "config")
      return h("td", { class: "config-diff", dataset: { key: "config" } }, configCell(c, row, ctx.runById));
    const stat = row.stats[col.key];
    return h(
      "td",
      { class: `num${machineClass(col.key)}`, dataset: { key: col.key } },
      stat?.text ?? "—",
      stat?.ciText && h("div", { class: "ci", title: "95 % confidence interval of the mean" }, `CI ${stat.ciText}`),
      stat?.ciNote && h("div", { class: "ci" }, stat.ciNote),
      testNote(ttest.get(col.key)),
    );
  };
  return h("tr", { dataset: { group: row.group } }, cols.map(cell));
}

/**
 * A row's group: its name, and a button that renames it in place (Enter keeps the new
 * name, Escape the old; an empty name gives the group back its own).
 * @param {CompareRow} row @param {(group: string, name: string) => void} rename
 */
function groupCell(row, rename) {
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
 * @param {Comparison} c @param {CompareRow} row @param {Map<number, import("../../api.js").Run>} runById
 */
function configCell(c, row, runById) {
  const shared = configLines(c.configKeys, row.config).map((line) => h("div", {}, line));
  const own = Object.keys(row.configOnly);
  if (!own.length) return shared;
  const ids = c.runs.filter((r) => r.group === row.group).map((r) => r.id);
  const kinds = new Set(ids.map((id) => (runById.get(id)?.external ? "external" : "simulated")));
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
 * A group's test on one value, under the value: the verdict after the table's correction
 * (better or worse only where significant, else n.s.) and the adjusted p; hover for the
 * test, the raw p, the mean difference with its CI and the effect size. Where nothing
 * varied, "no test" and the difference ("−0.5000 (constant)"); nothing where no other
 * test ran.
 * @param {import("../../api.js").TTest|undefined} t
 */
function testNote(t) {
  if (t?.degenerate) return h("div", { class: "ttest ns", title: t.reason ?? "" }, `no test · Δ ${t.diffText}`);
  if (!t || t.verdict === null) return null;
  const title = `${t.test}: ${t.pText} uncorrected, Holm ${t.pAdjustedText}; difference ${t.diffText} (95 % CI)`;
  const kind = t.verdict === "n.s." ? "ns" : t.verdict;
  return h("div", { class: `ttest ${kind}`, title }, `${t.verdict} · Holm ${t.pAdjustedText}`);
}

/**
 * The compared runs: each one's group (or why it was dropped), status, progress and seed.
 * @param {import("../../api.js").Run[]} runs @param {Comparison} c
 */
export function runsTable(runs, c) {
  const groupOf = new Map(c.runs.map((r) => [r.id, r.label]));
  for (const id of c.dropped) groupOf.set(id, "dropped: a newer run has its seed");
  return h(
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
  );
}
