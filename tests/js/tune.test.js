// The tune page's pure parts: wire data to the page's, and its Plotly traces, by hand.
import assert from "node:assert/strict";
import { test } from "node:test";

import { toTune } from "../../frontend/js/pages/tune/data.js";
import { parseRoute } from "../../frontend/js/router.js";
import { historyTraces, importanceTraces, parcoordsTrace } from "../../frontend/js/pages/tune/traces.js";

/** @param {number} number @param {string} state @param {number|null} value @param {Record<string, number>} [intermediate] */
function trial(number, state, value, intermediate = {}) {
  return {
    method: "fedavg",
    number,
    state,
    value,
    params: { "client.lr": 0.1 * (number + 1) },
    run_id: 10 + number,
    intermediate,
    pruned_at_round: state === "pruned" ? 1 : null,
    error: null,
  };
}

const WIRE = {
  id: 3,
  name: "t",
  status: "tuning",
  experiment_id: null,
  spec: { objective: "final_val_loss", space: ["client.lr=log:0.001:1"] },
  direction: "minimize",
  protocol: "Each method tuned over 4 trials",
  flags: [],
  progress: [],
  trials: [
    trial(2, "pruned", null, { 1: 3.5, 0: 4 }),
    trial(0, "complete", 0.5),
    trial(1, "complete", 0.2),
    trial(3, "complete", 0.3),
  ],
  importances: {},
  parallel: {},
};

test("the wire tune in the page's names, round values in round order", () => {
  const tune = toTune(WIRE);
  assert.deepEqual(tune.keys, ["client.lr"]);
  assert.equal(tune.direction, "minimize");
  const pruned = tune.trials[0];
  assert.deepEqual(pruned.intermediate, [
    [0, 4],
    [1, 3.5],
  ]);
  assert.equal(pruned.runId, 12);
  assert.equal(pruned.prunedAtRound, 1);
});

test("history: completed values, the best so far (minimised) and pruned trials at their last value", () => {
  const [done, best, pruned] = historyTraces(toTune(WIRE).trials, "minimize");
  assert.deepEqual(done.x, [0, 1, 3]);
  assert.deepEqual(done.y, [0.5, 0.2, 0.3]);
  assert.deepEqual(best.y, [0.5, 0.2, 0.2]);
  assert.deepEqual(pruned.x, [2]);
  assert.deepEqual(pruned.y, [3.5]);
  assert.equal(pruned.marker.symbol, "x");
  assert.deepEqual(pruned.text, ["pruned at round 1"]);
  assert.deepEqual(historyTraces(toTune(WIRE).trials, "maximize")[1].y, [0.5, 0.5, 0.5]);
});

test("importances: a bar trace a method", () => {
  const [bars] = importanceTraces({ fedavg: { "client.lr": 0.75, "client.local_steps": 0.25 } });
  assert.equal(bars.name, "fedavg");
  assert.deepEqual(bars.y, ["client.lr", "client.local_steps"]);
  assert.deepEqual(bars.x, [0.75, 0.25]);
});

test("parallel coordinates: numbers as they are, choices as indices with their labels", () => {
  const trace = parcoordsTrace([
    { label: "client.lr", values: [0.1, 0.5] },
    { label: "algorithm.fedavg.momentum", values: ["a", "b"] },
    { label: "final_val_acc", values: [0.7, 0.9] },
  ]);
  assert.deepEqual(trace.line.color, [0.7, 0.9]);
  assert.deepEqual(trace.dimensions[0], { label: "client.lr", values: [0.1, 0.5] });
  assert.deepEqual(trace.dimensions[1], {
    label: "algorithm.fedavg.momentum",
    values: [0, 1],
    tickvals: [0, 1],
    ticktext: ["a", "b"],
  });
});

test("#/tunes/<id> is a tune's page; a tune id that is no number is the runs page", () => {
  assert.deepEqual([parseRoute("#/tunes/4").page, parseRoute("#/tunes/4").id], ["tune", 4]);
  assert.equal(parseRoute("#/tunes/x").page, "runs");
});
