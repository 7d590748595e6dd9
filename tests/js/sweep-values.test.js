// A sweep's values and the placing of the server's errors about it
// (frontend/js/sweep/values.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  rangeProblem,
  rowRange,
  rangeSpec,
  cellError,
  cellText,
  methodCells,
  parseValues,
  placeErrors,
  sweepSize,
} from "../../frontend/js/sweep/values.js";

test("values typed: numbers of a numeric field, unparsable items kept as text", () => {
  assert.deepEqual(parseValues("0.1, x, 2", "number"), [0.1, "x", 2]);
  assert.deepEqual(parseValues(" 1,, 2 ,", "int"), [1, 2]);
  assert.deepEqual(parseValues("a, b", "enum"), ["a", "b"]);
  assert.deepEqual(parseValues("", "int"), []);
});

test("a sweep's size: cells (none: one) × grid combinations × seeds", () => {
  assert.equal(sweepSize({ "algorithm.name": ["a", "b"], lr: [1, 2, 3] }, [0, 1]), 12);
  assert.equal(sweepSize({}, [0, 1, 2]), 3);
  assert.equal(sweepSize({ lr: [] }, [0]), 0);
});

test("a preset's methods as cells, and their text", () => {
  const cells = methodCells([
    { algorithm: "cafed", label: "", set: { "client.lr": 0.01, "server.lr": 0.3 } },
    { algorithm: "f3ast", label: "", set: {} },
  ]);
  assert.deepEqual(cells, [
    { label: "cafed", set: { "algorithm.name": "cafed", "client.lr": 0.01, "server.lr": 0.3 } },
    { label: "f3ast", set: { "algorithm.name": "f3ast" } },
  ]);
  assert.deepEqual(cells.map(cellText), ["cafed — client.lr = 0.01, server.lr = 0.3", "f3ast"]);
  assert.equal(sweepSize({}, [0, 1, 2], cells), 6);
  assert.equal(sweepSize({ lr: [1, 2] }, [0], cells), 4);
  assert.equal(sweepSize({ lr: [1, 2] }, [0], []), 2);
  assert.equal(
    cellText({ label: "ours", set: { "algorithm.name": "fedavg", k: "x" } }),
    "ours — algorithm.name = fedavg, k = x",
  );
});

test("a cell's error without the run's label and seed", () => {
  assert.equal(
    cellError("client.lr", "cafed, seed=3: Input should be greater than 0"),
    "client.lr: Input should be greater than 0",
  );
  assert.equal(cellError("", "seed=0: unknown algorithm"), "unknown algorithm");
});

test("errors placed: the seeds, a swept field's row, a cell's row, the rest", () => {
  const cells = [{ label: "cafed", set: { "algorithm.name": "cafed" } }];
  const placed = placeErrors(
    [
      { path: "seeds.1", message: "Input should be less than or equal to 2147483647" },
      { path: "grid.client.lr", message: "client.lr=0, seed=0: Input should be greater than 0" },
      { path: "grid.client.lr", message: "client.lr=0, seed=1: Input should be greater than 0" },
      { path: "cells.0.set.server.lr", message: "cafed, seed=0: Input should be greater than 0" },
      { path: "cells.0.label", message: "Field required" },
      { path: "cells.3.set.k", message: "no such cell" },
      { path: "grid.rounds", message: "not swept here" },
      { path: "name", message: "too long" },
    ],
    [
      ["algorithm.name", ["cafed"]],
      ["client.lr", [0, 0.1]],
    ],
    cells,
  );
  assert.equal(placed.seeds, "must be at most 2147483647");
  // Said once, not per seed; by its cell, since 1 of the seed's 2 runs (1 cell × 2 values) has it.
  assert.deepEqual([...placed.rows], [[1, "client.lr=0: must be greater than 0"]]);
  assert.deepEqual([...placed.cells], [[0, ["server.lr: must be greater than 0", "label: required"]]]);
  assert.deepEqual(
    placed.rest.map((e) => e.path),
    ["cells.3.set.k", "grid.rounds", "name"],
  );
});

test("no errors: nothing placed", () => {
  const placed = placeErrors([], [], []);
  assert.equal(placed.seeds, null);
  assert.equal(placed.rows.size + placed.cells.size + placed.rest.length, 0);
});

test("a swept field's error every run of a seed has: said without its cell", () => {
  const placed = placeErrors(
    [
      { path: "grid.client.lr", message: "client.lr=-1, seed=0: Input should be greater than 0" },
      { path: "grid.client.lr", message: "client.lr=-2, seed=0: Input should be greater than 0" },
    ],
    [["client.lr", [-1, -2]]],
    [],
  );
  assert.deepEqual([...placed.rows], [[0, "must be greater than 0"]]);
});

test("a searched key's range as POST /api/tunes takes it", () => {
  assert.equal(rangeSpec("log:1e-3:1"), "log:1e-3:1");
  assert.equal(rangeSpec(" int:1:5 "), "int:1:5");
  assert.equal(rangeSpec("0:0.9"), "linear:0:0.9");
  assert.equal(rangeSpec("choice:0,0.9"), "choice:0,0.9");
  assert.equal(rangeSpec("fedavg, mifa"), "choice:fedavg,mifa");
  assert.equal(rangeSpec("0.5"), "choice:0.5");
  assert.equal(rangeSpec("  "), null);
});

test("a typed range's form is checked; its order is the server's to refuse", () => {
  assert.equal(rangeProblem("log:1e-3:1"), null);
  assert.equal(rangeProblem("log:1:0.001"), null); // inverted: the server names it
  assert.equal(rangeProblem("log:x:1"), '"x" is not a number');
  assert.equal(rangeProblem("int:1"), "expected int:LOW:HIGH");
  assert.equal(rangeProblem("log::1"), '"" is not a number');
  assert.equal(rangeProblem("choice:"), "name at least one value");
  assert.match(rangeProblem("") ?? "", /^type a range/);
});

test("a searched key's row as the range posted", () => {
  assert.equal(rowRange(["log:1e-3:1"]), "log:1e-3:1");
  assert.equal(rowRange(["fedavg", "mifa"]), "choice:fedavg,mifa");
  assert.equal(rowRange([true, false]), "choice:true,false");
});
