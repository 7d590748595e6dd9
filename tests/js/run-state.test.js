// The run page's address (its curves' x axis and log y axis) and the run facts it decides by.
import assert from "node:assert/strict";
import { test } from "node:test";

import { axesFor, curvesQuery, failedEarly, summaryRows, timed, xKeyFor } from "../../frontend/js/pages/run/state.js";

/** The x axes as `GET /api/meta` serves them. */
const X_AXES = [
  { key: "round", word: "round", title: "round", option: "x = round" },
  { key: "wall_s", word: "wall", title: "wall time (s)", option: "x = wall time" },
  { key: "sim_time_s", word: "sim", title: "simulated time (s)", option: "x = simulated time" },
];

/** @param {any} fields */
const run = (fields) => /** @type {any} */ ({ config: null, status: "running", roundsDone: 0, ...fields });

test("x=wall and x=sim are read, and the keys older addresses wrote", () => {
  const axes = axesFor(X_AXES, true);
  assert.equal(xKeyFor(axes, "wall"), "wall_s");
  assert.equal(xKeyFor(axes, "sim"), "sim_time_s");
  assert.equal(xKeyFor(axes, "wall_s"), "wall_s");
  assert.equal(xKeyFor(axes, "sim_time_s"), "sim_time_s");
  assert.equal(xKeyFor(axes, null), "round");
  assert.equal(xKeyFor(axes, "round"), "round");
  assert.equal(xKeyFor(axes, "hours"), "round");
});

test("the words are the server's: another word reads and writes as the server gives it", () => {
  const axes = X_AXES.map((a) => (a.key === "wall_s" ? { ...a, word: "clock" } : a));
  assert.equal(xKeyFor(axes, "clock"), "wall_s");
  assert.equal(xKeyFor(axes, "wall"), "round");
  assert.equal(xKeyFor(axes, "wall_s"), "wall_s");
  assert.deepEqual(curvesQuery(axes, "wall_s", false), { x: "clock", logy: "" });
});

test("a run without a clock has no simulated-time axis: x=sim reads as the round", () => {
  const axes = axesFor(X_AXES, false);
  assert.deepEqual(
    axes.map((a) => a.key),
    ["round", "wall_s"],
  );
  assert.equal(xKeyFor(axes, "sim"), "round");
});

test("the address writes the axis's word, none for the round, and logy=1", () => {
  assert.deepEqual(curvesQuery(X_AXES, "sim_time_s", true), { x: "sim", logy: "1" });
  assert.deepEqual(curvesQuery(X_AXES, "wall_s", false), { x: "wall", logy: "" });
  assert.deepEqual(curvesQuery(X_AXES, "round", false), { x: "", logy: "" });
});

test("a run keeps a clock with a system model or simulated time recorded", () => {
  assert.equal(timed(run({ config: { system: { kind: "none" } } }), new Set()), false);
  assert.equal(timed(run({ config: { system: { kind: "devices" } } }), new Set()), true);
  assert.equal(timed(run({}), new Set(["sim_time_s"])), true);
});

test("failed early: failed before its first round", () => {
  assert.equal(failedEarly(run({ status: "failed" })), true);
  assert.equal(failedEarly(run({ status: "failed", roundsDone: 3 })), false);
  assert.equal(failedEarly(run({ status: "succeeded" })), false);
});

test("summary rows: the catalogue's order, then unknown ones; only values that say something", () => {
  const catalogue = [
    { name: "final_acc", kind: "summary" },
    { name: "rounds_done", kind: "summary" },
    { name: "stopped", kind: "summary" },
    { name: "test_acc", kind: "round" },
  ];
  const summary = { custom: 2, stopped: false, rounds_done: 10, final_acc: 0.9, test_acc: 0.5, nan: NaN };
  assert.deepEqual(summaryRows(summary, catalogue, 10), [
    ["final_acc", 0.9],
    ["custom", 2],
  ]);
  assert.deepEqual(summaryRows({ rounds_done: 8 }, catalogue, 10), [["rounds_done", 8]]);
});
