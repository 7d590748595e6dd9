import assert from "node:assert/strict";
import { test } from "node:test";

import { shownColumns } from "../../frontend/js/columns.js";

test("a column choice overrides each column's default; a fixed column stays", () => {
  const columns = [
    { key: "name", label: "name" },
    { key: "seed", label: "seed", optional: true, hidden: true },
    { key: "algorithm", label: "algorithm", optional: true },
    { key: "created", label: "created", optional: true, hidden: true },
  ];
  const keys = (/** @type {Record<string, boolean>} */ choice) => shownColumns(columns, choice).map((c) => c.key);
  assert.deepEqual(keys({}), ["name", "algorithm"]);
  assert.deepEqual(keys({ seed: true, algorithm: false }), ["name", "seed"]);
  assert.deepEqual(keys({ name: false }), ["name", "algorithm"]);
});
