// Table columns a user can show or hide: which are shown (each column's default, unless the
// user chose), the choice kept in localStorage per table, and the "Columns" menu of checkboxes.
import { h, replace } from "./dom.js";

/**
 * @typedef {{key: string, label: string, optional?: boolean, hidden?: boolean}} Column
 *   optional: listed in the chooser; hidden: an optional column shown only once chosen
 * @typedef {Record<string, boolean>} Choice column key -> shown, for the columns the user toggled
 */

const PREFIX = "fedwatch.columns.";

/**
 * The columns to show, in order: every fixed column, and each optional one the user
 * chose to show, or, where the user has not chosen, that is not hidden by default.
 * @template {Column} C
 * @param {C[]} columns @param {Choice} choice
 * @returns {C[]}
 */
export function shownColumns(columns, choice) {
  return columns.filter((c) => !c.optional || (choice[c.key] ?? !c.hidden));
}

/** The user's choice for a table ({} when none or unreadable). @param {string} table @returns {Choice} */
export function loadChoice(table) {
  try {
    const saved = JSON.parse(localStorage.getItem(PREFIX + table) ?? "{}");
    if (!saved || typeof saved !== "object" || Array.isArray(saved)) return {};
    return Object.fromEntries(Object.entries(saved).filter(([, v]) => typeof v === "boolean"));
  } catch {
    return {};
  }
}

/** @param {string} table @param {Choice} choice */
export function saveChoice(table, choice) {
  try {
    localStorage.setItem(PREFIX + table, JSON.stringify(choice));
  } catch {
    // storage refused (private mode, quota): the choice lasts until the page is left
  }
}

/**
 * A "Columns" menu for a table: a checkbox per optional column; a toggle saves the choice
 * and calls `onChange`. `update(columns)` lists the columns the table has now (the menu
 * stays open across updates; it is hidden while there is nothing to choose).
 * @param {string} table storage name, e.g. "runs" @param {() => void} onChange
 * @returns {{el: HTMLElement, update: (columns: Column[]) => void, choice: () => Choice}}
 */
export function columnChooser(table, onChange) {
  let choice = loadChoice(table);
  const list = h("div", { class: "column-menu", role: "group", "aria-label": "columns shown" });
  const el = h(
    "details",
    { class: "column-chooser", dataset: { table }, hidden: true },
    h("summary", { class: "button" }, "Columns"),
    list,
  );
  let listed = "";

  /** @param {Column[]} columns */
  function update(columns) {
    const optional = columns.filter((c) => c.optional);
    const shown = new Set(shownColumns(optional, choice).map((c) => c.key));
    const key = JSON.stringify(optional.map((c) => [c.key, c.label, shown.has(c.key)]));
    el.hidden = !optional.length;
    if (key === listed) return;
    listed = key;
    replace(
      list,
      optional.map((c) =>
        h(
          "label",
          { class: "check" },
          h("input", {
            type: "checkbox",
            name: `column-${c.key}`,
            checked: shown.has(c.key),
            on: {
              change: (/** @type {Event} */ e) => toggle(c.key, /** @type {HTMLInputElement} */ (e.target).checked),
            },
          }),
          c.label,
        ),
      ),
    );
  }

  /** @param {string} key @param {boolean} on */
  function toggle(key, on) {
    choice = { ...loadChoice(table), [key]: on }; // another tab's choices stay
    saveChoice(table, choice);
    onChange();
  }

  return { el, update, choice: () => choice };
}
