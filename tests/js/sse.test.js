import assert from "node:assert/strict";
import { test } from "node:test";

import { parseEvents } from "../../frontend/js/sse.js";

test("the parser keeps an incomplete tail for the next chunk", () => {
  const out = parseEvents('event: round\nid: 7\ndata: {"round": 7}\n\n: keep-alive\n\nevent: status\ndata: {"a":\r\n');
  assert.deepEqual(out.events, [{ event: "round", id: "7", data: '{"round": 7}' }]);
  assert.equal(out.rest, 'event: status\ndata: {"a":\n');
});
