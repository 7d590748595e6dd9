// The compare page's address (frontend/js/pages/compare/state.js): read with every bad
// value replaced by its default, written back without the defaults, the x axis by its word.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  alphaOf,
  comparisonQuery,
  defaultMetric,
  logAxis,
  parseState,
  renamed,
  stateQuery,
  tradeAxes,
  xKey,
} from "../../frontend/js/pages/compare/state.js";

/** The server's facts as `GET /api/meta` serves them. */
const FACTS = {
  xAxes: [
    { key: "round", word: "round", title: "round", option: "x = round" },
    { key: "wall_s", word: "wall", title: "wall time (s)", option: "x = wall time" },
    { key: "sim_time_s", word: "sim", title: "simulated time (s)", option: "x = simulated time" },
  ],
  alpha: 0.05,
  groupBy: [
    { name: "algorithm", label: "group by algorithm" },
    { name: "experiment_cell", label: "group by experiment cell" },
    { name: "none", label: "no grouping" },
  ],
  bands: [
    { name: "std", label: "band: ± std" },
    { name: "ci", label: "band: 95 % CI of the mean" },
    { name: "none", label: "no band" },
  ],
};

/** @param {string} search */
const parse = (search) => parseState(new URLSearchParams(search), FACTS);

const DEFAULTS = {
  runs: [],
  experiments: [],
  metric: "",
  groupBy: "algorithm",
  x: "round",
  smooth: 0,
  showRuns: null,
  reference: "",
  labels: "",
  logY: null,
  yMin: "",
  yMax: "",
  sweepValue: "",
  band: "std",
  alpha: 0.05,
  width: "column",
  tradeX: "",
  tradeY: "",
};

test("an empty address is the defaults, written back as its grouping alone", () => {
  assert.deepEqual(parse(""), DEFAULTS);
  const written = Object.entries(stateQuery(parse(""), FACTS)).filter(([, v]) => v !== "" && String(v) !== "");
  assert.deepEqual(written, [["group_by", "algorithm"]]); // its default depends on what is compared
});

test("every value read", () => {
  const state = parse(
    "runs=3,1&experiment=7&metric=opt_gap&group_by=none&x=sim&smooth=0.5&lines=0&reference=fedavg" +
      "&labels=fedavg:FedAvg&logy=1&ymin=0.1&ymax=2&pc=final_acc&band=ci&alpha=0.01&width=full" +
      "&tx=final_epsilon_assumed&ty=final_test_acc",
  );
  assert.deepEqual(state, {
    runs: [3, 1],
    experiments: [7],
    metric: "opt_gap",
    groupBy: "none",
    x: "sim_time_s",
    smooth: 0.5,
    showRuns: false,
    reference: "fedavg",
    labels: "fedavg:FedAvg",
    logY: true,
    yMin: "0.1",
    yMax: "2",
    sweepValue: "final_acc",
    band: "ci",
    alpha: 0.01,
    width: "full",
    tradeX: "final_epsilon_assumed",
    tradeY: "final_test_acc",
  });
});

test("the x axis: its word, or its key from older addresses; the API gets the key", () => {
  assert.equal(parse("x=wall").x, "wall_s");
  assert.equal(parse("x=wall_s").x, "wall_s");
  assert.equal(parse("x=sim_time_s").x, "sim_time_s");
  assert.equal(parse("x=round").x, "round");
  assert.equal(stateQuery(parse("x=wall_s"), FACTS).x, "wall");
  assert.equal(stateQuery(parse("x=sim"), FACTS).x, "sim");
  assert.equal(stateQuery(parse("x=round"), FACTS).x, ""); // the default left out
  assert.equal(comparisonQuery(parse("x=wall"), [1]).x, "wall_s");
  assert.equal(xKey(null, FACTS.xAxes), "round");
});

test("bad and hostile values fall back to their defaults", () => {
  const hostile = parse(
    "runs=1,-2,x,2.5,0,3&experiment=abc&group_by=<script>&x=__proto__&smooth=NaN&band=constructor" +
      "&alpha=1&width=wide",
  );
  assert.deepEqual(hostile.runs, [1, 3]);
  assert.deepEqual(hostile.experiments, []);
  assert.equal(hostile.groupBy, "algorithm");
  assert.equal(hostile.x, "round");
  assert.equal(hostile.smooth, 0);
  assert.equal(hostile.band, "std");
  assert.equal(hostile.alpha, 0.05);
  assert.equal(hostile.width, "column");
  for (const alpha of ["0", "-0.1", "1", "2", "abc", "", "Infinity"]) assert.equal(parse(`alpha=${alpha}`).alpha, 0.05);
  assert.equal(parse("smooth=5").smooth, 0.99);
  assert.equal(parse("smooth=-1").smooth, 0);
  assert.equal(parse("smooth=Infinity").smooth, 0.99);
  assert.equal(parse("x=toString").x, "round");
});

test("strings are kept as typed: the server judges a metric, a reference and the labels", () => {
  const state = parse("metric=%3Cb%3E&reference=a%26b%3Dc&labels=a%5C%2Cb%3Ax&pc=%22");
  assert.equal(state.metric, "<b>");
  assert.equal(state.reference, "a&b=c");
  assert.equal(state.labels, "a\\,b:x");
  assert.equal(state.sweepValue, '"');
});

