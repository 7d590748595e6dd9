// Sweep editor: explicit cells (a paper's methods with their settings) × a grid over chosen
// config fields × seeds, posted as an experiment.
import { helpLink } from "./help.js";
import { h, replace } from "./dom.js";
import { checkSeeds, checkValues, plainMessage, sweepMessages } from "./field-errors.js";

/** @typedef {import("./schema-form.js").Leaf} Leaf */
/** @typedef {import("./api.js").Cell} Cell */
/** @typedef {import("./api.js").FieldError} FieldError */

/**
 * Parse "0, 1, 2" into values of a field's kind; unparsable items are kept as text so that
 * the API reports them with their field path.
 * @param {string} text @param {string} kind
 */
export function parseValues(text, kind) {
  const items = text
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  if (kind === "int" || kind === "number") return items.map((t) => (Number.isNaN(Number(t)) ? t : Number(t)));
  return items;
}

/**
 * Number of runs a sweep creates: cells (none: one) × grid combinations × seeds.
 * @param {Record<string, any[]>} grid @param {any[]} seeds @param {Cell[]} [cells]
 */
export function sweepSize(grid, seeds, cells = []) {
  return Math.max(1, cells.length) * Object.values(grid).reduce((n, values) => n * values.length, 1) * seeds.length;
}

/** A preset's methods as cells: each labelled with its algorithm. @param {import("./api.js").Method[]} methods @returns {Cell[]} */
export function methodCells(methods) {
  return methods.map((m) => ({ label: m.label || m.algorithm, set: { "algorithm.name": m.algorithm, ...m.set } }));
}

/** "cafed — client.lr = 0.01, server.lr = 0.3": a cell's settings beyond its label. @param {Cell} cell */
export function cellText(cell) {
  const settings = Object.entries(cell.set)
    .filter(([k, v]) => !(k === "algorithm.name" && v === cell.label))
    .map(([k, v]) => `${k} = ${typeof v === "string" ? v : JSON.stringify(v)}`);
  return [cell.label, settings.join(", ")].filter(Boolean).join(" — ");
}

/**
 * A cell's error in plain words: the setting it is about, without the "label, seed=N: "
 * the server puts first (the row names the cell).
 * @param {string} key @param {string} message
 */
export function cellError(key, message) {
  const text = message.replace(/^(?:[^:]*, )?seed=\d+: /, "");
  return key ? `${key}: ${text}` : text;
}

/**
 * Show (or with null, clear) an error at a field or row.
 * @param {HTMLElement} el @param {HTMLElement} error @param {string|null} message
 */
function setError(el, error, message) {
  error.textContent = message ?? "";
  error.hidden = !message;
  el.classList.toggle("invalid", Boolean(message));
}

/**
 * @param {Leaf[]} leaves fields of the schema form
 * @param {() => void} onChange
 */
