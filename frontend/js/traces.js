// Pure functions from domain data to Plotly traces and layouts: no DOM, no fetching.
import { label } from "./format.js";

/** @typedef {import("./api.js").Series} Series */
/** @typedef {import("./api.js").Matrix} Matrix */
/** @typedef {import("./api.js").Comparison} Comparison */
/** @typedef {{id: string, title: string, metrics: string[], log?: boolean, yTitle?: string, description?: string}} Panel */

const ENTITIES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", $: "&#36;", "%": "&#37;" };

/**
 * A string as Plotly shows it, literally. In trace names, titles, axis and tick labels,
 * hover text and annotations Plotly renders a subset of HTML (`<a href>`, `<b>`, `<br>`,
 * ...) and decodes entities, fills in `%{…}` templates from the trace's `meta`, and
 * typesets `$…$` as TeX when MathJax is on the page. So `&`, `<`, `>`, `$` and `%` become
 * entities, which it decodes once, last. Every builder here passes display strings through
 * this and takes plain text from the pages.
 * @param {string} text
 */
export function plotText(text) {
  return String(text).replace(/[&<>$%]/g, (c) => ENTITIES[/** @type {keyof typeof ENTITIES} */ (c)]);
}

export const PALETTE = [
  "#1f77b4",
  "#ff7f0e",
  "#2ca02c",
  "#d62728",
  "#9467bd",
  "#8c564b",
  "#e377c2",
  "#7f7f7f",
  "#bcbd22",
  "#17becf",
];

/**
 * The panels to draw for the metric names a run recorded: each round metric of the
 * catalogue in its declared panel (`specs`: the catalogue's panels, in display order),
 * and a metric the catalogue does not know (logged by external code) in a panel of its own.
 * A panel is on a log axis where the catalogue says so of it or of a metric in it.
 * @param {Iterable<string>} names
 * @param {import("./api.js").MetricSpec[]} catalogue
 * @param {import("./api.js").PanelSpec[]} specs
 * @returns {Panel[]}
 */
export function panelsFor(names, catalogue, specs) {
  const present = new Set(names);
  /** @type {Map<string, import("./api.js").MetricSpec[]>} */
  const members = new Map();
  for (const spec of catalogue) {
    if (spec.kind === "round" && present.has(spec.name))
      members.set(spec.panel, [...(members.get(spec.panel) ?? []), spec]);
  }
  /** @type {Panel[]} */
  const panels = specs
    .filter((p) => members.has(p.name))
    .map((p) => {
      const metrics = /** @type {import("./api.js").MetricSpec[]} */ (members.get(p.name));
      return {
        id: p.name,
        title: p.title,
        ...(p.yTitle && { yTitle: p.yTitle }),
        ...((p.log || metrics.some((m) => m.log)) && { log: true }),
        ...(p.description && { description: p.description }),
        metrics: metrics.map((m) => m.name),
      };
    });
  const known = new Set(catalogue.map((s) => s.name));
  for (const name of [...present].sort()) {
    if (!known.has(name)) panels.push({ id: `m-${name}`, title: label(name), metrics: [name] });
  }
  return panels;
}

