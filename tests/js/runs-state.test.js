// The runs table's address: read, written back, and the page it lists.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  filterQuery,
  filtered,
  listParams,
  moved,
  pageOf,
  parseFilters,
  runCount,
} from "../../frontend/js/pages/runs/state.js";

test("an address's filters are read, an unknown archived value as none", () => {
  const f = parseFilters(new URLSearchParams("status=running&experiment=3&rank=final_acc&archived=maybe&offset=50"));
  assert.deepEqual(f, {
    status: "running",
    algorithm: "",
    experimentId: "3",
    q: "",
    rankBy: "final_acc",
    tag: "",
    archived: "",
    offset: 50,
  });
  assert.equal(parseFilters(new URLSearchParams("archived=any&offset=x")).archived, "any");
  assert.equal(parseFilters(new URLSearchParams("offset=x")).offset, 0);
});

test("the filters write the address they were read from", () => {
  const address = "status=failed&algorithm=mifa&experiment=2&q=cifar&rank=final_acc&tag=a&archived=yes&offset=100";
  const written = filterQuery(parseFilters(new URLSearchParams(address)));
  assert.deepEqual(written, {
    status: "failed",
    algorithm: "mifa",
    experiment: "2",
    q: "cifar",
    rank: "final_acc",
    tag: "a",
    archived: "yes",
    offset: 100,
  });
  assert.equal(filterQuery(parseFilters(new URLSearchParams())).offset, "");
});

test("an experiment's runs are listed by activity unless ranked", () => {
  const f = parseFilters(new URLSearchParams("experiment=4"));
  assert.equal(listParams(f).order, "activity");
  assert.equal(listParams(f).limit, 50);
  assert.equal(listParams(f).archived, undefined);
  assert.equal(listParams({ ...f, rankBy: "final_acc" }).order, undefined);
  assert.equal(listParams({ ...f, experimentId: "" }).order, undefined);
});

test("filtered: any filter but the ranking and the page", () => {
  const none = parseFilters(new URLSearchParams("rank=final_acc&offset=50"));
  assert.equal(filtered(none), false);
  assert.equal(filtered({ ...none, tag: "x" }), true);
  assert.equal(filtered({ ...none, archived: "any" }), true);
});

test("pages of 50: 101 runs make 3, offset 50 is page 2, never before the first", () => {
  assert.deepEqual(pageOf(50, 101), { page: 2, pages: 3 });
  assert.deepEqual(pageOf(0, 0), { page: 1, pages: 1 });
  assert.equal(moved(50, 1), 100);
  assert.equal(moved(20, -1), 0);
  assert.equal(runCount(1), "1 run");
  assert.equal(runCount(3), "3 runs");
});
