// The partition view's pure trace builders (frontend/js/partition.js) and the wire
// format's mapping (api.js), with hand-computed values; what Plotly draws of them is
// tested in Chromium (tests/frontend/test_partition_view.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { toPartition } from "../../frontend/js/api.js";
import { classTraces, partitionTitle, sizeTraces } from "../../frontend/js/partition.js";

/** Three users' natural split: train rows 2, 2, 1 over classes 0–2 (tests/engine/test_partitions.py). */
const WIRE = {
  n_clients: 3,
  n_classes: 3,
  clients: [0, 1, 2],
  sizes: [2, 2, 1],
  test_sizes: [2, 0, 1],
  counts: [
    [0, 2, 0],
    [2, 0, 0],
    [0, 0, 1],
  ],
  total: 5,
  smallest: 1,
  largest: 2,
  sampled: false,
};

test("the wire format maps to the view's fields", () => {
  const p = toPartition(WIRE);
  assert.deepEqual([p.nClients, p.nClasses, p.testSizes, p.sampled], [3, 3, [2, 0, 1], false]);
});

test("a bar a client, its test samples in the hover", () => {
  const [bars] = sizeTraces(toPartition(WIRE));
  assert.deepEqual(
    [bars.x, bars.y, bars.customdata],
    [
      [0, 1, 2],
      [2, 2, 1],
      [2, 0, 1],
    ],
  );
});

test("the heatmap has a row a client shown and a column a class", () => {
  const [map] = classTraces(toPartition(WIRE));
  assert.deepEqual(
    [map.x, map.y, map.z[1]],
    [
      [0, 1, 2],
      [0, 1, 2],
      [2, 0, 0],
    ],
  );
});

test("a regression dataset has no heatmap", () => {
  const p = toPartition({ ...WIRE, n_classes: 0, counts: [[], [], []] });
  assert.deepEqual(classTraces(p), []);
});

test("the title gives the totals, and says when clients are a sample", () => {
  assert.equal(partitionTitle(toPartition(WIRE)), "5 train samples over 3 clients: 1–2 a client");
  const sampled = toPartition({ ...WIRE, n_clients: 3000, clients: [0, 1500, 2999], sampled: true });
  assert.equal(
    partitionTitle(sampled),
    "5 train samples over 3,000 clients: 1–2 a client, 3 of 3,000 clients shown (evenly spaced)",
  );
});
