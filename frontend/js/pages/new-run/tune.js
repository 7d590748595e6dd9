// The new-run page's tune mode: the preset's methods to tune (its comparison set, all
// ticked at first), the search space as the sweep editor's rows with a range each, the
// budget (trials a method, final seeds), sampler, pruner and objective; posted as
// POST /api/tunes, its refusals shown at the fields they name.
import { h, replace } from "../../dom.js";
import { plainMessage } from "../../field-errors.js";
import { helpLink } from "../../help.js";
import { errorLine, setError, sweptRow } from "../../sweep/row.js";
import { rowRange } from "../../sweep/values.js";
import { DEFAULT_TUNE } from "./state.js";

/** @typedef {import("../../schema-form.js").Leaf} Leaf */
/** @typedef {import("../../sweep/row.js").Row} Row */
/** @typedef {import("../../api.js").FieldError} FieldError */
/** @typedef {import("./state.js").Tune} Tune */
/** @typedef {{el: HTMLElement, error: HTMLElement, input: HTMLInputElement|HTMLSelectElement}} Field */

/**
 * A field of the tune's own, named as POST /api/tunes names it (its errors land there).
 * @param {string} name @param {HTMLElement} input @param {string} help
 * @returns {Field}
 */
function field(name, input, help) {
  const error = errorLine();
  const el = h(
    "div",
    { class: "field", dataset: { path: name } },
    h("label", { class: "field-name" }, name),
    input,
    h("div", { class: "help" }, help),
    error,
  );
  return { el, error, input: /** @type {HTMLInputElement} */ (input) };
}

/** @param {string} name @param {string[]} options @param {() => void} changed */
function choice(name, options, changed) {
  return h(
    "select",
    { name: `tune-${name}`, on: { change: changed } },
    options.map((o) => h("option", { value: o }, o)),
  );
}

/** @param {string} name @param {number} max @param {() => void} changed */
function count(name, max, changed) {
  return h("input", { type: "number", name: `tune-${name}`, min: 1, max, step: 1, on: { input: changed } });
}

export class TuneEditor {
  /** @param {Leaf[]} leaves fields of the schema form @param {() => void} onChange */
  constructor(leaves, onChange) {
    this.searchable = leaves.filter((l) => l.type.kind !== "list");
    this.onChange = onChange;
    /** @type {Row[]} */
    this.rows = [];
    /** @type {string[]} the preset's comparison set */
    this.names = [];
    /** @type {string[]|null} the methods ticked; null: all of the preset's */
    this.chosen = null;
    this.methodList = h("div", { class: "tune-methods" });
    this.fields = {
      methods: field("methods", this.methodList, "Each gets its own study with the same budget."),
      trials: field("trials", count("trials", 500, onChange), "Finished trials a method."),
      seeds: field("seeds", count("seeds", 50, onChange), "Fresh seeds each method's best settings run on."),
      sampler: field("sampler", choice("sampler", ["tpe", "random", "grid"], onChange), "Optuna's sampler."),
      pruner: field("pruner", choice("pruner", ["median", "hyperband", "none"], onChange), "Stops poor trials early."),
      objective: field(
        "objective",
        choice("objective", ["final_val_acc", "final_val_loss"], onChange),
        "A summary value on the validation split, never the test set.",
      ),
    };
    this.list = h("div", { class: "sweep-rows tune-space", dataset: { path: "space" } });
    this.spaceError = errorLine();
    this.element = this.layout();
    this.onChange = () => {}; // nothing to tell while it is being built
    this.set(DEFAULT_TUNE);
    this.onChange = onChange;
  }

  layout() {
    const f = this.fields;
    return h(
      "fieldset",
      { class: "section sweep tune" },
      h("legend", {}, "Tune ", helpLink("tune", "a tune")),
      h(
        "div",
        { class: "help" },
        "Tunes each method with the same budget on validation data, then runs its best settings on fresh seeds; " +
          "fields not searched keep the values of the form.",
      ),
      f.methods.el,
      h("div", { class: "field-name" }, "search space"),
      h("div", { class: "help" }, "A key and its range: log:1e-3:1, int:1:5, 0:1 (linear), or values a, b."),
      this.list,
      this.spaceError,
      h(
        "button",
        { type: "button", class: "add-row", on: { click: () => this.addRow("client.lr", []) } },
        "+ search another key",
      ),
      h("div", { class: "fields" }, f.trials.el, f.seeds.el, f.sampler.el, f.pruner.el, f.objective.el),
    );
  }

