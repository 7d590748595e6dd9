// Pure trace builders (frontend/js/traces.js) with hand-computed values. What Plotly
// makes of them is tested in Chromium (tests/frontend/test_traces.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  between,
  compareTraces,
  ema,
  extension,
  flatRange,
  histogramTrace,
  lineLayout,
  matrixTrace,
  panelsFor,
  panelTraces,
  plotText,
  rgba,
  timelineTrace,
  timesAt,
  traceUid,
} from "../../frontend/js/traces.js";

/** A user's string that Plotly would render as a link if it were not escaped. */
const HTML_NAME = '<a href="http://127.0.0.1:9/phish">Click to re-login</a>';
const ESCAPED_NAME = '&lt;a href="http://127.0.0.1:9/phish"&gt;Click to re-login&lt;/a&gt;';

/** @param {number[]} actual @param {number[]} expected */
function close(actual, expected) {
  assert.equal(actual.length, expected.length);
  actual.forEach((a, i) => assert.ok(Math.abs(a - expected[i]) < 1e-9, `${i}: ${a} ≠ ${expected[i]}`));
}

/** @param {number[]} round @param {number[]} last @param {number[]} [min] @param {number[]} [max] */
const series = (round, last, min = last, max = last) => ({ round, last, min, max });

test("ema is debiased and skips nulls", () => {
  // w = 0.5: s1 = 0.5 / 0.5 = 1; s2 = (0.25 + 1) / 0.75 = 5/3; null stays null and does
  // not move the average; s3 = (0.625 + 1.5) / 0.875 = 17/7.
  const out = ema([1, 2, null, 3], 0.5);
  assert.equal(out[2], null);
  close([out[0], out[1], out[3]].map(Number), [1, 5 / 3, 17 / 7]);
  assert.deepEqual(ema([4, null, 6], 0), [4, null, 6]);
});

test("a band is the closed polygon between its ends", () => {
  assert.deepEqual(between([0, 1, 2], [0.5, null, 1], [1.5, 3, 3]), { x: [0, 2, 2, 0], y: [1.5, 3, 1, 0.5] });
});

test("an envelope only where buckets merged rounds", () => {
  const s = new Map([
    ["test_acc", series([9, 19], [0.5, 0.6], [0.4, 0.6], [0.7, 0.6])],
    ["test_loss", series([9], [1])],
  ]);
  const traces = panelTraces({ id: "x", title: "x", metrics: ["test_acc", "test_loss"] }, s);
  assert.deepEqual(
    traces.map((t) => [t.meta.metric, t.meta.field]),
    [
      ["test_acc", "max"],
      ["test_acc", "min"],
      ["test_acc", "last"],
      ["test_loss", "last"],
    ],
  );
  assert.equal(traces[1].fill, "tonexty");
  assert.deepEqual(traces[2].y, [0.5, 0.6]);
});

test("clock times interpolate between the points of the clock's series", () => {
  // wall 1 s at round 0, 10 s at round 9, 30 s at round 19: round 4 -> 1 + 9·4/9 = 5,
  // round 14 -> 10 + 20·5/10 = 20; rounds outside take the first or last value.
  const wall = series([0, 9, 19], [1, 10, 30]);
  close(timesAt(wall, [0, 4, 9, 14, 19, 25, -1]), [1, 5, 10, 20, 30, 30, 1]);
  const s = new Map([["acc", series([4, 14], [0.5, 0.7])]]);
  const traces = panelTraces({ id: "a", title: "a", metrics: ["acc"] }, s, (r) => timesAt(wall, r));
  close(traces[0].x, [5, 20]);
});

test("an extension appends each metric to its traces", () => {
  const traces = [{ meta: { metric: "a" } }, { meta: { metric: "b" } }, { meta: { metric: "a" } }];
  assert.deepEqual(
    extension(traces, [
      { round: 5, a: 1.5 },
      { round: 6, a: 2.5, b: 7 },
    ]),
    { update: { x: [[5, 6], [6], [5, 6]], y: [[1.5, 2.5], [7], [1.5, 2.5]] }, indices: [0, 1, 2] },
  );
  assert.equal(extension([{ meta: { metric: "a" } }], [{ round: 1 }]), null);
  const byWall = extension([{ meta: { metric: "a" } }], [{ round: 5, wall_s: 2.5, a: 1 }], "wall_s");
  assert.deepEqual(byWall, { update: { x: [[2.5]], y: [[1]] }, indices: [0] });
});

