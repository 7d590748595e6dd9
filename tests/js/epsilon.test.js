import { test } from "node:test";
import assert from "node:assert/strict";
import { epsilonBars, epsilonMarks, epsilonShapes } from "../../frontend/js/epsilon.js";

/** @param {Partial<import("../../frontend/js/api.js").PrivacyClients>} over */
function figures(over = {}) {
  return {
    round: 9,
    delta: 1e-5,
    amplified: false,
    amplification: "",
    epsilonAssumed: 1.5,
    epsilonClientMax: 4,
    epsilonClientMedian: 2,
    histogram: null,
    noHistogram: null,
    ...over,
  };
}

test("bars sit at the bins' middles, as wide as the bins", () => {
  const bars = epsilonBars({ edges: [0, 1, 3], counts: [2, 5], exact: true });
  assert.deepEqual(bars.x, [0.5, 2]);
  assert.deepEqual(bars.y, [2, 5]);
  assert.deepEqual(bars.width, [1, 2]);
});

test("one ε for every client is one bar at it, of Plotly's own width", () => {
  const bars = epsilonBars({ edges: [2.5, 2.5], counts: [7], exact: true });
  assert.deepEqual(bars.x, [2.5]);
  assert.equal("width" in bars, false);
});

test("the marks are the figures the run has, in order", () => {
  assert.deepEqual(
    epsilonMarks(figures()).map((m) => [m.label, m.value]),
    [
      ["assumed (Poisson at K/N)", 1.5],
      ["median client", 2],
      ["worst client", 4],
    ],
  );
  const logged = figures({ epsilonClientMedian: null, epsilonAssumed: Number.NaN });
  assert.deepEqual(
    epsilonMarks(logged).map((m) => m.value),
    [4],
  );
});

test("each mark is a vertical line across the plot, labelled", () => {
  const { shapes, annotations } = epsilonShapes(figures());
  assert.deepEqual(
    shapes.map((s) => [s.x0, s.x1, s.y0, s.y1]),
    [
      [1.5, 1.5, 0, 1],
      [2, 2, 0, 1],
      [4, 4, 0, 1],
    ],
  );
  assert.equal(annotations[2].text, "worst client: 4.00");
});