  /** @param {string} path @param {any[]} initial */
  addRow(path, initial) {
    const on = {
      change: () => this.onChange(),
      remove: (/** @type {Row} */ gone) => {
        this.rows = this.rows.filter((r) => r !== gone);
        gone.el.remove();
        this.onChange();
      },
    };
    const row = sweptRow(this.searchable, path, initial, on, true);
    this.rows.push(row);
    this.list.appendChild(row.el);
  }

  /** The preset's comparison set to choose from, the ticks kept. @param {string[]} names */
  setMethods(names) {
    this.names = names;
    const boxes = names.map((name) =>
      h(
        "label",
        { class: "check" },
        h("input", {
          type: "checkbox",
          name: "tune-method",
          value: name,
          checked: this.chosen === null || this.chosen.includes(name),
          on: { change: () => this.tick() },
        }),
        name,
      ),
    );
    replace(this.methodList, names.length ? boxes : h("span", { class: "help" }, "Choose a preset to tune."));
  }

  tick() {
    const ticked = [...this.methodList.querySelectorAll("input:checked")].map(
      (b) => /** @type {HTMLInputElement} */ (b).value,
    );
    this.chosen = ticked.length === this.names.length ? null : ticked;
    this.onChange();
  }

  /** @param {Tune} tune */
  set(tune) {
    this.chosen = tune.methods;
    this.setMethods(this.names);
    this.rows = [];
    this.list.replaceChildren();
    for (const [path, values] of tune.space) this.addRow(path, values);
    const f = this.fields;
    f.trials.input.value = String(tune.trials);
    f.seeds.input.value = String(tune.seeds);
    f.sampler.input.value = tune.sampler;
    f.pruner.input.value = tune.pruner;
    f.objective.input.value = tune.objective;
    this.onChange();
  }

  /** What the address keeps. @returns {Tune} */
  value() {
    const f = this.fields;
    return {
      methods: this.chosen,
      space: this.rows.map((r) => [r.path(), r.values()]),
      trials: Number(f.trials.input.value),
      seeds: Number(f.seeds.input.value),
      sampler: f.sampler.input.value,
      pruner: f.pruner.input.value,
      objective: f.objective.input.value,
    };
  }

  /** The request's fields of the tune's own (POST /api/tunes adds `preset` and `set`). */
  body() {
    const v = this.value();
    const methods = v.methods ?? this.names;
    return { ...v, methods, space: this.rows.map((r) => `${r.path()}=${rowRange(r.values())}`) };
  }

  /** What keeps the tune from being posted, in words, or null. */
  problem() {
    const v = this.value();
    if (!this.names.length) return "Choose a preset to tune";
    if (v.methods?.length === 0) return "methods: tick at least one";
    if (!this.rows.length) return "Search at least one key";
    for (const r of this.rows) {
      const p = r.problem();
      if (p) return `${r.path()}: ${p}`;
    }
    if (!Number.isInteger(v.trials) || v.trials < 1) return "trials: a whole number, 1 or more";
    if (!Number.isInteger(v.seeds) || v.seeds < 1) return "seeds: a whole number, 1 or more";
    return null;
  }

  /** The trials it runs in all, for Start's label. */
  size() {
    const v = this.value();
    return { methods: (v.methods ?? this.names).length, trials: v.trials };
  }

  clearErrors() {
    for (const f of Object.values(this.fields)) setError(f.el, f.error, null);
    for (const r of this.rows) setError(r.el, r.error, null);
    setError(this.list, this.spaceError, null);
  }

  /**
   * Show the errors about the tune's own fields at them: `space.<key>` at the key's row,
   * `methods[.<i>]`, `trials`, … at their fields; returns the others.
   * @param {FieldError[]} errors @returns {FieldError[]}
   */
  showErrors(errors) {
    this.clearErrors();
    const fields = /** @type {Record<string, Field>} */ (this.fields);
    return errors.filter((e) => {
      const message = plainMessage(e.message);
      const [head, ...rest] = e.path.split(".");
      const key = rest.join(".");
      if (head === "space") {
        const row = this.rows.find((r) => r.path() === key) ?? this.rows[Number(key)];
        if (row) setError(row.el, row.error, message);
        else setError(this.list, this.spaceError, key ? `${key}: ${message}` : message);
        return false;
      }
      if (!fields[head]) return true;
      setError(fields[head].el, fields[head].error, message);
      return false;
    });
  }
}
