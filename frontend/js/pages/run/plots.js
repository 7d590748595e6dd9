// The run page's plot helpers: the line beside a chart that says what it measures, and the
// empty or error state in place of a plot.
import { empty, errorBox, h, replace } from "../../dom.js";
import { purge } from "../../plot.js";

/**
 * The one line beside a chart that says what it measures (the catalogue's), or nothing.
 * @param {string|undefined} text @param {string} panel
 */
export function definition(text, panel) {
  return text ? h("p", { class: "definition", dataset: { panel } }, text) : null;
}

/**
 * An empty or error state in place of a plot.
 * @param {HTMLElement} div @param {PromiseSettledResult<any>} result @param {string} title @param {string} why
 */
export function placeholder(div, result, title, why) {
  purge(div);
  replace(div, result.status === "rejected" ? errorBox(result.reason) : empty(title, why));
}
