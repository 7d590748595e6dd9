// The compare page's renamed groups in its URL (frontend/js/compare-view.js): the syntax
// of the API's `labels=`, read and written back.
import assert from "node:assert/strict";
import { test } from "node:test";

import { formatLabels, parseLabels } from "../../frontend/js/compare-view.js";

test("labels: GROUP:NAME pairs, a backslash escaping commas and colons", () => {
  assert.deepEqual(
    [...parseLabels("fedavg:FedAvg (ours),fedlaavg:FedLaAvg")],
    [
      ["fedavg", "FedAvg (ours)"],
      ["fedlaavg", "FedLaAvg"],
    ],
  );
  assert.deepEqual([...parseLabels("a=1\\, b=2:x\\, y\\: z")], [["a=1, b=2", "x, y: z"]]);
  assert.deepEqual([...parseLabels("k:name:with colon")], [["k", "name:with colon"]]);
  assert.deepEqual([...parseLabels("")], []);
  assert.deepEqual([...parseLabels("nothing,:x,y:")], []); // malformed pairs left out
});

test("labels written back read the same", () => {
  const labels = new Map([
    ["algorithm.name=fedavg, client.lr=0.1", "FedAvg, η = 0.1"],
    ["back\\slash", "a:b,c"],
  ]);
  assert.equal(
    formatLabels(labels),
    "algorithm.name=fedavg\\, client.lr=0.1:FedAvg\\, η = 0.1,back\\\\slash:a\\:b\\,c",
  );
  assert.deepEqual(parseLabels(formatLabels(labels)), labels);
});
