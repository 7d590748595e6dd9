// The privacy trade-off's traces (frontend/js/pages/compare/tradeoff.js): each group's
// point at the server's means with its CIs as error bars, the assumed ε beside it.
import assert from "node:assert/strict";
import { test } from "node:test";

import { errorBar, tradeoffLayout, tradeoffTraces } from "../../frontend/js/pages/compare/tradeoff.js";

/** A table statistic as the API sends it. @param {number|null} mean @param {number|null} [lo] @param {number|null} [hi] */
const stat = (mean, lo = null, hi = null) => ({
  mean,
  std: null,
  n: lo === null ? 1 : 2,
  ciLow: lo,
  ciHigh: hi,
  interval: null,
  identical: false,
  text: mean === null ? null : String(mean),
  ciText: lo === null ? null : `[${lo}, ${hi}]`,
  ciNote: null,
});

const X = "final_epsilon_client_max";
const Y = "final_test_acc";
const ASSUMED = "final_epsilon_assumed";

/** Two groups: σ = 1 with CIs (n = 2), σ = 2 alone; a third without the y value. */
function comparison() {
  const row = (/** @type {string} */ group, /** @type {Record<string, any>} */ stats) => ({
    group,
    label: group.toUpperCase(),
    n: 2,
    seeds: [0, 1],
    stats,
    config: {},
    configOnly: {},
  });
  return /** @type {any} */ ({
    table: [
      row("s1", { [X]: stat(4, 3, 6), [Y]: stat(0.8, 0.75, 0.86), [ASSUMED]: stat(1, 0.5, 1.5) }),
      row("s2", { [X]: stat(2), [Y]: stat(0.7), [ASSUMED]: stat(0.5) }),
      row("s3", { [X]: stat(1), [Y]: stat(null) }),
    ],
    tradeoff: { values: [Y, ASSUMED, X], epsilon: [ASSUMED, X], x: X, y: Y, assumed: ASSUMED },
  });
}

const label = (/** @type {string} */ name) => `label of ${name}`;

test("an error bar: the CI's distances from the mean; none without a CI", () => {
  const bar = errorBar(stat(4, 3, 6));
  assert.deepEqual([bar.array, bar.arrayminus, bar.visible], [[2], [1], true]);
  assert.deepEqual(errorBar(stat(4)), { visible: false });
});

test("a point per group with both values, at the means, labelled, with CIs both ways", () => {
  const traces = tradeoffTraces(comparison(), { x: X, y: Y }, label);
  const points = traces.filter((t) => t.meta.kind === "point");
  assert.deepEqual(
    points.map((t) => [t.meta.group, t.x, t.y, t.text]),
    [
      ["s1", [4], [0.8], ["S1"]],
      ["s2", [2], [0.7], ["S2"]],
    ],
  );
  assert.deepEqual([points[0].error_x.array, points[0].error_x.arrayminus], [[2], [1]]);
  assert.equal(points[0].error_y.array[0].toFixed(2), "0.06");
  assert.equal(points[0].error_y.arrayminus[0].toFixed(2), "0.05");
  assert.equal(points[1].error_x.visible, false); // n = 1: no interval
});

test("the assumed ε at each point's y, and the gap to the point", () => {
  const traces = tradeoffTraces(comparison(), { x: X, y: Y }, label);
  const assumed = traces.find((t) => t.meta.kind === "assumed");
  const gap = traces.find((t) => t.meta.kind === "gap");
  assert.deepEqual([assumed?.x, assumed?.y, assumed?.name], [[1, 0.5], [0.8, 0.7], `label of ${ASSUMED}`]);
  assert.deepEqual(
    [assumed?.error_x.array, assumed?.error_x.arrayminus],
    [
      [0.5, 0],
      [0.5, 0],
    ],
  );
  assert.deepEqual(gap?.x, [1, 4, null, 0.5, 2, null]);
  assert.deepEqual(gap?.y, [0.8, 0.8, null, 0.7, 0.7, null]);
});

test("no assumed ε where x is it, or is no ε", () => {
  for (const x of [ASSUMED, "best_test_acc"]) {
    const kinds = tradeoffTraces(comparison(), { x, y: Y }, label).map((t) => t.meta.kind);
    assert.ok(!kinds.includes("assumed"), x);
  }
});

test("the axes are titled by the catalogue's labels", () => {
  const layout = tradeoffLayout({ x: X, y: Y }, label, "1,2");
  assert.equal(layout.xaxis.title.text, `label of ${X}`);
  assert.equal(layout.yaxis.title.text, `label of ${Y}`);
});
