// The participation view's pure trace builders (frontend/js/participation.js) and the
// wire format's mapping (api.js), with hand-computed values; what Plotly draws of them is
// tested in Chromium (tests/frontend/test_participation.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { toParticipation } from "../../frontend/js/api.js";
import {
  gapsTitle,
  gapTraces,
  outcomeTitle,
  outcomeTraces,
  participationTitle,
  shareTraces,
} from "../../frontend/js/participation.js";

/** Example 1's FedAvg over whole periods: p̄ = (¾, ¼) against α = (½, ½). */
const WIRE = {
  rounds: 40,
  available_share: [0.75, 0.25],
  kept: [30, 10],
  dropped: [0, 0],
  stale: [0, 0],
  aggregate_share: [0.75, 0.25],
  data_share: [0.5, 0.5],
  data_known: true,
  work_s: null,
  participation_tv: 0.25,
  by_availability: [
    { clients: 1, key_low: 0.25, key_high: 0.25, data_share: 0.5, aggregate_share: 0.25, gap: -0.25 },
    { clients: 1, key_low: 0.75, key_high: 0.75, data_share: 0.5, aggregate_share: 0.75, gap: 0.25 },
  ],
  by_device_time: null,
};

test("the wire format maps to the view's fields", () => {
  const p = toParticipation(WIRE);
  assert.deepEqual(p.aggregateShare, [0.75, 0.25]);
  assert.equal(p.participationTv, 0.25);
  assert.equal(p.workS, null);
  assert.deepEqual(p.byAvailability?.[0], {
    clients: 1,
    keyLow: 0.25,
    keyHigh: 0.25,
    dataShare: 0.5,
    aggregateShare: 0.25,
    gap: -0.25,
  });
});

test("each client's share of the aggregate against its data, with the diagonal", () => {
  const [points, diagonal] = shareTraces(toParticipation(WIRE));
  assert.deepEqual(
    [points.x, points.y],
    [
      [0.5, 0.5],
      [0.75, 0.25],
    ],
  );
  assert.deepEqual(points.marker.color, [0.75, 0.25]);
  assert.deepEqual(
    [diagonal.x, diagonal.y],
    [
      [0, 0.75],
      [0, 0.75],
    ],
  );
});

test("without a system model the updates are drawn against availability, and it says so", () => {
  const p = toParticipation(WIRE);
  const traces = outcomeTraces(p);
  assert.deepEqual(
    traces.map((t) => t.name),
    ["kept", "dropped", "stale"],
  );
  assert.deepEqual(traces[0].x, [0.75, 0.25]);
  assert.deepEqual(traces[0].y, [30, 10]);
  assert.match(outcomeTitle(p), /^No system model, so no device times/);
  const timed = toParticipation({ ...WIRE, work_s: [0.5, 4] });
  assert.deepEqual(outcomeTraces(timed)[1].x, [0.5, 4]);
  assert.match(outcomeTitle(timed), /device time/);
});

test("the fifths' gaps are bars in percentage points, the device-time split only where there is one", () => {
  const bars = gapTraces(toParticipation(WIRE));
  assert.equal(bars.length, 1);
  assert.deepEqual(bars[0].y, [-25, 25]);
  assert.deepEqual(bars[0].x, ["1st", "2nd"]);
  assert.match(bars[0].text[0], /50\.0 % of the data, 25\.0 % of the aggregate/);
});

test("the title gives the bias, and says when the data shares were not recorded", () => {
  assert.match(participationTitle(toParticipation(WIRE)), /bias TV\(α, p̄\) = 0\.25$/);
  const external = toParticipation({ ...WIRE, data_known: false });
  assert.match(participationTitle(external), /taken as 1\/N/);
  assert.match(participationTitle(toParticipation({ ...WIRE, participation_tv: null })), /no aggregate yet/);
});

test("the gap chart's title names its splits and why one is missing", () => {
  assert.equal(
    gapsTitle(toParticipation(WIRE)),
    "Aggregate − data share of each fifth, by availability (no device times: no system model)",
  );
  const bins = WIRE.by_availability;
  const timed = toParticipation({ ...WIRE, by_availability: null, by_device_time: bins });
  assert.equal(
    gapsTitle(timed),
    "Aggregate − data share of each fifth, by device time (every client available as often)",
  );
});
