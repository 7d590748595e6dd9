// The compare page's controls (metric, grouping, x axis, band, smoothing, lines, log y, the
// y range, α, the figure's width), each set from the page's state; the options the server
// serves (`GET /api/meta`) are read, not spelled.
import { h } from "../../dom.js";

/** @typedef {ReturnType<typeof controls>} Controls */

/**
 * A select named `name` holding `options` ([value, text]), set to `value`.
 * @param {string} name @param {string[][]} options @param {string} value
 */
export function selectOf(name, options, value) {
  const el = /** @type {HTMLSelectElement} */ (
    h(
      "select",
      { name, "aria-label": name },
      options.map(([v, t]) => h("option", { value: v }, t)),
    )
  );
  el.value = value;
  return el;
}

/** @param {string} name @param {string} label @param {string} value */
function numberInput(name, label, value) {
  return /** @type {HTMLInputElement} */ (
    h("input", {
      type: "number",
      name,
      step: "any",
      placeholder: "auto",
      value,
      "aria-label": label,
      class: "axis-bound",
    })
  );
}

/** @param {string} name @param {boolean} checked */
function checkbox(name, checked) {
  return /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", name, checked }));
}

/**
 * @param {import("./state.js").CompareState} state
 * @param {import("./state.js").CompareFacts} facts
 */
export function controls(state, facts) {
  const smooth = /** @type {HTMLInputElement} */ (
    h("input", {
      type: "range",
      name: "smooth",
      min: "0",
      max: "0.99",
      step: "0.01",
      value: String(state.smooth),
      "aria-label": "smoothing",
    })
  );
  return {
    metric: /** @type {HTMLSelectElement} */ (h("select", { name: "metric", "aria-label": "metric" })),
    groupBy: selectOf(
      "group_by",
      facts.groupBy.map((c) => [c.name, c.label]),
      state.groupBy,
    ),
    xAxis: selectOf(
      "x",
      facts.xAxes.map((a) => [a.key, a.option]),
      state.x,
    ),
    band: selectOf(
      "band",
      facts.bands.map((c) => [c.name, c.label]),
      state.band,
    ),
    alpha: /** @type {HTMLInputElement} */ (
      h("input", {
        type: "number",
        name: "alpha",
        min: "0.001",
        max: "0.5",
        step: "0.01",
        value: String(state.alpha),
        "aria-label": "significance level α",
        class: "axis-bound",
      })
    ),
    width: selectOf(
      "width",
      [
        ["column", "column (3.5 in)"],
        ["full", "full width (7 in)"],
      ],
      state.width,
    ),
    smooth,
    smoothValue: h("output", {}, state.smooth.toFixed(2)),
    showRuns: checkbox("lines", Boolean(state.showRuns)),
    logY: checkbox("logy", Boolean(state.logY)),
    yMin: numberInput("ymin", "y min", state.yMin),
    yMax: numberInput("ymax", "y max", state.yMax),
  };
}

/**
 * The filters' bar.
 * @param {Controls} c
 */
export function filters(c) {
  return h(
    "div",
    { class: "filters" },
    c.metric,
    c.groupBy,
    c.xAxis,
    c.band,
    h("label", { class: "inline" }, "smoothing ", c.smooth, c.smoothValue),
    h("label", { class: "check" }, c.showRuns, "individual runs"),
    h("label", { class: "check" }, c.logY, "log y"),
    h("label", { class: "inline" }, "y from", c.yMin, "to", c.yMax),
  );
}
