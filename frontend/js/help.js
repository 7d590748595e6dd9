// Where the manual (served under /manual) explains what a view shows: the "?" next to a
// page's or a panel's title. One table, checked against the built manual by the tests.
import { h } from "./dom.js";

/** @type {Record<string, string>} */
export const HELP = {
  runs: "guide/runs/",
  experiment: "guide/runs/#experiment-page",
  newRun: "guide/new-run/",
  sweep: "guide/new-run/#sweeps",
  curves: "guide/run-page/#training-curves",
  clients: "guide/run-page/#clients",
  compare: "guide/compare/",
  summary: "guide/compare/#summary-table",
  tradeoff: "guide/compare/#privacy-trade-off",
  reproduction: "guide/reproduce/",
  tune: "fair-comparisons/#the-form",
};

/**
 * A "?" that opens the manual's page about a view, in a new tab.
 * @param {keyof typeof HELP} key @param {string} [what] what the page explains
 */
export function helpLink(key, what = "this view") {
  return h(
    "a",
    {
      class: "help-link",
      href: `/manual/${HELP[key]}`,
      target: "_blank",
      rel: "noopener",
      title: `What ${what} shows, in the manual`,
      "aria-label": `help: ${what}`,
    },
    "?",
  );
}
