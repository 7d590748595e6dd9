// The compare page's metric list: what the started runs recorded, the address's choice
// first, else the runs' dataset's first metric (`GET /api/meta`; the first run's dataset).
import { api } from "../../api.js";
import { specOf } from "../../catalog.js";
import { h, replace } from "../../dom.js";
import { label } from "../../format.js";
import { defaultMetric } from "./state.js";

/**
 * The names recorded by one started run of each algorithm, so that one method's own
 * metrics (an async method's update staleness) are there beside a synchronous one's; the
 * x axes that are no round metric (the wall clock) left out.
 * @param {import("../../api.js").Run[]} runs @param {import("../../api.js").XAxisSpec[]} axes
 */
async function recordedMetrics(runs, axes) {
  const clocks = new Set(axes.map((a) => a.key).filter((k) => specOf(k)?.kind !== "round"));
  const started = [...new Map(runs.filter((r) => r.roundsDone > 0).map((r) => [r.algorithm, r])).values()];
  const recorded = await Promise.all(started.map(async (r) => [...(await api.metrics(r.id, { maxPoints: 1 })).keys()]));
  return [...new Set(recorded.flat())].filter((n) => !clocks.has(n));
}

/**
 * Fill the metric list once (and the state's metric, when the address names none) from
 * what the started runs recorded; the list is kept once it holds the chosen metric's
 * others.
 * @param {HTMLSelectElement} select @param {import("./state.js").CompareState} state
 * @param {import("../../api.js").Run[]} runs @param {import("../../api.js").Meta} meta its x axes, each dataset's first metric
 */
export async function chooseMetric(select, state, runs, meta) {
  if (select.options.length > 1 && state.metric) return;
  const names = await recordedMetrics(runs, meta.xAxes);
  state.metric ||= defaultMetric(names, meta.defaultMetrics[runs[0]?.dataset] ?? "");
  const options = names.includes(state.metric) ? names : [state.metric, ...names];
  replace(
    select,
    options.map((n) => h("option", { value: n }, label(n))),
  );
  select.value = state.metric;
}
