// Sweep editor: explicit cells (a paper's methods with their settings) × a grid over chosen
// config fields × seeds, posted as an experiment. Its rows are row.js (a swept field) and
// cells.js (a method); its values and the placing of the server's errors are values.js.
import { helpLink } from "../help.js";
import { h } from "../dom.js";
import { checkSeeds } from "../field-errors.js";
import { cellEntry, showCellErrors } from "./cells.js";
import { errorLine, setError, sweptRow } from "./row.js";
import { parseValues, placeErrors } from "./values.js";

/** @typedef {import("../schema-form.js").Leaf} Leaf */
/** @typedef {import("../api.js").Cell} Cell */
/** @typedef {import("../api.js").FieldError} FieldError */
/** @typedef {import("./row.js").Row} Row */
/** @typedef {import("./cells.js").CellEntry} CellEntry */

/** The methods' box: hidden while the sweep has no explicit cell. @param {HTMLElement} list */
function cellBox(list) {
  return h(
    "div",
    { class: "sweep-cells-box", hidden: true },
    h("div", { class: "field-name" }, "methods"),
    h(
      "div",
      { class: "help" },
      "Each method runs with its paper's settings, crossed with the fields below and the seeds.",
    ),
    list,
  );
}

/** The experiment's name and its seeds, checked as they are typed. @param {() => void} onChange */
function headFields(onChange) {
  const name = /** @type {HTMLInputElement} */ (
    h("input", {
      type: "text",
      name: "experiment-name",
      placeholder: "experiment name",
      maxLength: 200,
      on: { input: () => onChange() },
    })
  );
  const seeds = /** @type {HTMLInputElement} */ (
    h("input", { type: "text", name: "seeds", value: "0, 1", placeholder: "0, 1, 2" })
  );
  const seedsError = errorLine();
  const seedsField = h(
    "div",
    { class: "field", dataset: { path: "seeds" } },
    h("label", { class: "field-name" }, "seeds"),
    seeds,
    h("div", { class: "help" }, "Comma-separated; paired t-tests pair runs by seed."),
    seedsError,
  );
  /** Show the seeds' error (null: clear it). @param {string|null} message */
  const seedsProblem = (message) => setError(seedsField, seedsError, message);
  // Checked as typed: the launch button says what is wrong instead of counting runs.
  const checkSeedsField = () => seedsProblem(checkSeeds(seeds.value).problem);
  seeds.addEventListener("input", () => {
    checkSeedsField();
    onChange();
  });
  const el = h(
    "div",
    { class: "fields" },
    h("div", { class: "field" }, h("label", { class: "field-name" }, "experiment name"), name),
    seedsField,
  );
  return { el, name, seeds, seedsProblem, checkSeedsField };
}

/**
 * @param {Leaf[]} leaves fields of the schema form
 * @param {() => void} onChange
 */
export function sweepEditor(leaves, onChange) {
  return new SweepEditor(leaves, onChange);
}

class SweepEditor {
  /** @param {Leaf[]} leaves @param {() => void} onChange */
  constructor(leaves, onChange) {
    this.sweepable = leaves.filter((l) => l.type.kind !== "list");
    this.onChange = onChange;
    /** @type {Row[]} the swept fields' rows */
    this.rows = [];
    /** @type {CellEntry[]} the method cells */
    this.cells = [];
    this.cellList = h("div", { class: "sweep-cells" });
    this.cellBox = cellBox(this.cellList);
    this.list = h("div", { class: "sweep-rows" });
    this.head = headFields(onChange);
    this.element = h(
      "fieldset",
      { class: "section sweep" },
      h("legend", {}, "Sweep ", helpLink("sweep", "a sweep")),
      h(
        "div",
        { class: "help" },
        "Runs every combination of the values below with each seed; fields not swept keep the values of the form.",
      ),
      this.head.el,
      this.cellBox,
      this.list,
      h(
        "button",
        { type: "button", class: "add-row", on: { click: () => this.addRow("algorithm.name", []) } },
        "+ sweep another field",
      ),
    );
  }

  /** @param {string} path @param {any[]} initial */
  addRow(path, initial) {
    const row = sweptRow(this.sweepable, path, initial, {
      change: this.onChange,
      remove: (/** @type {Row} */ gone) => {
        this.rows = this.rows.filter((r) => r !== gone);
        gone.el.remove();
        this.onChange();
      },
    });
    this.rows.push(row);
    this.list.appendChild(row.el);
  }

  /** @param {CellEntry} entry */
  removeCell(entry) {
    this.cells = this.cells.filter((c) => c !== entry);
    entry.el.remove();
    this.cellBox.hidden = !this.cells.length;
    this.onChange();
  }

  /** @param {{name: string, grid: Record<string, any[]>, seeds: number[], cells?: Cell[]}} spec */
  set(spec) {
    this.rows = [];
    this.list.replaceChildren();
    this.cells = (spec.cells ?? []).map((cell) => cellEntry(cell, (entry) => this.removeCell(entry)));
    this.cellList.replaceChildren(...this.cells.map((c) => c.el));
    this.cellBox.hidden = !this.cells.length;
    this.head.name.value = spec.name;
    this.head.seeds.value = spec.seeds.join(", ");
    for (const [path, values] of Object.entries(spec.grid)) this.addRow(path, values);
    this.head.checkSeedsField();
    this.onChange();
  }

  /**
   * What keeps the sweep from being launched, in words ("seeds: …", "<field>: …"), or
   * null: the seeds and the swept values are checked as they are typed.
   * @returns {string|null}
   */
  problem() {
    const seedsProblem = checkSeeds(this.head.seeds.value).problem;
    if (seedsProblem) return `Seeds: ${seedsProblem}`;
    for (const r of this.rows) {
      const p = r.problem();
      if (p) return `${r.path()}: ${p}`;
    }
    return null;
  }

  /** @returns {{name: string, grid: Record<string, any[]>, cells: Cell[], seeds: any[]}} */
  value() {
    return {
      name: this.head.name.value.trim(),
      grid: Object.fromEntries(this.rows.map((r) => [r.path(), r.values()])),
      cells: this.cells.map((c) => c.cell),
      seeds: parseValues(this.head.seeds.value, "int"),
    };
  }

  clearErrors() {
    for (const c of this.cells) showCellErrors(c, []);
    for (const r of this.rows) setError(r.el, r.error, null);
    this.head.seedsProblem(null);
  }

  /**
   * Show errors about the seeds, the swept fields and the cells (`cells.<i>[.set.<key>]`,
   * as posted by `value()`) at their rows; returns the others.
   * @param {FieldError[]} errors @returns {FieldError[]}
   */
  showErrors(errors) {
    this.clearErrors();
    const placed = placeErrors(
      errors,
      this.rows.map((r) => [r.path(), r.values()]),
      this.cells.map((c) => c.cell),
    );
    if (placed.seeds !== null) this.head.seedsProblem(placed.seeds);
    for (const [i, message] of placed.rows) setError(this.rows[i].el, this.rows[i].error, message);
    for (const [i, messages] of placed.cells) showCellErrors(this.cells[i], messages);
    this.element.querySelector(".invalid")?.scrollIntoView({ block: "center" });
    return placed.rest;
  }
}
