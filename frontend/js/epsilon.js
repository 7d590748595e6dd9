// A run's per-client privacy loss (GET /api/runs/{id}/privacy/clients): its clients by ε
// in bins, and the three figures marked on them: what a paper would report (Poisson at
// K/N), the worst client's and the median client's.
import { PALETTE, plotText } from "./traces.js";

/** @typedef {import("./api.js").PrivacyClients} PrivacyClients */

/**
 * The bars: clients in each bin, at its middle and as wide as it; where every client has
 * the same ε (one bin of zero width) one bar at that ε.
 * @param {import("./api.js").EpsilonHistogram} hist
 */
export function epsilonBars(hist) {
  const x = hist.counts.map((_, i) => (hist.edges[i] + hist.edges[i + 1]) / 2);
  const width = hist.counts.map((_, i) => hist.edges[i + 1] - hist.edges[i]);
  const text = hist.counts.map((_, i) => `ε ${hist.edges[i].toPrecision(3)}–${hist.edges[i + 1].toPrecision(3)}`);
  return {
    type: "bar",
    x,
    y: hist.counts,
    ...(width.some((w) => w > 0) ? { width } : {}),
    text,
    textposition: "none",
    name: "clients",
    marker: { color: PALETTE[4], line: { color: "#fff", width: 1 } },
    hovertemplate: "%{text}: %{y} clients<extra></extra>",
  };
}

/**
 * The figures to mark, those the run has: each a label, its value and its colour.
 * @param {PrivacyClients} p
 * @returns {{label: string, value: number, color: string}[]}
 */
export function epsilonMarks(p) {
  const marks = [
    { label: "assumed (Poisson at K/N)", value: p.epsilonAssumed, color: PALETTE[7] },
    { label: "median client", value: p.epsilonClientMedian, color: PALETTE[0] },
    { label: "worst client", value: p.epsilonClientMax, color: PALETTE[3] },
  ];
  return /** @type {{label: string, value: number, color: string}[]} */ (
    marks.filter((m) => typeof m.value === "number" && Number.isFinite(m.value))
  );
}

/**
 * The marks as the layout's vertical lines across the plot, each labelled at its top.
 * @param {PrivacyClients} p
 */
export function epsilonShapes(p) {
  const marks = epsilonMarks(p);
  return {
    shapes: marks.map((m) => ({
      type: "line",
      xref: "x",
      yref: "paper",
      x0: m.value,
      x1: m.value,
      y0: 0,
      y1: 1,
      line: { color: m.color, dash: "dash", width: 1.5 },
    })),
    annotations: marks.map((m, i) => ({
      x: m.value,
      xref: "x",
      yref: "paper",
      y: 1 - 0.09 * i,
      yanchor: "top",
      xanchor: "left",
      showarrow: false,
      text: plotText(`${m.label}: ${m.value.toPrecision(3)}`),
      font: { size: 11, color: m.color },
    })),
  };
}