test("flags: absent is the default (null), 0 off, anything else on", () => {
  assert.equal(parse("").showRuns, null);
  assert.equal(parse("lines=0").showRuns, false);
  assert.equal(parse("lines=1").showRuns, true);
  assert.equal(parse("lines=").showRuns, true);
  assert.equal(parse("logy=0").logY, false);
  assert.equal(stateQuery(parse("logy=0"), FACTS).logy, "0");
  assert.equal(stateQuery(parse("lines=yes"), FACTS).lines, "1");
});

test("grouping: by experiment cell when an experiment is compared and none is asked for", () => {
  assert.equal(parse("experiment=4").groupBy, "experiment_cell");
  assert.equal(parse("experiment=4&group_by=algorithm").groupBy, "algorithm");
  assert.equal(parse("experiment=4&group_by=bogus").groupBy, "experiment_cell");
});

test("round trips: an address written back reads the same", () => {
  const searches = [
    "runs=1,2&metric=test_acc",
    "experiment=3&group_by=none&x=wall&smooth=0.25&band=none&alpha=0.1",
    "runs=5&lines=1&logy=0&ymin=-1&ymax=1e3&pc=final_acc&width=full&reference=fedavg",
    "runs=5&labels=a\\,b:x\\:y,c:d",
    "experiment=2&tx=final_epsilon_client_median&ty=best_test_acc",
  ];
  for (const search of searches) {
    const state = parse(search);
    const query = stateQuery(state, FACTS);
    const written = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (String(v)) written.set(k, String(v));
    assert.deepEqual(parse(written.toString()), state, search);
  }
});

test("the default α and band are left out, another written", () => {
  assert.equal(stateQuery({ ...DEFAULTS, alpha: 0.05 }, FACTS).alpha, "");
  assert.equal(stateQuery({ ...DEFAULTS, alpha: 0.01 }, FACTS).alpha, "0.01");
  assert.equal(stateQuery({ ...DEFAULTS, band: "std" }, FACTS).band, "");
  assert.equal(stateQuery({ ...DEFAULTS, band: "ci" }, FACTS).band, "ci");
  assert.equal(stateQuery({ ...DEFAULTS, smooth: 0.123 }, FACTS).smooth, "0.12");
  assert.equal(stateQuery({ ...DEFAULTS, yMin: " 0.5 " }, FACTS).ymin, "0.5");
});

test("the API's query: empty reference and labels left to the server", () => {
  assert.deepEqual(comparisonQuery({ ...DEFAULTS, metric: "test_acc" }, [4, 2]), {
    runs: [4, 2],
    metric: "test_acc",
    groupBy: "algorithm",
    x: "round",
    reference: undefined,
    alpha: 0.05,
    labels: undefined,
  });
});

test("the log axis: as chosen, else the metric's scale", () => {
  assert.equal(logAxis({ ...DEFAULTS, logY: null }, true), true);
  assert.equal(logAxis({ ...DEFAULTS, logY: false }, true), false);
  assert.equal(logAxis({ ...DEFAULTS, logY: true }, false), true);
});

test("a group renamed, and given back its own name", () => {
  assert.equal(renamed("", "fedavg", " FedAvg (ours) "), "fedavg:FedAvg (ours)");
  assert.equal(renamed("fedavg:A,cafed:B", "fedavg", ""), "cafed:B");
  assert.equal(renamed("", "a,b", "x:y"), "a\\,b:x\\:y");
});

test("α typed: in (0, 1) or nothing", () => {
  assert.equal(alphaOf("0.2"), 0.2);
  assert.equal(alphaOf("0"), null);
  assert.equal(alphaOf(""), null);
  assert.equal(alphaOf("1"), null);
});

test("the metric shown first: the dataset's default if recorded, else the first recorded", () => {
  assert.equal(defaultMetric(["train_loss", "test_acc"], "test_acc"), "test_acc");
  assert.equal(defaultMetric(["opt_gap", "param"], "test_acc"), "opt_gap");
  assert.equal(defaultMetric([], "param"), "param");
});

test("the trade-off's axes: as chosen where the comparison can plot them, else the server's", () => {
  const tradeoff = {
    values: ["best_test_acc", "final_epsilon_assumed", "final_epsilon_client_max"],
    epsilon: ["final_epsilon_assumed", "final_epsilon_client_max"],
    x: "final_epsilon_client_max",
    y: "best_test_acc",
    assumed: "final_epsilon_assumed",
  };
  assert.deepEqual(tradeAxes(parse(""), tradeoff), { x: "final_epsilon_client_max", y: "best_test_acc" });
  assert.deepEqual(tradeAxes(parse("tx=final_epsilon_assumed&ty=final_epsilon_client_max"), tradeoff), {
    x: "final_epsilon_assumed",
    y: "final_epsilon_client_max",
  });
  // A value no two groups record (or a hostile one) falls back to the default.
  assert.deepEqual(tradeAxes(parse("tx=wall_s&ty=<b>"), tradeoff), {
    x: "final_epsilon_client_max",
    y: "best_test_acc",
  });
  assert.equal(stateQuery(parse("tx=final_epsilon_assumed"), FACTS).tx, "final_epsilon_assumed");
});
