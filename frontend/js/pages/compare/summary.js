// The compare page's summary section: the tests' reference and level, the column chooser,
// the server's warnings (duplicate seeds dropped, mixed configs), its table and caption, and
// the table as files.
import { columnChooser, shownColumns } from "../../columns.js";
import { h, replace } from "../../dom.js";
import { helpLink } from "../../help.js";
import { summaryTable, tableColumns } from "./table.js";

/**
 * @param {{alpha: HTMLInputElement, files: HTMLElement, onReference: (group: string) => void,
 *   rename: (group: string, name: string) => void}} o the level's input, the files' toolbar,
 *   what a chosen reference and a renamed group do
 */
export function summaryView(o) {
  /** @type {import("../../api.js").Comparison|null} */
  let last = null;
  /** @type {Map<number, import("../../api.js").Run>} */
  let runById = new Map();
  const chooser = columnChooser("compare", () => last && render(last, runById));
  const reference = /** @type {HTMLSelectElement} */ (
    h("select", { name: "reference", "aria-label": "t-test reference" })
  );
  reference.addEventListener("change", () => o.onReference(reference.value));
  const caption = h("p", { class: "help caption" });
  const warnings = h("div", { class: "compare-warnings", role: "status" });
  const table = h("div", { class: "table-wrap" });

  /**
   * @param {import("../../api.js").Comparison} c @param {Map<number, import("../../api.js").Run>} runs
   *   the compared runs, by id
   */
  function render(c, runs) {
    last = c;
    runById = runs;
    replace(
      reference,
      c.table.map((r) => h("option", { value: r.group }, r.label)),
    );
    reference.value = c.reference ?? ""; // the server's choice: asked for, the preset's, the sweep's first
    caption.textContent = c.caption;
    replace(
      warnings,
      c.warnings.map((w) => h("p", { class: "warning", dataset: { kind: w.kind, group: w.group } }, w.message)),
    );
    const all = tableColumns(c);
    if (c.table.length) chooser.update(all);
    const cols = shownColumns(all, chooser.choice());
    replace(table, summaryTable(c, cols, { reference: reference.value, runById, rename: o.rename }));
  }

  const section = h(
    "section",
    {},
    h("h2", {}, "Summary ", helpLink("summary", "the summary table")),
    h(
      "div",
      { class: "toolbar" },
      h("label", { class: "inline" }, "tests against ", reference),
      h("label", { class: "inline" }, "α ", o.alpha),
      chooser.el,
    ),
    warnings,
    table,
    caption,
    o.files,
  );
  return {
    section,
    render,
    /** Empty the table: nothing is compared. */
    clear() {
      replace(table);
    },
  };
}
