// The compare page's privacy trade-off: one point per group, a summary value against
// another (choosers among those two groups record), the assumed ε beside each point;
// shown where at least two groups record an ε value (the comparison's `tradeoff`).
import { h, replace } from "../../dom.js";
import { helpLink } from "../../help.js";
import { label } from "../../format.js";
import { purge, react } from "../../plot.js";
import { tradeAxes } from "./state.js";
import { tradeoffLayout, tradeoffTraces } from "./tradeoff.js";

/**
 * The trade-off's section, hidden until a comparison has one.
 * @param {(axis: "x"|"y", value: string) => void} onAxis a value chosen for an axis
 */
export function tradeoffView(onAxis) {
  const select = (/** @type {"x"|"y"} */ axis) => {
    const el = /** @type {HTMLSelectElement} */ (
      h("select", { name: `trade-${axis}`, "aria-label": `trade-off chart's ${axis} value` })
    );
    el.addEventListener("change", () => onAxis(axis, el.value));
    return el;
  };
  const x = select("x");
  const y = select("y");
  const chart = h("div", { class: "plot", dataset: { plot: "tradeoff" } });
  const section = h(
    "section",
    { class: "tradeoff-view", hidden: true },
    h("h2", {}, "Privacy trade-off ", helpLink("tradeoff", "the privacy trade-off")),
    h("div", { class: "toolbar" }, h("label", { class: "inline" }, "x ", x), h("label", { class: "inline" }, "y ", y)),
    h("div", { class: "plot-card wide" }, chart),
  );
  return { section, x, y, chart };
}

/** @typedef {ReturnType<typeof tradeoffView>} TradeoffView */

/**
 * Draw the trade-off of `c` on the axes the state chooses (the server's defaults else);
 * hide the section where `c` has none.
 * @param {TradeoffView} view @param {import("../../api.js").Comparison} c
 * @param {import("./state.js").CompareState} state @param {number[]} ids the compared runs
 */
export function drawTradeoff(view, c, state, ids) {
  view.section.hidden = !c.tradeoff;
  if (!c.tradeoff) {
    purge(view.chart);
    return;
  }
  const axes = tradeAxes(state, c.tradeoff);
  for (const [select, value] of /** @type {const} */ ([
    [view.x, axes.x],
    [view.y, axes.y],
  ])) {
    replace(
      select,
      c.tradeoff.values.map((v) => h("option", { value: v }, label(v))),
    );
    select.value = value;
  }
  react(view.chart, tradeoffTraces(c, axes, label), tradeoffLayout(axes, label, ids.join()));
}