/** @returns {any} */
function comparison() {
  return {
    metric: "param",
    x: "round",
    runs: [
      { id: 1, name: "a", group: "fedavg", x: [0, 1], y: [1, 2] },
      { id: 2, name: "b", group: "fedavg", x: [0, 1], y: [3, 4] },
      { id: 3, name: "c", group: "fedlaavg", x: [0, 1], y: [0, 0] },
    ],
    groups: [
      {
        name: "fedavg",
        label: "FedAvg",
        runIds: [1, 2],
        x: [0, 1],
        mean: [2, 3],
        std: [1, 1],
        stdLow: [1, 2],
        stdHigh: [3, 3.5],
      },
      {
        name: "fedlaavg",
        label: "FedLaAvg",
        runIds: [3],
        x: [0, 1],
        mean: [0, 0],
        std: [0, 0],
        stdLow: [0, 0],
        stdHigh: [0, 0],
      },
    ],
    table: [],
    ttests: [],
  };
}

test("compare traces: a band per group of several runs", () => {
  const traces = compareTraces(comparison(), { showRuns: false });
  assert.deepEqual(
    traces.map((t) => t.meta),
    [{ band: "fedavg" }, { group: "fedavg" }, { group: "fedlaavg" }],
  );
  // the server's clipped ends (mean + std is 4 at x = 1, kept to a domain ending at 3.5)
  assert.deepEqual(traces[0].y, [3, 3.5, 2, 1]);
  assert.equal(traces[1].name, "FedAvg (n=2)"); // the server's label, not the key
  const withRuns = compareTraces(comparison(), { showRuns: true });
  assert.equal(withRuns.length, 6);
  const colors = withRuns.map((t) => t.line.color);
  // runs 1, 2, 3, the fedavg band, the fedavg mean, the fedlaavg mean
  assert.ok(colors[0] === colors[1] && colors[1] === colors[4] && colors[4] !== colors[2] && colors[2] === colors[5]);
  assert.deepEqual(
    withRuns.slice(0, 3).map((t) => t.showlegend),
    [false, false, false],
  );
  const pending = comparison();
  Object.assign(pending.groups[1], { x: [], mean: [], std: [] });
  assert.deepEqual(
    compareTraces(pending, {}).map((t) => t.visible),
    [undefined, true, "legendonly"],
  );
});

test("rgba from hex", () => {
  assert.equal(rgba("#1f77b4", 0.2), "rgba(31,119,180,0.2)");
});

test("plot text turns markup into entities", () => {
  const cases = {
    [HTML_NAME]: ESCAPED_NAME,
    "a & b $x$ %{y} 10 %": "a &amp; b &#36;x&#36; &#37;{y} 10 &#37;",
    "&lt; typed": "&amp;lt; typed",
    "TV(α, p̄) · 'q' \"dq\"": "TV(α, p̄) · 'q' \"dq\"",
  };
  assert.deepEqual(Object.keys(cases).map(plotText), Object.values(cases));
});