/** @param {string} hex @param {number} alpha */
export function rgba(hex, alpha) {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255},${(n >> 8) & 255},${n & 255},${alpha})`;
}

/** @param {Series} s */
function hasEnvelope(s) {
  return s.min.some((v, i) => v !== null && v !== s.max[i]);
}

/**
 * Times (s) at each of `rounds`, read off a clock's series (`wall_s`, the engine's elapsed
 * time at the end of a round, or `sim_time_s`, the simulated time) by linear interpolation
 * between its points; rounds outside it take its first or last value. Metrics recorded
 * every few rounds are downsampled into buckets of their own, so their rounds need not be
 * points of the clock's series.
 * @param {Series} clock @param {number[]} rounds @returns {number[]}
 */
export function timesAt(clock, rounds) {
  const xs = clock.round;
  const ys = clock.last;
  if (!xs.length) return rounds.map(() => 0);
  return rounds.map((r) => {
    let hi = 0;
    while (hi < xs.length && xs[hi] < r) hi++;
    if (hi === 0) return ys[0] ?? 0;
    if (hi === xs.length) return ys[xs.length - 1] ?? 0;
    const lo = hi - 1;
    const a = ys[lo] ?? 0;
    const b = ys[hi] ?? a;
    return xs[hi] === xs[lo] ? b : a + ((b - a) * (r - xs[lo])) / (xs[hi] - xs[lo]);
  });
}

/**
 * Traces of one panel: per metric its `last` line, always drawn, and where buckets merged
 * several rounds a min–max envelope under it (so downsampled spikes stay visible): the band
 * decorates the line, it never replaces it. Each trace's `meta` names the metric and series
 * field it shows, which is what live appends use, and its `uid` names the same, so that a
 * legend click kept across a redraw (`uirevision`) stays with its trace when an envelope
 * comes or goes. Arrays are copied: Plotly.extendTraces grows the traces' own arrays. `x`
 * maps a series' rounds to the x axis (the rounds themselves by default).
 * @param {Panel} panel @param {Map<string, Series>} series
 * @param {(rounds: number[]) => number[]} [x]
 */
export function panelTraces(panel, series, x = (rounds) => rounds.slice()) {
  /** @type {any[]} */
  const traces = [];
  panel.metrics.forEach((metric, i) => {
    const s = series.get(metric) ?? { round: [], last: [], min: [], max: [] };
    const color = PALETTE[i % PALETTE.length];
    // A downsampled series that swings within its buckets (a periodic run's staleness)
    // reads by its min/max band, in the legend and stronger, under a thin line: the
    // bucket-last line alone would be a barcode.
    const banded = hasEnvelope(s) && swings(s.last) > SWINGS_BAND;
    if (hasEnvelope(s)) {
      const common = {
        type: "scatter",
        mode: "lines",
        line: { width: 0, color },
        hoverinfo: "skip",
        showlegend: false,
        legendgroup: metric,
      };
      traces.push({
        ...common,
        x: x(s.round),
        y: s.max.slice(),
        name: plotText(`${label(metric)} max`),
        uid: traceUid(metric, "max"),
        meta: { metric, field: "max" },
      });
      traces.push({
        ...common,
        x: x(s.round),
        y: s.min.slice(),
        name: plotText(banded ? `${label(metric)} (min–max)` : `${label(metric)} min`),
        fill: "tonexty",
        fillcolor: rgba(color, banded ? 0.45 : 0.2),
        showlegend: banded,
        uid: traceUid(metric, "min"),
        meta: { metric, field: "min" },
      });
    }
    // Each further line is thinner and dashed: where two metrics are equal (available =
    // selected clients) the one drawn first still shows around the other.
    const line = i === 0 ? { width: banded ? 1.2 : 3, color } : { width: banded ? 1 : 1.8, color, dash: "dash" };
    traces.push({
      type: "scatter",
      mode: "lines",
      x: x(s.round),
      y: s.last.slice(),
      name: plotText(label(metric)),
      line,
      legendgroup: metric,
      visible: true,
      uid: traceUid(metric, "last"),
      meta: { metric, field: "last" },
    });
  });
  return traces;
}

/**
 * A trace's `uid`: its metric and field, in letters, digits, "_" and "-" only (Plotly puts
 * a uid into CSS selectors: "param:max" broke its querySelector; any other character of a
 * metric's name becomes "_").
 * @param {string} metric @param {string} field
 */
export function traceUid(metric, field) {
  return `${metric.replace(/[^A-Za-z0-9_-]/g, "_")}--${field}`;
}

/** Past this many full swings across its range, a downsampled line is drawn as its band. */
export const SWINGS_BAND = 25;

/**
 * How many times a series crosses its whole range, up and down counted as one: its total
 * variation over twice its range. A trend swings about once; a noisy accuracy curve a few
 * times; a periodic run's staleness once a period (100 for 4000 rounds of period 40).
 * @param {(number|null)[]} values
 */
export function swings(values) {
  const v = /** @type {number[]} */ (values.filter((x) => x !== null));
  if (v.length < 2) return 0;
  const range = Math.max(...v) - Math.min(...v);
  if (range === 0) return 0;
  let total = 0;
  for (let i = 1; i < v.length; i++) total += Math.abs(v[i] - v[i - 1]);
  return total / (2 * range);
}

/**
 * The `Plotly.extendTraces` arguments that append raw round rows to a panel's traces.
 * @param {any[]} traces traces built by `panelTraces` (only `meta` is read)
 * @param {Record<string, number>[]} rows `{round, metric: value, ...}`
 * @param {string} [xKey] the row field on the x axis: `round`, `wall_s` (wall time) or
 *   `sim_time_s` (simulated time)
 * @returns {{update: {x: number[][], y: number[][]}, indices: number[]} | null}
 */
export function extension(traces, rows, xKey = "round") {
  /** @type {{x: number[][], y: number[][]}} */
  const update = { x: [], y: [] };
  /** @type {number[]} */
  const indices = [];
  traces.forEach((trace, index) => {
    const metric = trace.meta?.metric;
    const hits = rows.filter((r) => typeof r[metric] === "number");
    if (!hits.length) return;
    update.x.push(hits.map((r) => r[xKey]));
    update.y.push(hits.map((r) => r[metric]));
    indices.push(index);
  });
  return indices.length ? { update, indices } : null;
}

/**
 * Layout of a line chart. Hover labels show whole trace names: Plotly would cut them at 15
 * characters of their escaped text.
 * @param {string} title
 * @param {{xTitle?: string, yTitle?: string, log?: boolean, uirevision?: string, height?: number,
 *   legend?: boolean, yRange?: [number, number]|null}} [o] the legend sits under the x axis unless
 *   `legend: false`; `yRange` fixes the y axis (`flatRange`), else Plotly's autorange sets it
 * @returns {Record<string, any>} a Plotly layout, which callers extend
 */
export function lineLayout(title, o = {}) {
  const fixed = o.yRange ? { range: o.yRange, autorange: false } : {};
  return {
    title: { text: plotText(title), font: { size: 14 }, x: 0.01, xanchor: "left" },
    height: o.height ?? 320,
    margin: { l: 56, r: 16, t: 40, b: o.legend === false ? 44 : 78 },
    xaxis: { title: { text: plotText(o.xTitle ?? "round") }, zeroline: false },
    yaxis: {
      title: { text: plotText(o.yTitle ?? "") },
      type: o.log ? "log" : "linear",
      zeroline: false,
      exponentformat: "e",
      ...fixed,
    },
    legend: { orientation: "h", x: 0, y: 0, yref: "container", yanchor: "bottom" },
    uirevision: o.uirevision ?? "keep",
    showlegend: o.legend !== false,
    hovermode: "x unified",
    hoverlabel: { namelength: -1 },
    paper_bgcolor: "rgba(0,0,0,0)",
    plot_bgcolor: "#fff",
  };
}

/**
 * The y range of a chart whose values are all one number v (a constant series, its
 * reference lines included), which Plotly's autorange would stretch to v ± 1 and tick in
 * garbled steps of a millionth of v ("9.2400995e+6"): [0, 2v] ([2v, 0] below zero, [-1, 1]
 * at zero), a decade each side of v on a log axis (in log units, as Plotly takes it). Null
 * where the values differ or there are none: autorange serves.
 * @param {{y?: (number|null)[]}[]} traces @param {number[]} [refs] @param {boolean} [log]
 * @returns {[number, number]|null}
 */
export function flatRange(traces, refs = [], log = false) {
  const values = [...traces.flatMap((t) => t.y ?? []), ...refs].filter(
    (v) => typeof v === "number" && Number.isFinite(v),
  );
  const v = /** @type {number} */ (values[0]);
  if (!values.length || values.some((x) => x !== v)) return null;
  if (log) return v > 0 ? [Math.log10(v) - 1, Math.log10(v) + 1] : null;
  if (v === 0) return [-1, 1];
  return v > 0 ? [0, 2 * v] : [2 * v, 0];
}

/**
 * Layout additions that mark reference values on a chart (a paper's analytic limit, an
 * optimum): a dashed horizontal line across the plot at each, labelled at its right end.
 * @param {{value: number, label: string}[]} refs
 * @returns {{shapes: any[], annotations: any[]}}
 */
export function referenceLines(refs) {
  const color = (/** @type {number} */ i) => ["#444", "#2ca02c", "#9467bd", "#8c564b"][i % 4];
  return {
    shapes: refs.map((r, i) => ({
      type: "line",
      xref: "paper",
      x0: 0,
      x1: 1,
      yref: "y",
      y0: r.value,
      y1: r.value,
      line: { color: color(i), width: 1.5, dash: "dash" },
      name: plotText(r.label),
    })),
    annotations: refs.map((r, i) => ({
      xref: "paper",
      x: 1,
      xanchor: "right",
      yref: "y",
      y: r.value,
      yanchor: "bottom",
      text: plotText(r.label),
      showarrow: false,
      font: { size: 11, color: color(i) },
      bgcolor: "rgba(255,255,255,0.7)",
    })),
  };
}

/**
 * Clients × rounds heatmap of a matrix. Plotly's named sequential scales run dark to light,
 * so they are reversed: the darker the cell, the larger the value.
 * @param {Matrix} m @param {{zmin?: number, zmax?: number, colorscale?: any, zTitle?: string}} [o]
 */
export function matrixTrace(m, o = {}) {
  return {
    type: "heatmap",
    z: m.values,
    x: m.rounds,
    y: m.clients.map((c) => plotText(`client ${c}`)),
    zmin: o.zmin,
    zmax: o.zmax,
    colorscale: o.colorscale ?? "Blues",
    reversescale: true,
    colorbar: { title: { text: plotText(o.zTitle ?? "") }, thickness: 12 },
    hovertemplate: "%{y}<br>from round %{x}<br>%{z:.3g}<extra></extra>",
  };
}

/**
 * The client timeline as a heatmap of its states (indices into `t.labels`, the states'
 * names), one colour each, matched by name among the server's `states` (`GET /api/meta`):
 * rows of clients, columns of simulated time.
 * @param {import("./api.js").ClientTimeline} t @param {import("./api.js").TimelineState[]} states
 */
export function timelineTrace(t, states) {
  const n = t.labels.length;
  const colour = (/** @type {string} */ name) => states.find((s) => s.name === name)?.colour ?? "#ffffff";
  // A stepped scale: state i fills the band [i, i + 1) / n of the colour range.
  const colorscale = t.labels.flatMap((name, i) => [
    [i / n, colour(name)],
    [(i + 1) / n, colour(name)],
  ]);
  return {
    type: "heatmap",
    z: t.states.map((row) => row.map((s) => s + 0.5)),
    x: t.times.map((x) => x + t.widthS / 2),
    y: t.clients.map((c) => plotText(`client ${c}`)),
    zmin: 0,
    zmax: n,
    colorscale,
    text: t.states.map((row) => row.map((s) => plotText(t.labels[s] ?? ""))),
    colorbar: {
      thickness: 12,
      tickvals: t.labels.map((_, i) => i + 0.5),
      ticktext: t.labels.map((l) => plotText(l)),
    },
    hovertemplate: "%{y}<br>%{x:.4g} s<br>%{text}<extra></extra>",
  };
}

/** @param {(number|null)[]} values @param {string} name @param {string} [color] */
export function histogramTrace(values, name, color = PALETTE[0]) {
  const x = values.filter((v) => typeof v === "number" && Number.isFinite(v));
  return {
    type: "histogram",
    x,
    name: plotText(name),
    marker: { color, line: { color: "#fff", width: 1 } },
    hovertemplate: "%{x}: %{y}<extra></extra>",
  };
}

/**
 * Bars of counts already binned by the server: bin i covers `starts[i]` to
 * `starts[i] + width − 1`.
 * @param {{starts: number[], counts: number[], width: number}} bins @param {string} name
 * @param {string} [color]
 */
export function binnedTrace(bins, name, color = PALETTE[0]) {
  const x = bins.starts.map((s) => s + (bins.width - 1) / 2);
  const text = bins.starts.map((s) => (bins.width === 1 ? `${s}` : `${s}–${s + bins.width - 1}`));
  return {
    type: "bar",
    x,
    y: bins.counts,
    width: bins.width,
    text,
    textposition: "none",
    name: plotText(name),
    marker: { color, line: { color: "#fff", width: 1 } },
    hovertemplate: "%{text}: %{y}<extra></extra>",
  };
}

/**
 * Debiased exponential moving average (TensorBoard's smoothing); nulls stay null and do not
 * move the average. weight 0 returns the input.
 * @param {(number|null)[]} values @param {number} weight in [0, 1)
 * @returns {(number|null)[]}
 */
export function ema(values, weight) {
  if (!weight) return values.slice();
  let last = 0;
  let n = 0;
  return values.map((v) => {
    if (v === null || !Number.isFinite(v)) return null;
    last = last * weight + (1 - weight) * v;
    n += 1;
    return last / (1 - weight ** n);
  });
}

/**
 * The closed polygon between two curves (points where either is null left out).
 * @param {number[]} x @param {(number|null)[]} lower @param {(number|null)[]} upper
 * @returns {{x: number[], y: number[]}}
 */
export function between(x, lower, upper) {
  const keep = x.map((_, i) => i).filter((i) => lower[i] !== null && upper[i] !== null);
  const xs = keep.map((i) => x[i]);
  const up = keep.map((i) => /** @type {number} */ (upper[i]));
  const down = keep.map((i) => /** @type {number} */ (lower[i]));
  return { x: [...xs, ...xs.slice().reverse()], y: [...up, ...down.reverse()] };
}

/**
 * Overlay of a comparison: per group a mean line and its ± std band (groups of 2+ runs),
 * and, when asked or when there are no groups, each run's own line. A group's mean line
 * stays in the legend while it is still empty (its runs have no common rounds yet).
 * `band`: each group's mean ± std (the default), the 95 % confidence interval of the
 * mean, or none; both as the server sends them, clipped to the metric's domain.
 * @param {Comparison} c @param {{smooth?: number, showRuns?: boolean, band?: "std"|"ci"|"none"}} [o]
 */
export function compareTraces(c, o = {}) {
  const smooth = o.smooth ?? 0;
  /** @type {Map<string, string>} */
  const colorOf = new Map();
  c.groups.forEach((g, i) => colorOf.set(g.name, PALETTE[i % PALETTE.length]));
  /** @type {any[]} */
  const traces = [];
  const showRuns = o.showRuns || !c.groups.length;
  if (showRuns) {
    c.runs.forEach((r, i) => {
      const grouped = colorOf.has(r.group) && c.groups.length > 0;
      const color = colorOf.get(r.group) ?? PALETTE[i % PALETTE.length];
      traces.push({
        type: "scatter",
        mode: "lines",
        x: r.x,
        y: ema(r.y, smooth),
        name: plotText(`#${r.id} ${r.name}`),
        line: { color, width: grouped ? 1 : 1.8 },
        opacity: grouped ? 0.35 : 1,
        legendgroup: grouped ? r.group : `run-${r.id}`,
        showlegend: !grouped,
        meta: { run: r.id },
      });
    });
  }
  for (const g of c.groups) {
    const color = /** @type {string} */ (colorOf.get(g.name));
    const mean = ema(g.mean, smooth);
    const name = g.label || g.name; // the server's label: the page names nothing itself
    if (g.runIds.length > 1 && (o.band ?? "std") !== "none") {
      const ci = o.band === "ci";
      const [low, high] = ci ? [g.ciLow, g.ciHigh] : [g.stdLow, g.stdHigh];
      const poly = between(g.x, ema(low, smooth), ema(high, smooth));
      traces.push({
        type: "scatter",
        mode: "lines",
        ...poly,
        fill: "toself",
        fillcolor: rgba(color, 0.18),
        line: { width: 0, color },
        hoverinfo: "skip",
        showlegend: false,
        legendgroup: g.name,
        name: plotText(`${name} ${ci ? "95 % CI" : "± std"}`),
        meta: { band: g.name },
      });
    }
    traces.push({
      type: "scatter",
      mode: "lines",
      x: g.x,
      y: mean,
      name: plotText(`${name} (n=${g.runIds.length})`),
      line: { color, width: 2.4 },
      legendgroup: g.name,
      meta: { group: g.name },
      visible: g.x.length ? true : "legendonly",
    });
  }
  return traces;
}

/**
 * A reproduction's mean accuracy curves (in %): per method, FedWatch's solid and the
 * official code's dashed, in the same colour; a curve without points yet is left out.
 * @param {import("./api.js").ReproductionRow[]} rows
 */
export function reproductionTraces(rows) {
  /** @type {any[]} */
  const traces = [];
  rows.forEach((r, i) => {
    const color = PALETTE[i % PALETTE.length];
    const curves = [
      ["fedwatch", "FedWatch", r.curve, "solid"],
      ["official", "official code", r.officialCurve, "dash"],
    ];
    for (const [
      source,
      name,
      curve,
      dash,
    ] of /** @type {[string, string, {rounds: number[], acc: number[]}|null, string][]} */ (curves)) {
      if (!curve?.rounds.length) continue;
      traces.push({
        type: "scatter",
        mode: "lines",
        x: curve.rounds,
        y: curve.acc.map((a) => 100 * a),
        name: plotText(`${r.algorithm} · ${name}`),
        line: { color, width: 2, dash },
        legendgroup: r.algorithm,
        meta: { algorithm: r.algorithm, source },
      });
    }
  });
  return traces;
}