export function sweepEditor(leaves, onChange) {
  const sweepable = leaves.filter((l) => l.type.kind !== "list");
  /** @typedef {{path: () => string, values: () => any[], problem: () => string|null, el: HTMLElement, error: HTMLElement}} Row */
  /** @typedef {{cell: Cell, el: HTMLElement, error: HTMLElement}} CellEntry */
  /** The editor's mutable state, in one place: its swept fields' rows and its method cells. */
  const state = {
    /** @type {Row[]} */
    rows: [],
    /** @type {CellEntry[]} */
    cells: [],
  };
  const cellList = h("div", { class: "sweep-cells" });
  const cellBox = h(
    "div",
    { class: "sweep-cells-box", hidden: true },
    h("div", { class: "field-name" }, "methods"),
    h(
      "div",
      { class: "help" },
      "Each method runs with its paper's settings, crossed with the fields below and the seeds.",
    ),
    cellList,
  );
  const list = h("div", { class: "sweep-rows" });
  const name = h("input", {
    type: "text",
    name: "experiment-name",
    placeholder: "experiment name",
    maxLength: 200,
    on: { input: () => onChange() },
  });
  const seeds = /** @type {HTMLInputElement} */ (
    h("input", { type: "text", name: "seeds", value: "0, 1", placeholder: "0, 1, 2" })
  );
  const seedsError = h("div", { class: "field-error", role: "alert", hidden: true });
  const seedsField = h(
    "div",
    { class: "field", dataset: { path: "seeds" } },
    h("label", { class: "field-name" }, "seeds"),
    seeds,
    h("div", { class: "help" }, "Comma-separated; paired t-tests pair runs by seed."),
    seedsError,
  );
  // Checked as typed: the launch button says what is wrong instead of counting runs.
  const checkSeedsField = () => setError(seedsField, seedsError, checkSeeds(seeds.value).problem);
  seeds.addEventListener("input", () => {
    checkSeedsField();
    onChange();
  });
  const element = h(
    "fieldset",
    { class: "section sweep" },
    h("legend", {}, "Sweep ", helpLink("sweep", "a sweep")),
    h(
      "div",
      { class: "help" },
      "Runs every combination of the values below with each seed; fields not swept keep the values of the form.",
    ),
    h(
      "div",
      { class: "fields" },
      h("div", { class: "field" }, h("label", { class: "field-name" }, "experiment name"), name),
      seedsField,
    ),
    cellBox,
    list,
    h(
      "button",
      { type: "button", class: "add-row", on: { click: () => addRow("algorithm.name", []) } },
      "+ sweep another field",
    ),
  );

  /** @param {string} path @param {any[]} initial */
  function addRow(path, initial) {
    const choose = /** @type {HTMLSelectElement} */ (
      h(
        "select",
        { "aria-label": "field to sweep" },
        sweepable.map((l) => h("option", { value: l.path }, l.path)),
      )
    );
    choose.value = sweepable.some((l) => l.path === path) ? path : sweepable[0].path;
    const editorBox = h("div", { class: "sweep-values" });
    const error = h("div", { class: "field-error", role: "alert", hidden: true });
    /** @type {() => any[]} */
    let values = () => [];
    /** @type {() => string|null} */
    let problem = () => null;
    const build = (/** @type {any[]} */ chosen) => {
      const l = /** @type {Leaf} */ (sweepable.find((x) => x.path === choose.value));
      const options = l.type.kind === "enum" ? l.type.node.enum : l.type.kind === "bool" ? [true, false] : null;
      if (options) {
        const changed = () => {
          setError(row.el, error, problem());
          onChange();
        };
        const boxes = options.map((/** @type {any} */ v) =>
          h("input", { type: "checkbox", value: String(v), checked: chosen.includes(v), on: { change: changed } }),
        );
        replace(
          editorBox,
          options.map((/** @type {any} */ v, /** @type {number} */ i) =>
            h("label", { class: "check" }, boxes[i], String(v)),
          ),
        );
        values = () => options.filter((/** @type {any} */ _, /** @type {number} */ i) => boxes[i].checked);
        problem = () => (values().length ? null : "tick at least one value");
      } else {
        const text = /** @type {HTMLInputElement} */ (
          h("input", {
            type: "text",
            placeholder: "comma-separated values",
            value: chosen.join(", "),
            "aria-label": `values of ${l.path}`,
          })
        );
        text.addEventListener("input", () => {
          setError(row.el, error, problem());
          onChange();
        });
        replace(editorBox, text);
        values = () => parseValues(text.value, l.type.kind);
        problem = () => checkValues(text.value, l.type.kind).problem;
      }
      setError(row.el, error, null);
      onChange();
    };
    choose.addEventListener("change", () => build([]));
    const row = {
      path: () => choose.value,
      values: () => values(),
      problem: () => problem(),
      error,
      el: h(
        "div",
        { class: "sweep-row", dataset: { path } },
        choose,
        editorBox,
        h(
          "button",
          { type: "button", class: "link", "aria-label": "remove", on: { click: () => remove(row) } },
          "remove",
        ),
        error,
      ),
    };
    choose.addEventListener("change", () => {
      row.el.dataset.path = choose.value;
    });
    state.rows.push(row);
    list.appendChild(row.el);
    build(initial);
  }

  /** @param {Row} row */
  function remove(row) {
    state.rows = state.rows.filter((r) => r !== row);
    row.el.remove();
    onChange();
  }

  /** A read-only row of an explicit cell, removable. @param {Cell} cell */
  function addCell(cell) {
    const error = h("div", { class: "field-error", role: "alert", hidden: true });
    const entry = {
      cell,
      error,
      el: h(
        "div",
        { class: "sweep-cell", dataset: { label: cell.label } },
        h("span", { class: "cell-text" }, cellText(cell)),
        h(
          "button",
          {
            type: "button",
            class: "link",
            "aria-label": `remove ${cell.label}`,
            on: { click: () => removeCell(entry) },
          },
          "remove",
        ),
        error,
      ),
    };
    state.cells.push(entry);
    cellList.appendChild(entry.el);
  }

  /** @param {CellEntry} entry */
  function removeCell(entry) {
    state.cells = state.cells.filter((c) => c !== entry);
    entry.el.remove();
    cellBox.hidden = !state.cells.length;
    onChange();
  }

  function clearErrors() {
    for (const c of state.cells) {
      c.error.hidden = true;
      c.el.classList.remove("invalid");
    }
    for (const r of state.rows) setError(r.el, r.error, null);
    setError(seedsField, seedsError, null);
  }

  return {
    element,
    /** @param {{name: string, grid: Record<string, any[]>, seeds: number[], cells?: Cell[]}} spec */
    set(spec) {
      state.rows = [];
      list.replaceChildren();
      state.cells = [];
      cellList.replaceChildren();
      name.value = spec.name;
      seeds.value = spec.seeds.join(", ");
      for (const cell of spec.cells ?? []) addCell(cell);
      cellBox.hidden = !state.cells.length;
      for (const [path, values] of Object.entries(spec.grid)) addRow(path, values);
      checkSeedsField();
      onChange();
    },
    /**
     * What keeps the sweep from being launched, in words ("seeds: …", "<field>: …"), or
     * null: the seeds and the swept values are checked as they are typed.
     * @returns {string|null}
     */
    problem() {
      const seedsProblem = checkSeeds(seeds.value).problem;
      if (seedsProblem) return `Seeds: ${seedsProblem}`;
      for (const r of state.rows) {
        const p = r.problem();
        if (p) return `${r.path()}: ${p}`;
      }
      return null;
    },
    /** @returns {{name: string, grid: Record<string, any[]>, cells: Cell[], seeds: any[]}} */
    value() {
      /** @type {Record<string, any[]>} */
      const grid = {};
      for (const r of state.rows) grid[r.path()] = r.values();
      return {
        name: name.value.trim(),
        grid,
        cells: state.cells.map((c) => c.cell),
        seeds: parseValues(seeds.value, "int"),
      };
    },
    clearErrors,
    /**
     * Show errors about cells (`cells.<i>[.set.<key>]`, as posted by `value()`) at their
     * rows; returns the others.
     * @param {FieldError[]} errors @returns {FieldError[]}
     */
    showErrors(errors) {
      clearErrors();
      /** @type {Map<number, Set<string>>} */
      const byCell = new Map();
      /** @type {Map<Row, FieldError[]>} */
      const byRow = new Map();
      const rest = errors.filter((e) => {
        // The seeds (`seeds`, `seeds.<i>`) and a swept field's values (`grid.<key>`): at their rows.
        if (e.path === "seeds" || /^seeds\.\d+$/.test(e.path)) {
          setError(seedsField, seedsError, plainMessage(e.message));
          return false;
        }
        const swept = e.path.startsWith("grid.") ? state.rows.find((r) => r.path() === e.path.slice(5)) : undefined;
        if (swept) {
          byRow.set(swept, [...(byRow.get(swept) ?? []), e]);
          return false;
        }
        const m = /^cells\.(\d+)(?:\.set\.(.+)|\.(.+))?$/.exec(e.path);
        if (!m || !state.cells[Number(m[1])]) return true;
        const messages = byCell.get(Number(m[1])) ?? new Set();
        messages.add(cellError(m[2] ?? m[3] ?? "", plainMessage(e.message.replace(/^(?:[^:]*, )?seed=\d+: /, ""))));
        byCell.set(Number(m[1]), messages);
        return false;
      });
      const grid = Object.fromEntries(state.rows.map((r) => [r.path(), r.values()]));
      const n = sweepSize(
        grid,
        [0],
        state.cells.map((c) => c.cell),
      );
      for (const [row, rowErrors] of byRow)
        setError(
          row.el,
          row.error,
          sweepMessages(rowErrors, n)
            .map((e) => e.message)
            .join("; "),
        );
      for (const [i, messages] of byCell) {
        replace(
          state.cells[i].error,
          [...messages].map((t) => h("div", {}, t)),
        );
        state.cells[i].error.hidden = false;
        state.cells[i].el.classList.add("invalid");
      }
      element.querySelector(".invalid")?.scrollIntoView({ block: "center" });
      return rest;
    },
  };
}