test("every builder escapes what it shows and keeps meta raw", () => {
  const name = HTML_NAME;
  const cell = `name=${name}`; // an experiment cell's key; its label `name = …`
  const runs = [1, 2].map((id) => ({ id, name, group: cell, x: [0], y: [1] }));
  const c = /** @type {any} */ ({
    metric: "m",
    x: "round",
    runs,
    table: [],
    ttests: [],
    groups: [
      { name: cell, label: `name = ${name}`, runIds: [1, 2], x: [0], mean: [1], std: [0], stdLow: [1], stdHigh: [1] },
    ],
  });
  const s = new Map([[name, series([0, 1], [1, 2], [0, 2], [1, 2])]]);
  const layout = lineLayout(name, { xTitle: name, yTitle: name });
  const esc = ESCAPED_NAME;
  assert.deepEqual(
    compareTraces(c, { showRuns: true }).map((t) => [t.name, t.meta]),
    [
      [`#1 ${esc}`, { run: 1 }],
      [`#2 ${esc}`, { run: 2 }],
      [`name = ${esc} ± std`, { band: `name=${HTML_NAME}` }],
      [`name = ${esc} (n=2)`, { group: `name=${HTML_NAME}` }],
    ],
  );
  assert.deepEqual(
    panelTraces({ id: "p", title: name, metrics: [name] }, s).map((t) => [t.name, t.meta.metric]),
    [
      [`${esc} max`, HTML_NAME],
      [`${esc} min`, HTML_NAME],
      [esc, HTML_NAME],
    ],
  );
  assert.equal(histogramTrace([1], name).name, esc);
  assert.equal(matrixTrace({ clients: [3], rounds: [0], values: [[1]] }, { zTitle: name }).colorbar.title.text, esc);
  assert.deepEqual([layout.title.text, layout.xaxis.title.text, layout.yaxis.title.text], [esc, esc, esc]);
});

test("a swinging downsampled series keeps its line, its band under it", () => {
  // Example 1's x in buckets of 4 rounds: 100 swings across its range, past SWINGS_BAND
  const rounds = Array.from({ length: 100 }, (_, k) => 4 * k + 3);
  const last = rounds.map((_, k) => (k % 2 ? 0.9 : 0.1));
  const s = series(
    rounds,
    last,
    rounds.map(() => 0),
    rounds.map(() => 1),
  );
  const traces = panelTraces({ id: "param", title: "x", metrics: ["param"] }, new Map([["param", s]]));
  assert.deepEqual(
    traces.map((t) => [t.meta.field, t.visible ?? true, t.showlegend ?? true, t.uid]),
    [
      ["max", true, false, "param--max"],
      ["min", true, true, "param--min"], // the band, named in the legend
      ["last", true, true, "param--last"], // the line stays drawn over it
    ],
  );
  assert.equal(traces[2].mode, "lines");
  assert.ok(traces[2].line.width > 0);
});

test("a trace's uid is safe in a CSS selector", () => {
  assert.equal(traceUid("param", "max"), "param--max");
  assert.equal(traceUid("loss/val.1 x", "last"), "loss_val_1_x--last");
});

test("equal lines of a panel both show", () => {
  // Every client available was selected: the two participation curves coincide.
  const s = series([0, 1], [3, 3]);
  const traces = panelTraces(
    { id: "clients", title: "Participation", metrics: ["n_available", "n_selected"] },
    new Map([
      ["n_available", s],
      ["n_selected", s],
    ]),
  );
  const shown = traces.map((t) => [t.meta.metric, t.line.width, t.line.dash ?? null]);
  assert.deepEqual(shown[0], ["n_available", 3, null]); // drawn first, wider
  assert.deepEqual(shown[1], ["n_selected", 1.8, "dash"]); // on top, thinner and dashed
});

test("the timeline colours each state in its own band, by its name", () => {
  const states = [
    { name: "offline", colour: "#f2f2f2" },
    { name: "online", colour: "#c6dbef" },
    { name: "training", colour: "#6baed6" },
    { name: "kept", colour: "#2ca02c" },
  ];
  const t = timelineTrace(
    {
      clients: [0, 2],
      times: [0, 5],
      widthS: 5,
      labels: ["offline", "online", "kept"],
      states: [
        [0, 2],
        [1, 1],
      ],
    },
    states,
  );
  // state i sits in the middle of its band [i, i + 1) of a 3-state scale
  assert.deepEqual(t.z, [
    [0.5, 2.5],
    [1.5, 1.5],
  ]);
  assert.deepEqual([t.zmin, t.zmax], [0, 3]);
  assert.deepEqual(
    [t.x, t.y],
    [
      [2.5, 7.5],
      ["client 0", "client 2"],
    ],
  );
  assert.deepEqual(t.text, [
    ["offline", "kept"],
    ["online", "online"],
  ]);
  assert.deepEqual(t.colorbar.ticktext, ["offline", "online", "kept"]);
  const stops = t.colorscale.map((/** @type {[number, string]} */ s) => s[0]);
  close(stops, [0, 1 / 3, 1 / 3, 2 / 3, 2 / 3, 1]);
  // kept, third here, takes kept's colour, not the third state's (training)
  assert.deepEqual(
    t.colorscale.map((/** @type {[number, string]} */ s) => s[1]),
    ["#f2f2f2", "#f2f2f2", "#c6dbef", "#c6dbef", "#2ca02c", "#2ca02c"],
  );
});

