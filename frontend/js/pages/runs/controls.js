// The runs page's controls: the filters (their options loaded from the server, the
// address's value kept until its list is there) and the bar that acts on the picked runs.
import { api } from "../../api.js";
import { loadCatalog } from "../../catalog.js";
import { h } from "../../dom.js";
import { loadStatuses } from "../../statuses.js";
import { ARCHIVED_OPTIONS } from "./state.js";

/** @typedef {"delete"|"archive"|"unarchive"|"tag"|"untag"} BulkAction */

/** The filters' controls, filled from the address's filters. @param {import("./state.js").Filters} f */
export function filterControls(f) {
  return {
    status: select("status", [["", "any status"]], f.status),
    algorithm: select("algorithm", [["", "any algorithm"]], f.algorithm),
    experiment: select("experiment", [["", "any experiment"]], f.experimentId),
    text: /** @type {HTMLInputElement} */ (
      h("input", { type: "search", name: "q", placeholder: "search name, notes or tags", value: f.q })
    ),
    // Newest first, or best first by a summary value the catalogue ranks by (`rank_by`).
    rank: select("rank", [["", "newest first"]], f.rankBy),
    archived: select("archived", ARCHIVED_OPTIONS, f.archived),
    tagFilter: h("span", { class: "tag-filter" }),
    // The experiment filtered by, as a whole: its progress page.
    experimentLink: h("a", { class: "experiment-link", hidden: true }, ""),
  };
}

/** @typedef {ReturnType<typeof filterControls>} Controls */

/**
 * Each filter's options from the server, the address's value selected again once they are
 * there; resolves when the metric catalogue (the ranked-by options) is loaded or failed.
 * @param {Controls} c @param {import("./state.js").Filters} f
 */
export function loadOptions(c, f) {
  /** @param {HTMLSelectElement} el @param {Promise<string[][]>} options @param {string} value */
  const fill = (el, options, value) =>
    options
      .then((o) => {
        addOptions(el, o);
        el.value = value;
      })
      .catch(() => {});
  fill(
    c.algorithm,
    api
      .schema()
      .then((schema) =>
        (schema.$defs?.AlgorithmConfig?.properties?.name?.enum ?? []).map((/** @type {string} */ n) => [n, n]),
      ),
    f.algorithm,
  );
  fill(
    c.status,
    loadStatuses().then((statuses) => statuses.map((s) => [s.name, s.name])),
    f.status,
  );
  fill(
    c.experiment,
    api.experiments().then((exps) => exps.map((e) => [String(e.id), `#${e.id} ${e.name}`])),
    f.experimentId,
  );
  const ranked = loadCatalog().then((catalogue) =>
    catalogue
      .filter((s) => s.kind === "summary" && s.rank)
      .map((m) => [m.name, `${m.label} ${m.better === "higher" ? "↓" : "↑"}`]),
  );
  return fill(c.rank, ranked, f.rankBy);
}

/**
 * The bar over the table while runs are picked: a tag to add or remove, archive (or
 * unarchive), delete, and clear.
 * @param {(action: BulkAction) => void} act @param {() => boolean} archivedShown @param {() => void} clear
 */
export function selectionBar(act, archivedShown, clear) {
  const tagName = /** @type {HTMLInputElement} */ (
    h("input", {
      type: "text",
      name: "bulk-tag",
      placeholder: "tag",
      maxLength: 40,
      "aria-label": "tag for the selected runs",
      pattern: "[A-Za-z0-9_.:+\\-]{1,40}",
    })
  );
  /** @param {BulkAction|(() => BulkAction)} action @param {string} text @param {string} [cls] */
  const button = (action, text, cls) =>
    h(
      "button",
      {
        type: "button",
        class: cls,
        dataset: { bulk: typeof action === "function" ? "archive" : action },
        on: { click: () => act(typeof action === "function" ? action() : action) },
      },
      text,
    );
  const el = h(
    "div",
    { class: "selection-bar", hidden: true },
    h("span", { class: "selected-count" }),
    tagName,
    button("tag", "Tag"),
    button("untag", "Untag"),
    button(() => (archivedShown() ? "unarchive" : "archive"), ""),
    button("delete", "Delete", "danger"),
    h("button", { type: "button", class: "link", on: { click: clear } }, "clear selection"),
  );
  return { el, tagName };
}

/** @param {string} name @param {string[][]} options @param {string} value */
function select(name, options, value) {
  const el = /** @type {HTMLSelectElement} */ (h("select", { name, "aria-label": name }));
  // The value from the address holds its place until the list it belongs to has loaded,
  // so a filter changed meanwhile does not drop it.
  addOptions(el, value && !options.some(([v]) => v === value) ? [...options, [value, value]] : options);
  el.value = value;
  return el;
}

/** Options by [value, text]; one already there gets the text. @param {HTMLSelectElement} el @param {string[][]} options */
function addOptions(el, options) {
  for (const [value, text] of options) {
    const known = [...el.options].find((o) => o.value === value);
    if (known) known.textContent = text;
    else el.appendChild(h("option", { value }, text));
  }
}
