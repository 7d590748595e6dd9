// An explicit cell's row of the sweep editor (a paper's method with its settings):
// read-only, removable, with room for the server's errors about it.
import { h, replace } from "../dom.js";
import { cellText } from "./values.js";
import { errorLine } from "./row.js";

/** @typedef {{cell: import("../api.js").Cell, el: HTMLElement, error: HTMLElement}} CellEntry */

/**
 * @param {import("../api.js").Cell} cell @param {(entry: CellEntry) => void} remove
 * @returns {CellEntry}
 */
export function cellEntry(cell, remove) {
  const error = errorLine();
  /** @type {CellEntry} */
  const entry = {
    cell,
    error,
    el: h(
      "div",
      { class: "sweep-cell", dataset: { label: cell.label } },
      h("span", { class: "cell-text" }, cellText(cell)),
      h(
        "button",
        { type: "button", class: "link", "aria-label": `remove ${cell.label}`, on: { click: () => remove(entry) } },
        "remove",
      ),
      error,
    ),
  };
  return entry;
}

/**
 * Show a cell's errors, one line each; none clears them.
 * @param {CellEntry} entry @param {string[]} messages
 */
export function showCellErrors(entry, messages) {
  replace(
    entry.error,
    messages.map((t) => h("div", {}, t)),
  );
  entry.error.hidden = !messages.length;
  entry.el.classList.toggle("invalid", messages.length > 0);
}