test("a panel is on a log axis where the catalogue says so of it or of a metric in it", () => {
  const catalogue = /** @type {any[]} */ ([
    { name: "opt_gap", kind: "round", panel: "gap", log: true },
    { name: "test_acc", kind: "round", panel: "accuracy", log: false },
    { name: "train_loss", kind: "round", panel: "loss", log: false },
  ]);
  const specs = [
    { name: "accuracy", title: "Test accuracy", yTitle: "", log: false, description: "" },
    { name: "gap", title: "Optimality gap", yTitle: "", log: false, description: "" },
    { name: "loss", title: "Loss", yTitle: "", log: true, description: "" },
  ];
  const panels = panelsFor(["opt_gap", "test_acc", "train_loss"], catalogue, specs);
  assert.deepEqual(
    panels.map((p) => [p.id, p.log ?? false]),
    [
      ["accuracy", false],
      ["gap", true],
      ["loss", true],
    ],
  );
});

test("a panel carries its definition, and only where it has one", () => {
  const catalogue = /** @type {any[]} */ ([
    { name: "staleness_mean", kind: "round", panel: "staleness" },
    { name: "update_staleness_mean", kind: "round", panel: "versions" },
    { name: "test_acc", kind: "round", panel: "accuracy" },
  ]);
  const specs = [
    { name: "accuracy", title: "Test accuracy", yTitle: "accuracy", log: false, description: "" },
    { name: "staleness", title: "Client age", yTitle: "rounds", log: false, description: "Client age: …" },
    { name: "versions", title: "Update staleness", yTitle: "versions", log: false, description: "Update staleness: …" },
  ];
  const panels = panelsFor(["update_staleness_mean", "staleness_mean", "test_acc"], catalogue, specs);
  assert.deepEqual(
    panels.map((p) => [p.id, p.title, p.description]),
    [
      ["accuracy", "Test accuracy", undefined],
      ["staleness", "Client age", "Client age: …"],
      ["versions", "Update staleness", "Update staleness: …"],
    ],
  );
});

test("flatRange fixes a constant chart's y axis around its value, and only a constant one", () => {
  const down = { y: [9240100, 9240100, null] };
  // v = 9 240 100 bytes: [0, 2v], not Plotly's v ± 1
  assert.deepEqual(flatRange([down, { y: [9240100] }]), [0, 18480200]);
  assert.deepEqual(flatRange([{ y: [-2, -2] }]), [-4, 0]);
  assert.deepEqual(flatRange([{ y: [0] }]), [-1, 1]);
  assert.deepEqual(flatRange([{ y: [100] }], [], true), [1, 3]); // log10(100) ± 1 decade
  assert.equal(flatRange([{ y: [0] }], [], true), null); // nothing to put on a log axis
  assert.equal(flatRange([down, { y: [9240101] }]), null);
  assert.equal(flatRange([down], [0.5]), null); // a reference line elsewhere: autorange shows both
  assert.deepEqual(flatRange([down], [9240100]), [0, 18480200]);
  assert.equal(flatRange([{ y: [null, NaN] }, {}]), null);
  assert.deepEqual(lineLayout("t", { yRange: [0, 2] }).yaxis.range, [0, 2]);
  assert.equal(lineLayout("t", { yRange: [0, 2] }).yaxis.autorange, false);
  assert.equal(lineLayout("t").yaxis.range, undefined);
});
