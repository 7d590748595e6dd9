// The form's errors by Start: every error in one list, as its field shows it, each a link
// to its field (only one may be in view), or what kept the run from being created.
import { h } from "../../dom.js";

/** @typedef {import("../../api.js").FieldError} FieldError */

/**
 * The errors the fields of `form` show, then those no field took.
 * @param {HTMLElement} form @param {FieldError[]} unplaced @returns {FieldError[]}
 */
export function shownErrors(form, unplaced) {
  return [...form.querySelectorAll(".invalid")]
    .map((el) => ({
      path: /** @type {HTMLElement} */ (el).dataset.path ?? /** @type {HTMLElement} */ (el).dataset.label ?? "",
      message: el.querySelector(".field-error")?.textContent ?? "",
    }))
    .concat(unplaced);
}

/**
 * The list's lines: the fields to fix, or, where the server named none, its message.
 * @param {FieldError[]} all the errors shown @param {boolean} atFields whether the server named fields
 * @param {unknown} err @param {HTMLElement} form where a link scrolls to its field
 */
export function errorLines(all, atFields, err, form) {
  if (!atFields)
    return [
      h("strong", {}, "The run was not created."),
      h("div", {}, err instanceof Error ? err.message : String(err)),
    ];
  const n = all.length;
  const item = (/** @type {FieldError} */ f) =>
    f.path
      ? h(
          "a",
          {
            href: "#",
            on: {
              click: (/** @type {Event} */ e) => {
                e.preventDefault();
                showField(form, f.path);
              },
            },
          },
          `${f.path}: ${f.message}`,
        )
      : f.message;
  return [
    h("strong", {}, `${n === 1 ? "One field needs" : `${n} fields need`} fixing:`),
    h(
      "ul",
      { class: "error-list" },
      all.map((f) => h("li", {}, item(f))),
    ),
  ];
}

/** Scroll to a field the server refused, and put the cursor there. @param {HTMLElement} form @param {string} path */
function showField(form, path) {
  const field = form.querySelector(`.invalid[data-path="${CSS.escape(path)}"]`) ?? form.querySelector(".invalid");
  field?.scrollIntoView({ block: "center" });
  /** @type {HTMLElement|null|undefined} */ (field?.querySelector("input, select, textarea"))?.focus();
}
