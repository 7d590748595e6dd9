// The new-run form's address: what it asks the form to show, and what the form writes back.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  assigned,
  edits,
  readAddress,
  snapshot,
  DEFAULT_TUNE,
  sweepFromAddress,
  tuneFromAddress,
  writeAddress,
} from "../../frontend/js/pages/new-run/state.js";

test("an address with a preset, its variant, edits and a sweep", () => {
  const sweep = { name: "s", grid: { "client.lr": [0.1, 0.05] }, cells: [], seeds: [1, 2] };
  const query = new URLSearchParams({
    preset: "example1",
    variant: "iid",
    mode: "sweep",
    sweep: JSON.stringify(sweep),
  });
  query.append("set", "client.lr=0.05");
  query.append("set", "name=my run");
  assert.deepEqual(readAddress(query), {
    mode: "sweep",
    preset: "example1",
    variant: "iid",
    from: null,
    sets: ["client.lr=0.05", "name=my run"],
    sweep,
    tune: null,
  });
});

test("from= is a run only as a positive integer; an unknown mode is a single run", () => {
  assert.equal(readAddress(new URLSearchParams("from=12")).from, 12);
  assert.equal(readAddress(new URLSearchParams("from=-3")).from, null);
  assert.equal(readAddress(new URLSearchParams("from=1.5")).from, null);
  assert.equal(readAddress(new URLSearchParams("mode=grid")).mode, "single");
});

test("a sweep that does not read as one is none; its wrong parts are dropped", () => {
  assert.equal(sweepFromAddress("{"), null);
  assert.equal(sweepFromAddress(null), null);
  const text = JSON.stringify({
    name: 3,
    grid: { a: [1], b: 2 },
    cells: [{ label: "x", set: {} }, { label: 1 }],
    seeds: [1, "2", 3.5],
  });
  assert.deepEqual(sweepFromAddress(text), {
    name: "",
    grid: { a: [1] },
    cells: [{ label: "x", set: {} }],
    seeds: [1],
  });
});

test("the address written: the variant only with a preset, the sweep only in sweep mode", () => {
  const shown = { preset: null, variant: "iid", from: 4, mode: "single", sweep: '{"name":"s"}', edits: ["seed=3"] };
  assert.equal(writeAddress(shown).toString(), "from=4&set=seed%3D3");
  const sweep = { ...shown, preset: "p", from: null, mode: "sweep" };
  assert.equal(
    writeAddress(sweep).toString(),
    "preset=p&variant=iid&mode=sweep&sweep=%7B%22name%22%3A%22s%22%7D&set=seed%3D3",
  );
});

test("the edits are the fields that differ from the form as filled, texts as they are", () => {
  const filled = snapshot({ name: "a", client: { lr: 0.1, epochs: 1 } });
  const now = snapshot({ name: "my run", client: { lr: 0.05, epochs: 1 }, seed: 3 });
  assert.deepEqual(edits(filled, now), ["name=my run", "client.lr=0.05", "seed=3"]);
  assert.equal(assigned("5"), '"5"');
  assert.equal(assigned("true"), '"true"');
  assert.equal(assigned("my run"), "my run");
  assert.equal(assigned(null), "null");
});

test("a tune in the address: read back as written, its gaps the defaults", () => {
  const tune = {
    methods: ["cafed", "unbiased"],
    space: [
      ["client.lr", ["log:1e-3:1"]],
      ["algorithm.name", ["fedavg", "mifa"]],
    ],
    trials: 2,
    seeds: 1,
    sampler: "random",
    pruner: "none",
    objective: "final_val_loss",
  };
  const q = writeAddress({
    preset: "cafed-synthetic",
    variant: null,
    from: null,
    mode: "tune",
    sweep: null,
    tune: JSON.stringify(tune),
    edits: ["rounds=3"],
  });
  assert.equal(q.get("mode"), "tune");
  const read = readAddress(q);
  assert.equal(read.mode, "tune");
  assert.deepEqual(read.tune, tune);
  assert.deepEqual(read.sets, ["rounds=3"]);
  // a hand-edited one: what is missing or garbled is the default, a bad row dropped
  assert.deepEqual(tuneFromAddress('{"trials": 4, "seeds": "x", "space": [["client.lr"], ["rounds", ["int:1:5"]]]}'), {
    ...DEFAULT_TUNE,
    trials: 4,
    space: [["rounds", ["int:1:5"]]],
  });
  assert.equal(tuneFromAddress("{not json"), null);
  assert.equal(tuneFromAddress(null), null);
});

test("the tune is in the address only in tune mode", () => {
  const shown = { preset: "p", variant: null, from: null, sweep: null, tune: "{}", edits: [] };
  assert.equal(writeAddress({ ...shown, mode: "sweep" }).get("tune"), null);
  assert.equal(writeAddress({ ...shown, mode: "tune" }).get("tune"), "{}");
});
