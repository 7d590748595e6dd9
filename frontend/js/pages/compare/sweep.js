// The compare page's sweep: the compared experiments' runs in parallel coordinates, an axis
// per swept field, then the chosen summary value (the catalogue's compared ones); shown
// while an experiment that sweeps something is compared.
import { specOf } from "../../catalog.js";
import { parcoordsTrace, sweptFields } from "../../compare-view.js";
import { empty, h, replace } from "../../dom.js";
import { label } from "../../format.js";
import { purge, react } from "../../plot.js";
import { plotText } from "../../traces.js";

/**
 * The sweep's section, hidden until it has something to show.
 * @param {(value: string) => void} onValue the summary value chosen
 */
export function sweepView(onValue) {
  const value = /** @type {HTMLSelectElement} */ (
    h("select", { name: "pc", "aria-label": "summary value of the parallel coordinates" })
  );
  value.addEventListener("change", () => onValue(value.value));
  const chart = h("div", { class: "plot", dataset: { plot: "parcoords" } });
  const box = h("div", { class: "plot-card wide" });
  const section = h(
    "section",
    { class: "sweep-view", hidden: true },
    h("h2", {}, "Swept fields"),
    h("div", { class: "toolbar" }, h("label", { class: "inline" }, "one line per run, coloured by ", value)),
    box,
  );
  return { section, value, chart, box };
}

/** @typedef {ReturnType<typeof sweepView>} SweepView */
/** @typedef {{experiments: import("../../api.js").Experiment[], runs: import("../../api.js").Run[]}} Sweep the compared experiments and their runs */

/**
 * The summary values a line can be coloured by: the catalogue's compared ones some run
 * has, and the address's choice, which holds its place while no run has it yet.
 * @param {Sweep} sweep @param {import("../../api.js").MetricSpec[]} catalogue @param {string} chosen
 */
function valueOptions(sweep, catalogue, chosen) {
  const has = (/** @type {string} */ k) => sweep.runs.some((r) => typeof r.summary?.[k] === "number");
  const options = catalogue.filter((s) => s.kind === "summary" && s.compare && has(s.name)).map((s) => s.name);
  if (chosen && !options.includes(chosen)) options.unshift(chosen);
  return options;
}

/** Set the select's options to `options` unless it holds them already. @param {HTMLSelectElement} select @param {string[]} options */
function setOptions(select, options) {
  if (select.options.length === options.length && [...select.options].every((o, i) => o.value === options[i])) return;
  replace(
    select,
    options.map((k) => h("option", { value: k }, label(k))),
  );
}

/**
 * Draw the sweep, or hide its section when no compared experiment sweeps a field.
 * @param {SweepView} view @param {Sweep} sweep @param {import("../../api.js").MetricSpec[]} catalogue
 * @param {string} chosen the summary value of the address ("": a ranked one, else the first)
 */
export function drawSweep(view, sweep, catalogue, chosen) {
  const fields = sweptFields(sweep.experiments);
  view.section.hidden = !fields.length || !sweep.runs.length;
  if (view.section.hidden) {
    purge(view.chart);
    return;
  }
  const options = valueOptions(sweep, catalogue, chosen);
  const value = chosen || options.find((k) => specOf(k)?.rank) || options[0] || "";
  setOptions(view.value, options);
  view.value.value = value;
  const trace = parcoordsTrace(fields, sweep.runs, value, {
    label: label(value),
    better: specOf(value)?.better ?? null,
  });
  const lines = trace.meta.runs.length;
  if (!lines) {
    purge(view.chart);
    replace(
      view.box,
      empty(`No run has ${label(value) || "a summary value"} yet.`, "Lines appear as the sweep's runs finish."),
    );
    return;
  }
  if (view.chart.parentElement !== view.box) replace(view.box, view.chart);
  const missing = sweep.runs.length - lines;
  const title = `${fields.length} swept field${fields.length === 1 ? "" : "s"} against ${label(value)}${missing ? ` (${missing} of ${sweep.runs.length} runs have no value yet)` : ""}`;
  const layout = {
    title: { text: plotText(title), font: { size: 14 }, x: 0.01, xanchor: "left" },
    height: 380,
    margin: { l: 70, r: 70, t: 90, b: 30 },
    paper_bgcolor: "rgba(0,0,0,0)",
    uirevision: trace.uirevision,
  };
  react(view.chart, [trace], layout);
}
