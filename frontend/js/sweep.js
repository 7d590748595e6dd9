// Sweep editor: a grid over chosen config fields × seeds, posted as an experiment.
import { h, replace } from "./dom.js";

/** @typedef {import("./schema-form.js").Leaf} Leaf */

/**
 * Parse "0, 1, 2" into values of a field's kind; unparsable items are kept as text so that
 * the API reports them with their field path.
 * @param {string} text @param {string} kind
 */
export function parseValues(text, kind) {
  const items = text.split(",").map((t) => t.trim()).filter(Boolean);
  if (kind === "int" || kind === "number") return items.map((t) => (Number.isNaN(Number(t)) ? t : Number(t)));
  return items;
}

/** Number of runs a sweep creates. @param {Record<string, any[]>} grid @param {number[]} seeds */
export function sweepSize(grid, seeds) {
  return Object.values(grid).reduce((n, values) => n * values.length, 1) * seeds.length;
}

/**
 * @param {Leaf[]} leaves fields of the schema form
 * @param {() => void} onChange
 */
export function sweepEditor(leaves, onChange) {
  const sweepable = leaves.filter((l) => l.type.kind !== "list");
  /** @type {{path: () => string, values: () => any[], el: HTMLElement}[]} */
  let rows = [];
  const list = h("div", { class: "sweep-rows" });
  const name = h("input", { type: "text", name: "experiment-name", placeholder: "experiment name", maxLength: 200 });
  const seeds = h("input", { type: "text", name: "seeds", value: "0, 1", placeholder: "0, 1, 2" });
  seeds.addEventListener("input", onChange);
  const element = h(
    "fieldset",
    { class: "section sweep" },
    h("legend", {}, "Sweep"),
    h("div", { class: "help" }, "Runs every combination of the values below with each seed; fields not swept keep the values of the form."),
    h("div", { class: "fields" },
      h("div", { class: "field" }, h("label", { class: "field-name" }, "experiment name"), name),
      h("div", { class: "field" }, h("label", { class: "field-name" }, "seeds"), seeds, h("div", { class: "help" }, "Comma-separated; paired t-tests pair runs by seed."))),
    list,
    h("button", { type: "button", class: "add-row", on: { click: () => addRow("algorithm.name", []) } }, "+ sweep another field"),
  );

  /** @param {string} path @param {any[]} initial */
  function addRow(path, initial) {
    const choose = /** @type {HTMLSelectElement} */ (h("select", { "aria-label": "field to sweep" }, sweepable.map((l) => h("option", { value: l.path }, l.path))));
    choose.value = sweepable.some((l) => l.path === path) ? path : sweepable[0].path;
    const editorBox = h("div", { class: "sweep-values" });
    /** @type {() => any[]} */
    let values = () => [];
    const build = (/** @type {any[]} */ chosen) => {
      const l = /** @type {Leaf} */ (sweepable.find((x) => x.path === choose.value));
      const options = l.type.kind === "enum" ? l.type.node.enum : l.type.kind === "bool" ? [true, false] : null;
      if (options) {
        const boxes = options.map((/** @type {any} */ v) => h("input", { type: "checkbox", value: String(v), checked: chosen.includes(v), on: { change: onChange } }));
        replace(editorBox, options.map((/** @type {any} */ v, /** @type {number} */ i) => h("label", { class: "check" }, boxes[i], String(v))));
        values = () => options.filter((/** @type {any} */ _, /** @type {number} */ i) => boxes[i].checked);
      } else {
        const text = h("input", { type: "text", placeholder: "comma-separated values", value: chosen.join(", "), on: { input: onChange } });
        replace(editorBox, text);
        values = () => parseValues(text.value, l.type.kind);
      }
      onChange();
    };
    choose.addEventListener("change", () => build([]));
    const row = {
      path: () => choose.value,
      values: () => values(),
      el: h("div", { class: "sweep-row" }, choose, editorBox, h("button", { type: "button", class: "link", "aria-label": "remove", on: { click: () => remove(row) } }, "remove")),
    };
    rows.push(row);
    list.appendChild(row.el);
    build(initial);
  }

  /** @param {(typeof rows)[number]} row */
  function remove(row) {
    rows = rows.filter((r) => r !== row);
    row.el.remove();
    onChange();
  }

  return {
    element,
    /** @param {{name: string, grid: Record<string, any[]>, seeds: number[]}} spec */
    set(spec) {
      rows = [];
      list.replaceChildren();
      name.value = spec.name;
      seeds.value = spec.seeds.join(", ");
      for (const [path, values] of Object.entries(spec.grid)) addRow(path, values);
      onChange();
    },
    /** @returns {{name: string, grid: Record<string, any[]>, seeds: any[]}} */
    value() {
      /** @type {Record<string, any[]>} */
      const grid = {};
      for (const r of rows) grid[r.path()] = r.values();
      return { name: name.value.trim(), grid, seeds: parseValues(seeds.value, "int") };
    },
  };
}
