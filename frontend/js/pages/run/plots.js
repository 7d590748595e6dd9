// The run page's plot helpers: drawing into a div that may hold an empty state, the line
// beside a chart that says what it measures, and the empty or error state itself.
import { empty, errorBox, h, replace } from "../../dom.js";
import { purge, react } from "../../plot.js";

const PLOT_CONFIG = { responsive: true, displaylogo: false };

/**
 * Plotly.react into a div that may hold an empty-state box instead of a plot.
 * @param {HTMLElement} div @param {any[]} data @param {any} layout
 */
export function draw(div, data, layout) {
  react(div, data, layout, PLOT_CONFIG);
}

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
