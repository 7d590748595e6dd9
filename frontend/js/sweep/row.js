// A swept field's row of the sweep editor: the field chosen, its values (boxes to tick for
// a choice or a flag, else comma-separated text), checked as they are typed. A tune's
// searched key is the same row with a range typed instead of the text (`ranges`).
import { h, replace } from "../dom.js";
import { checkValues } from "../field-errors.js";
import { parseValues, rangeProblem, rangeSpec } from "./values.js";

/** @typedef {import("../schema-form.js").Leaf} Leaf */
/** @typedef {{el: HTMLElement|HTMLElement[], values: () => any[], problem: () => string|null}} ValuesEditor */
/** @typedef {{path: () => string, values: () => any[], problem: () => string|null, el: HTMLElement, error: HTMLElement}} Row */

/**
 * Show (or with null, clear) an error at a field or row.
 * @param {HTMLElement} el @param {HTMLElement} error @param {string|null} message
 */
export function setError(el, error, message) {
  error.textContent = message ?? "";
  error.hidden = !message;
  el.classList.toggle("invalid", Boolean(message));
}

/** An error line, hidden while there is none. */
export function errorLine() {
  return h("div", { class: "field-error", role: "alert", hidden: true });
}

/**
 * The values' editor of a field with a few options: a box per option.
 * @param {any[]} options @param {any[]} chosen @param {() => void} changed
 * @returns {ValuesEditor}
 */
function optionBoxes(options, chosen, changed) {
  const boxes = options.map((v) =>
    h("input", { type: "checkbox", value: String(v), checked: chosen.includes(v), on: { change: changed } }),
  );
  const values = () => options.filter((_, i) => /** @type {HTMLInputElement} */ (boxes[i]).checked);
  return {
    el: options.map((v, i) => h("label", { class: "check" }, boxes[i], String(v))),
    values,
    problem: () => (values().length ? null : "tick at least one value"),
  };
}

/**
 * The values' editor of any other field: comma-separated text.
 * @param {Leaf} leaf @param {any[]} chosen @param {() => void} changed
 * @returns {ValuesEditor}
 */
function valueText(leaf, chosen, changed) {
  const text = /** @type {HTMLInputElement} */ (
    h("input", {
      type: "text",
      placeholder: "comma-separated values",
      value: chosen.join(", "),
      "aria-label": `values of ${leaf.path}`,
    })
  );
  text.addEventListener("input", changed);
  return {
    el: text,
    values: () => parseValues(text.value, leaf.type.kind),
    problem: () => checkValues(text.value, leaf.type.kind).problem,
  };
}

/**
 * The range editor of a searched key that is no choice or flag: `log:1e-3:1`, `int:1:5`,
 * `0:1` or values, its value the range as POST /api/tunes takes it (`rangeSpec`).
 * @param {Leaf} leaf @param {any[]} chosen @param {() => void} changed
 * @returns {ValuesEditor}
 */
function rangeText(leaf, chosen, changed) {
  const text = /** @type {HTMLInputElement} */ (
    h("input", {
      type: "text",
      placeholder: "log:1e-3:1, int:1:5, 0:1, or values a, b",
      value: chosen.join(", "),
      "aria-label": `range of ${leaf.path}`,
    })
  );
  text.addEventListener("input", changed);
  return {
    el: text,
    values: () => {
      const spec = rangeSpec(text.value);
      return spec === null ? [] : [spec];
    },
    problem: () => rangeProblem(text.value),
  };
}

/**
 * A row sweeping `path` (else the first sweepable field) over `initial`.
 * @param {Leaf[]} sweepable @param {string} path @param {any[]} initial
 * @param {{change: () => void, remove: (row: Row) => void}} on
 * @param {boolean} [ranges] a tune's searched key: a range, not values
 * @returns {Row}
 */
export function sweptRow(sweepable, path, initial, on, ranges = false) {
  const choose = /** @type {HTMLSelectElement} */ (
    h(
      "select",
      { "aria-label": ranges ? "key to search" : "field to sweep" },
      sweepable.map((l) => h("option", { value: l.path }, l.path)),
    )
  );
  choose.value = sweepable.some((l) => l.path === path) ? path : sweepable[0].path;
  const editorBox = h("div", { class: "sweep-values" });
  const error = errorLine();
  /** @type {ValuesEditor} the values' editor of the field chosen */
  let editor = { el: [], values: () => [], problem: () => null };
  /** @type {Row} */
  const row = {
    path: () => choose.value,
    values: () => editor.values(),
    problem: () => editor.problem(),
    error,
    el: h(
      "div",
      { class: "sweep-row", dataset: { path } },
      choose,
      editorBox,
      h(
        "button",
        { type: "button", class: "link", "aria-label": "remove", on: { click: () => on.remove(row) } },
        "remove",
      ),
      error,
    ),
  };
  const changed = () => {
    setError(row.el, error, row.problem());
    on.change();
  };
  const build = (/** @type {any[]} */ chosen) => {
    const leaf = /** @type {Leaf} */ (sweepable.find((x) => x.path === choose.value));
    const options = leaf.type.kind === "enum" ? leaf.type.node.enum : leaf.type.kind === "bool" ? [true, false] : null;
    const typed = ranges ? rangeText : valueText;
    editor = options ? optionBoxes(options, chosen, changed) : typed(leaf, chosen, changed);
    replace(editorBox, editor.el);
    setError(row.el, error, null);
    on.change();
  };
  choose.addEventListener("change", () => {
    row.el.dataset.path = choose.value;
    build([]);
  });
  build(initial);
  return row;
}
