// Plotly traces of a tune, from its data alone (pure: node --test checks them).

/** @typedef {import("./data.js").Trial} Trial @typedef {import("./data.js").Axis} Axis */

/** How each trial state is drawn in the history. */
export const MARKERS = {
  complete: { symbol: "circle", size: 8 },
  pruned: { symbol: "x", size: 9 },
  failed: { symbol: "triangle-down", size: 8 },
};

/**
 * The optimisation history of one method: its completed trials' values by trial number,
 * the best so far as a step line, and its pruned trials at their last reported value
 * (marked ×, so a stopped trial shows where it stood).
 * @param {Trial[]} trials one method's, any order
 * @param {"maximize"|"minimize"} direction
 */
export function historyTraces(trials, direction) {
  const ordered = [...trials].sort((a, b) => a.number - b.number);
  const done = ordered.filter((t) => t.state === "complete" && t.value !== null);
  const better = direction === "maximize" ? Math.max : Math.min;
  /** @type {number[]} */
  const best = [];
  for (const t of done)
    best.push(
      best.length ? better(best[best.length - 1], /** @type {number} */ (t.value)) : /** @type {number} */ (t.value),
    );
  const pruned = ordered.filter((t) => t.state === "pruned" && t.intermediate.length);
  return [
    {
      type: "scatter",
      mode: "markers",
      name: "completed",
      x: done.map((t) => t.number),
      y: done.map((t) => t.value),
      marker: MARKERS.complete,
    },
    {
      type: "scatter",
      mode: "lines",
      name: "best so far",
      x: done.map((t) => t.number),
      y: best,
      line: { shape: "hv" },
    },
    {
      type: "scatter",
      mode: "markers",
      name: "pruned",
      x: pruned.map((t) => t.number),
      y: pruned.map((t) => t.intermediate[t.intermediate.length - 1][1]),
      text: pruned.map((t) => `pruned at round ${t.prunedAtRound}`),
      marker: MARKERS.pruned,
    },
  ];
}

/**
 * Each method's importances as one horizontal bar trace.
 * @param {Record<string, Record<string, number>>} importances method → key → importance
 */
export function importanceTraces(importances) {
  return Object.entries(importances).map(([method, byKey]) => ({
    type: "bar",
    orientation: "h",
    name: method,
    y: Object.keys(byKey),
    x: Object.values(byKey),
  }));
}

/**
 * A parallel-coordinates trace of one method's completed trials, lines coloured by the
 * objective (the last axis); choices become indices with their values as tick labels.
 * @param {Axis[]} axes
 */
export function parcoordsTrace(axes) {
  const objective = axes[axes.length - 1];
  return {
    type: "parcoords",
    line: { color: objective.values, colorscale: "Viridis", showscale: true },
    dimensions: axes.map((a) => {
      if (a.values.every((v) => typeof v === "number")) return { label: a.label, values: a.values };
      const choices = [...new Set(a.values.map(String))];
      return {
        label: a.label,
        values: a.values.map((v) => choices.indexOf(String(v))),
        tickvals: choices.map((_, i) => i),
        ticktext: choices,
      };
    }),
  };
}
