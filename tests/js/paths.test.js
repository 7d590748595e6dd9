// Dotted key=value assignments, by the table the server's tests read too
// (tests/cases/dotted_paths.json, tests/engine/test_overrides.py).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { applyAssignments, getPath, leaves } from "../../frontend/js/paths.js";

const table = JSON.parse(readFileSync(new URL("../cases/dotted_paths.json", import.meta.url), "utf8"));

for (const c of table.cases) {
  test(`assignments: ${c.name}`, () => {
    const config = structuredClone(c.config);
    if ("error" in c) {
      assert.throws(() => applyAssignments(config, c.assignments), { message: c.error });
      return;
    }
    assert.deepEqual(applyAssignments(config, c.assignments), c.result);
    assert.deepEqual(config, c.input_after ?? c.config);
  });
}

test("getPath reads through sections only", () => {
  assert.equal(getPath({ a: { b: 0 } }, "a.b"), 0);
  assert.equal(getPath({ a: 1 }, "a.b"), undefined);
  assert.equal(getPath({ a: null }, "a.b"), undefined);
});

test("leaves are dotted paths, lists among them", () => {
  assert.deepEqual(leaves({ a: { b: 1, c: [1, 2] }, d: null }), { "a.b": 1, "a.c": [1, 2], d: null });
});
