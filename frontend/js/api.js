// Typed client of the FedWatch HTTP API: every response becomes a domain object here, so
// pages never read wire field names.

/**
 * @typedef {string} RunStatus one of `GET /api/meta`'s statuses (statuses.js)
 * @typedef {{
 *   id: number, name: string, status: RunStatus, progress: number, roundsDone: number,
 *   roundsTotal: number, algorithm: string, dataset: string, availability: string,
 *   seed: number|null, experimentId: number|null, notes: string, createdAt: Date|null,
 *   startedAt: Date|null, finishedAt: Date|null, summary: Record<string, any>|null,
 *   error: string|null, worker: string|null, config: Record<string, any>|null,
 *   external: boolean, nClients: number, active: boolean, resumable: boolean, cancelling: boolean, tags: string[],
 *   roundsPerS: number|null, queuePosition: number|null, etaS: number|null,
 *   references: Record<string, Reference[]>, modelBytes: number|null, archived: boolean
 * }} Run roundsPerS: measured speed; queuePosition: 1 = starts next; etaS: seconds to finish (the server's estimate)
 * @typedef {{value: number, label: string}} Reference a value a metric's chart marks
 * @typedef {{dataset: string, fromRoot: boolean, present: boolean, missing: string[], folder: string|null,
 *   downloadAllowed: boolean, advice: string|null, dataRoot: string, rule: string, holding: string[]}} DatasetStatus
 *   a dataset's files on this server (`GET /api/datasets/{name}`): where the data root is, what data.root may be, the folders holding it
 * @typedef {{round: number[], last: (number|null)[], min: (number|null)[], max: (number|null)[]}} Series
 * @typedef {{clients: number[], rounds: number[], values: (number|null)[][]}} Matrix
 * @typedef {{nClients: number, nClasses: number, clients: number[], sizes: number[], testSizes: number[],
 *   counts: number[][], total: number, smallest: number, largest: number, sampled: boolean}} PartitionSummary
 * @typedef {{clients: number, keyLow: number, keyHigh: number, dataShare: number, aggregateShare: number, gap: number}} ParticipationBin
 * @typedef {{rounds: number, availableShare: number[], kept: number[], dropped: number[], stale: number[],
 *   aggregateShare: number[]|null, dataShare: number[], dataKnown: boolean, workS: number[]|null,
 *   participationTv: number|null, byAvailability: ParticipationBin[]|null, byDeviceTime: ParticipationBin[]|null}} Participation
 * @typedef {{clients: number[], times: number[], widthS: number, labels: string[], states: number[][]}} ClientTimeline
 * @typedef {{edges: number[], counts: number[], exact: boolean}} EpsilonHistogram clients by ε, in bins of equal width
 * @typedef {{round: number, delta: number|null, amplified: boolean|null, amplification: string,
 *   epsilonAssumed: number|null, epsilonClientMax: number|null, epsilonClientMedian: number|null,
 *   histogram: EpsilonHistogram|null, noHistogram: string|null}} PrivacyClients a run's per-client ε
 *   clients in simulated time: `states[i][j]` indexes `labels` for the clients from `clients[i]` over [times[j], times[j] + widthS)
 * @typedef {{algorithm: string, set: Record<string, any>, label?: string}} Method a preset's method: its settings (label: its name where a preset runs one algorithm twice)
 * @typedef {{name: string, description: string, compare: string[], methods: Method[],
 *   seeds: number[], variants: Record<string, string[]>, config: Record<string, any>|null,
 *   paper: string, needs: string|null, publishedText: string, source: string, differs: string}} Preset
 * @typedef {{label: string, set: Record<string, any>}} Cell an experiment's explicit cell
 * @typedef {{byStatus: Record<string, number>, roundsDone: number, roundsTotal: number,
 *   roundsPerS: number|null, etaS: number|null}} ExperimentProgress its runs together; etaS: until the last active one ends
 * @typedef {{id: number, name: string, base: Record<string, any>, grid: Record<string, any[]>,
 *   cells: Cell[], seeds: number[], preset: string|null, runIds: number[],
 *   createdAt: Date|null, progress: ExperimentProgress}} Experiment
 * @typedef {{path: string, message: string}} FieldError
 */

const TOKEN_KEY = "fedwatch.token";

export class ApiError extends Error {
  /** @param {number} status @param {string} message @param {FieldError[]} fields */
  constructor(status, message, fields = []) {
    super(message);
    this.status = status;
    this.fields = fields;
  }
}

/** @param {string|null} token */
export function setToken(token) {
  if (token) localStorage.setItem(TOKEN_KEY, token);
  else localStorage.removeItem(TOKEN_KEY);
}

/** @returns {Record<string, string>} */
export function authHeaders() {
  const token = localStorage.getItem(TOKEN_KEY);
  return token ? { Authorization: `Bearer ${token}` } : {};
}

const FIELD_IN_MESSAGE = /^(?:Value error, )?([a-z_][a-z0-9_]*(?:\.[a-z0-9_]+)*): (.+)$/s;
const LOC_ROOTS = ["body", "config", "base"];

/**
 * Turn FastAPI's `detail` into field errors with dotted config paths. Errors raised by a
 * model validator sit at the root and name their field at the start of the message.
 * @param {unknown} detail
 * @returns {FieldError[]}
 */
export function fieldErrors(detail) {
  const items = Array.isArray(detail) ? detail : [{ loc: [], msg: String(detail ?? "") }];
  return items.map((item) => {
    const loc = (item.loc ?? []).map(String);
    while (loc.length && LOC_ROOTS.includes(loc[0])) loc.shift();
    const msg = String(item.msg ?? "");
    const named = FIELD_IN_MESSAGE.exec(msg);
    if (!loc.length && named) return { path: named[1], message: named[2] };
    return { path: loc.join("."), message: msg.replace(/^Value error, /, "") };
  });
}

/** @param {number} status @param {any} body */
function toError(status, body) {
  const detail = body && typeof body === "object" ? body.detail : body;
  const fields = status === 422 || status === 400 ? fieldErrors(detail) : [];
  let message = typeof detail === "string" ? detail : `HTTP ${status}`;
  if (fields.length) message = fields.map((f) => (f.path ? `${f.path}: ${f.message}` : f.message)).join("; ");
  if (status === 401 || status === 403) message = `${message} — this server needs an API token for changes.`;
  return new ApiError(status, message, fields);
}

/** A response body: JSON when it parses, else its text. @param {Response} response */
async function bodyOf(response) {
  const text = await response.text();
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return text;
  }
}

/**
 * Fetch with the stored token; an unreachable server or an error status becomes an ApiError.
 * @param {string} method @param {string} path @param {any} [body] @param {string} [accept]
 * @returns {Promise<Response>}
 */
async function send(method, path, body, accept = "application/json") {
  /** @type {Record<string, string>} */
  const headers = { Accept: accept, ...authHeaders() };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new ApiError(0, `The server cannot be reached (${err instanceof Error ? err.message : err}).`);
  }
  if (!response.ok) throw toError(response.status, await bodyOf(response));
  return response;
}

/**
 * @param {string} method @param {string} path @param {any} [body]
 * @returns {Promise<any>}
 */
async function request(method, path, body) {
  const response = await send(method, path, body);
  return response.status === 204 ? null : bodyOf(response);
}

/**
 * The file name a `Content-Disposition` header gives: `filename*=UTF-8''…` (percent-encoded)
 * before `filename="…"`, as RFC 6266 asks; null without one.
 * @param {string|null} header
 * @returns {string|null}
 */
export function attachmentName(header) {
  if (!header) return null;
  const extended = /filename\*\s*=\s*UTF-8''([^;\s]+)/i.exec(header);
  if (extended) {
    try {
      return decodeURIComponent(extended[1]);
    } catch {
      // malformed percent-encoding: fall back to the plain parameter
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(header);
  if (!plain) return null;
  return plain[1] === undefined ? plain[2] : plain[1].replace(/\\(.)/g, "$1");
}

/** @param {Record<string, any>} params */
function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === "") continue;
    q.set(k, Array.isArray(v) ? v.join(",") : String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : "";
}

/** @param {string|null|undefined} s */
const date = (s) => (s ? new Date(s) : null);

/** @param {any} w @returns {Run} */
export function toRun(w) {
  return {
    id: w.id,
    name: w.name ?? "",
    status: w.status,
    progress: w.progress ?? 0,
    roundsDone: w.rounds_done ?? 0,
    roundsTotal: w.rounds_total ?? 0,
    algorithm: w.algorithm ?? "",
    dataset: w.dataset ?? "",
    availability: w.availability ?? "",
    seed: w.seed ?? null,
    experimentId: w.experiment_id ?? null,
    notes: w.notes ?? "",
    createdAt: date(w.created_at),
    startedAt: date(w.started_at),
    finishedAt: date(w.finished_at),
    summary: w.summary ?? null,
    error: w.error ?? null,
    worker: w.worker ?? null,
    config: w.config ?? null,
    external: w.source === "external",
    nClients: w.n_clients ?? 0,
    active: Boolean(w.active),
    resumable: Boolean(w.resumable),
    cancelling: Boolean(w.active) && Boolean(w.cancel_requested),
    tags: w.tags ?? [],
    archived: Boolean(w.archived),
    roundsPerS: w.rounds_per_s ?? null,
    queuePosition: w.queue_position ?? null,
    etaS: w.eta_s ?? null,
    references: w.references ?? {},
    modelBytes: w.model_bytes ?? null,
  };
}

/** @param {any} w @returns {Experiment} */
function toExperiment(w) {
  return {
    id: w.id,
    name: w.name ?? "",
    base: w.base ?? {},
    grid: w.grid ?? {},
    cells: (w.cells ?? []).map((/** @type {any} */ c) => ({ label: c.label ?? "", set: c.set ?? {} })),
    seeds: w.seeds ?? [],
    preset: w.preset ?? null,
    runIds: w.run_ids ?? [],
    createdAt: date(w.created_at),
    progress: {
      byStatus: w.progress?.by_status ?? {},
      roundsDone: w.progress?.rounds_done ?? 0,
      roundsTotal: w.progress?.rounds_total ?? 0,
      roundsPerS: w.progress?.rounds_per_s ?? null,
      etaS: w.progress?.eta_s ?? null,
    },
  };
}

/** @param {any} w @returns {Preset} */
function toPreset(w) {
  return {
    name: w.name,
    description: w.description ?? "",
    compare: w.compare ?? [],
    methods: (w.methods ?? (w.compare ?? []).map((/** @type {string} */ a) => ({ algorithm: a }))).map(
      (/** @type {any} */ m) => ({ algorithm: m.algorithm, set: m.set ?? {}, label: m.label ?? m.algorithm }),
    ),
    seeds: w.seeds ?? [0],
    variants: w.variants ?? {},
    config: w.config ?? null,
    paper: w.paper ?? "",
    needs: w.needs ?? null,
    publishedText: w.published_text ?? "",
    source: w.source ?? "",
    differs: w.differs ?? "",
  };
}

/**
 * @typedef {{mean: number|null, std: number|null, n: number}} FigureStat fractions
 * @typedef {{algorithm: string, settings: Record<string, any>, fedwatch: Record<string, FigureStat>,
 *   official: Record<string, FigureStat>|null, published: Record<string, number>,
 *   tests: Record<string, {meanDiff: number|null, pValue: number|null}>, curveRmse: number|null,
 *   curve: {rounds: number[], acc: number[]}, officialCurve: {rounds: number[], acc: number[]}|null,
 *   seeds: number[], text: Record<string, {fedwatch: string, official: string, delta: string}>,
 *   rmseText: string}} ReproductionRow
 *   published values in percent, the others fractions; `text`: each figure as the report writes it
 * @typedef {{preset: string, paper: string, rounds: number, definition: string, source: string|null,
 *   runsDone: number, runsTotal: number, rows: ReproductionRow[]}} Reproduction
 */

/** @param {any} c @returns {{rounds: number[], acc: number[]}} */
const toCurve = (c) => ({ rounds: c?.[0] ?? [], acc: c?.[1] ?? [] });

/** @param {any} w @returns {Reproduction} */
export function toReproduction(w) {
  return {
    preset: w.preset ?? "",
    paper: w.paper ?? "",
    rounds: w.rounds ?? 0,
    definition: w.definition ?? "",
    source: w.source ?? null,
    runsDone: w.runs_done ?? 0,
    runsTotal: w.runs_total ?? 0,
    rows: (w.rows ?? []).map((/** @type {any} */ r) => ({
      algorithm: r.algorithm,
      settings: r.settings ?? {},
      fedwatch: r.fedwatch ?? {},
      official: r.official ?? null,
      published: r.published ?? {},
      tests: Object.fromEntries(
        Object.entries(r.tests ?? {}).map(([f, t]) => [
          f,
          { meanDiff: t?.mean_diff ?? null, pValue: t?.p_value ?? null },
        ]),
      ),
      curveRmse: r.curve_rmse ?? null,
      text: r.text ?? {},
      rmseText: r.rmse_text ?? "–",
      curve: toCurve(r.curve),
      officialCurve: r.official_curve ? toCurve(r.official_curve) : null,
      seeds: r.seeds ?? [],
    })),
  };
}

/** @param {any} w @returns {Matrix} */
function toMatrix(w) {
  return { clients: w.clients ?? [], rounds: w.rounds ?? [], values: w.values ?? [] };
}

/**
 * @typedef {{values: string[], epsilon: string[], x: string, y: string, assumed: string|null}} TradeOff
 *   the privacy trade-off's summary values (those two groups record), those in ε, the x and y plotted first,
 *   the assumed ε drawn beside each point
 * @typedef {{mean: number|null, std: number|null, n: number, ciLow: number|null, ciHigh: number|null,
 *   interval: string|null, identical: boolean, text: string|null, ciText: string|null, ciNote: string|null}} Stat
 *   text: mean ± std in the one number format and the catalogue's unit; identical: the same in every run (no
 *   CI; ciNote says so); interval: how the CI was drawn
 * @typedef {{group: string, label: string, n: number, seeds: number[], stats: Record<string, Stat>,
 *   config: Record<string, any[]>, configOnly: Record<string, any[]>}} CompareRow group: its key, label: its name
 *   everywhere; config: per key of `configKeys` its runs have, the group's distinct values; configOnly: the same for the keys
 *   of `configPartial` its runs have
 * @typedef {{kind: "duplicate_seed"|"mixed_configs", group: string, label: string, message: string,
 *   runs: number[], keys: string[]}} GroupWarning a seed's older runs dropped, or a group of mixed configs
 * @typedef {{group: string, reference: string, metric: string, test: string|null, pValue: number|null,
 *   pAdjusted: number|null, pText: string, pAdjustedText: string, diffText: string, nPairs: number, meanDiff: number|null,
 *   ciLow: number|null, ciHigh: number|null, effectSize: number|null, reason: string|null,
 *   direction: "better"|"worse"|"equal"|null, verdict: "better"|"worse"|"n.s."|null,
 *   degenerate: "identical"|"constant"|null}} TTest
 *   verdict: better or worse only where the Holm-corrected p is at most alpha; degenerate: no test because
 *   nothing varies (diffText says the difference)
 * @typedef {{metric: string, x: string,
 *   runs: {id: number, name: string, group: string, label: string, x: number[], y: (number|null)[]}[],
 *   groups: {name: string, label: string, runIds: number[], x: number[], mean: (number|null)[],
 *     std: (number|null)[], stdLow: (number|null)[], stdHigh: (number|null)[], ciLow: (number|null)[],
 *     ciHigh: (number|null)[], waiting: number[]}[], bandClip: string,
 *   columns: string[], machine: string[], headings: Record<string, string>, caption: string, reference: string|null,
 *   referenceLabel: string|null, labels: Record<string, string>, warnings: GroupWarning[], dropped: number[],
 *   headline: string[], columnsLeftOut: string[],
 *   alpha: number, nTests: number, table: CompareRow[], ttests: TTest[], configKeys: string[],
 *   configPartial: string[], tradeoff: TradeOff|null}} Comparison configKeys: the dotted config fields that differ between the
 *   compared runs, each run's config holding the parameters of the components it used only; configPartial:
 *   those some runs have and others lack (configs of different shapes: simulated and external)
 * @typedef {{name: string, label: string, short: string, kind: "round"|"summary", unit: string,
 *   scale: number, panel: string, better: "higher"|"lower"|null, summary: boolean,
 *   compare: boolean, rank: boolean, description: string,
 *   domain: [number|null, number|null], machine: boolean, log: boolean}} MetricSpec domain: the closed
 *   range a value can take before scale (null: unbounded); machine: a figure of the machine;
 *   log: its charts and figures default to a log y axis
 * @typedef {{name: string, title: string, yTitle: string, log: boolean, description: string}} PanelSpec a chart of
 *   the run page; description: the one line that says what it measures (empty: its title says it all)
 * @typedef {{name: string, description: string, stored: boolean, active: boolean, final: boolean,
 *   resumable: boolean}} StatusSpec
 * @typedef {{key: string, word: string, title: string, option: string}} XAxisSpec an x axis of the
 *   charts: key, what the API's `x` and the series call it; word, what a page writes in its own address
 * @typedef {{name: string, label: string}} Choice a value a page offers to pick, with its words
 * @typedef {{name: string, colour: string}} TimelineState a state of the client timeline, with its colour
 * @typedef {{statuses: StatusSpec[], xAxes: XAxisSpec[], alpha: number, groupBy: Choice[], bands: Choice[],
 *   tableFormats: Choice[], figureFormats: Choice[], timelineStates: TimelineState[],
 *   defaultMetrics: Record<string, string>}} Meta what the pages read once (`GET /api/meta`), in display
 *   order: the run statuses (lifecycle order), the x axes, the default α, a comparison's groupings, bands
 *   (the first the default) and files, the timeline's states (by index), each dataset's first metric
 */

/** @param {any} w @returns {Meta} */
function toMeta(w) {
  const choices = (/** @type {any[]} */ list) => list.map((c) => ({ name: String(c.name), label: String(c.label) }));
  return {
    statuses: w.statuses.map((/** @type {any} */ s) => ({
      name: s.name,
      description: s.description ?? "",
      stored: Boolean(s.stored),
      active: Boolean(s.active),
      final: Boolean(s.final),
      resumable: Boolean(s.resumable),
    })),
    xAxes: w.x_axes.map((/** @type {any} */ a) => ({ key: a.key, word: a.word, title: a.title, option: a.option })),
    alpha: Number(w.alpha),
    groupBy: choices(w.group_by),
    bands: choices(w.bands),
    tableFormats: choices(w.table_formats),
    figureFormats: choices(w.figure_formats),
    timelineStates: w.timeline_states.map((/** @type {any} */ t) => ({ name: t.name, colour: t.colour })),
    defaultMetrics: { ...w.default_metrics },
  };
}

/** A group's curve: its mean and bands. @param {any} g @returns {Comparison["groups"][number]} */
function toCompareGroup(g) {
  return {
    name: String(g.name ?? ""),
    label: String(g.label || g.name || ""),
    runIds: g.run_ids ?? [],
    x: g.x ?? [],
    mean: g.mean ?? [],
    std: g.std ?? [],
    stdLow: g.std_low ?? [],
    stdHigh: g.std_high ?? [],
    ciLow: g.ci_low ?? [],
    ciHigh: g.ci_high ?? [],
    waiting: g.waiting ?? [],
  };
}

/** @param {any} row @returns {CompareRow} */
function toCompareRow(row) {
  return {
    group: String(row.group ?? ""),
    label: String(row.label || row.group || ""),
    n: row.n ?? 0,
    seeds: row.seeds ?? [],
    stats: Object.fromEntries(
      Object.entries(row.stats ?? {}).map(([k, /** @type {any} */ s]) => [
        k,
        {
          mean: s.mean ?? null,
          std: s.std ?? null,
          n: s.n ?? 0,
          ciLow: s.ci_low ?? null,
          ciHigh: s.ci_high ?? null,
          interval: s.interval ?? null,
          identical: Boolean(s.identical),
          text: s.text ?? null,
          ciText: s.ci_text ?? null,
          ciNote: s.ci_note ?? null,
        },
      ]),
    ),
    config: row.config ?? {},
    configOnly: row.config_only ?? {},
  };
}

/** @param {any} t @returns {TTest} */
function toTTest(t) {
  return {
    group: String(t.group ?? ""),
    reference: String(t.reference ?? ""),
    metric: t.metric ?? "",
    test: t.test ?? null,
    pValue: t.p_value ?? null,
    pAdjusted: t.p_adjusted ?? null,
    pText: t.p_text ?? "–",
    pAdjustedText: t.p_adjusted_text ?? "–",
    diffText: t.diff_text ?? "–",
    nPairs: t.n_pairs ?? 0,
    meanDiff: t.mean_diff ?? null,
    ciLow: t.ci_low ?? null,
    ciHigh: t.ci_high ?? null,
    effectSize: t.effect_size ?? null,
    reason: t.reason ?? null,
    direction: t.direction ?? null,
    verdict: t.verdict ?? null,
    degenerate: t.degenerate ?? null,
  };
}

/** @param {any} w @returns {Comparison} */
function toComparison(w) {
  return {
    metric: w.metric,
    x: w.x,
    runs: (w.runs ?? []).map((/** @type {any} */ r) => ({
      id: r.id,
      name: r.name ?? "",
      group: String(r.group ?? ""),
      label: String(r.label || r.group || ""),
      x: r.x ?? [],
      y: r.y ?? [],
    })),
    groups: (w.groups ?? []).map(toCompareGroup),
    bandClip: w.band_clip ?? "",
    columns: w.columns ?? [],
    machine: w.machine ?? [],
    headings: w.headings ?? {},
    caption: w.caption ?? "",
    reference: w.reference ?? null,
    referenceLabel: w.reference_label ?? w.reference ?? null,
    labels: w.labels ?? {},
    warnings: (w.warnings ?? []).map((/** @type {any} */ x) => ({
      kind: x.kind,
      group: String(x.group ?? ""),
      label: String(x.label ?? x.group ?? ""),
      message: String(x.message ?? ""),
      runs: x.runs ?? [],
      keys: x.keys ?? [],
    })),
    dropped: w.dropped ?? [],
    headline: w.headline ?? [],
    columnsLeftOut: w.columns_left_out ?? [],
    alpha: w.alpha,
    nTests: w.n_tests ?? 0,
    table: (w.table ?? []).map(toCompareRow),
    configKeys: w.config_keys ?? [],
    configPartial: w.config_partial ?? [],
    ttests: (w.ttests ?? []).map(toTTest),
    tradeoff: w.tradeoff ?? null,
  };
}

/** @param {any} w @returns {MetricSpec} */
function toMetricSpec(w) {
  return {
    name: w.name,
    label: w.label ?? w.name,
    short: w.short ?? "",
    kind: w.kind,
    unit: w.unit ?? "",
    scale: w.scale ?? 1,
    panel: w.panel ?? "other",
    better: w.better ?? null,
    summary: Boolean(w.summary),
    compare: Boolean(w.compare),
    rank: Boolean(w.rank),
    description: w.description ?? "",
    domain: [w.domain?.[0] ?? null, w.domain?.[1] ?? null],
    machine: Boolean(w.machine),
    log: Boolean(w.log),
  };
}

/**
 * @typedef {{runs: number[], metric: string, groupBy: string, x: string, maxPoints?: number,
 *   reference?: string, alpha?: number, labels?: string}} CompareQuery labels: the groups renamed, as
 *   `labels=` takes them ("fedavg:FedAvg (ours),fedlaavg:FedLaAvg")
 */

/** @param {CompareQuery} p */
function compareParams(p) {
  return {
    runs: p.runs,
    metric: p.metric,
    group_by: p.groupBy,
    x: p.x,
    max_points: p.maxPoints ?? 500,
    reference: p.reference,
    alpha: p.alpha,
    labels: p.labels || undefined,
  };
}

export const api = {
  /** @returns {Promise<Record<string, any>>} */
  schema: () => request("GET", "/api/schema/run-config"),
  /** The metric catalogue; pages read it through catalog.js. @returns {Promise<MetricSpec[]>} */
  metricCatalog: async () => (await request("GET", "/api/metrics/catalog")).map(toMetricSpec),
  /** The run page's charts in display order; read through catalog.js. @returns {Promise<PanelSpec[]>} */
  metricPanels: async () =>
    (await request("GET", "/api/metrics/panels")).map((/** @type {any} */ w) => ({
      name: w.name,
      title: w.title,
      yTitle: w.y_title ?? "",
      log: Boolean(w.log),
      description: w.description ?? "",
    })),
  /** What the pages read once (the statuses, the x axes, the comparison's choices…); read through meta.js. @returns {Promise<Meta>} */
  meta: async () => toMeta(await request("GET", "/api/meta")),
  /**
   * Whether a dataset's files are on this server, where they must go and what works here.
   * @param {string} name @param {string} root `data.root`
   * @returns {Promise<DatasetStatus>}
   */
  dataset: async (name, root) => {
    const w = await request("GET", `/api/datasets/${encodeURIComponent(name)}${query({ root })}`);
    return {
      dataset: w.dataset,
      fromRoot: Boolean(w.from_root),
      present: Boolean(w.present),
      missing: w.missing ?? [],
      folder: w.folder ?? null,
      downloadAllowed: Boolean(w.download_allowed),
      advice: w.advice ?? null,
      dataRoot: String(w.data_root ?? ""),
      rule: String(w.rule ?? ""),
      holding: w.holding ?? [],
    };
  },
  /** @returns {Promise<Preset[]>} */
  presets: async () => (await request("GET", "/api/presets")).map(toPreset),
  /** @param {string} name @returns {Promise<Preset>} */
  preset: async (name) => toPreset(await request("GET", `/api/presets/${encodeURIComponent(name)}`)),

  /**
   * @param {{status?: string, algorithm?: string, experimentId?: number|string|null, q?: string,
   *   rankBy?: string, tag?: string, order?: "newest"|"activity", archived?: string, limit?: number, offset?: number}} f
   * @returns {Promise<{runs: Run[], count: number}>}
   */
  listRuns: async (f = {}) => {
    const params = {
      status: f.status,
      algorithm: f.algorithm,
      experiment_id: f.experimentId,
      q: f.q,
      rank_by: f.rankBy,
      tag: f.tag,
      order: f.order,
      archived: f.archived,
      limit: f.limit ?? 50,
      offset: f.offset ?? 0,
    };
    const body = await request("GET", `/api/runs${query(params)}`);
    return { runs: body.data.map(toRun), count: body.count };
  },
  /** @param {number} id @returns {Promise<Run>} */
  run: async (id) => toRun(await request("GET", `/api/runs/${id}`)),
  /** @param {Record<string, any>} config @param {string} notes @returns {Promise<Run>} */
  createRun: async (config, notes) => toRun(await request("POST", "/api/runs", { config, notes })),
  /**
   * Rename a run, or replace its notes or tags (fields left out stay).
   * @param {number} id @param {{name?: string, notes?: string, tags?: string[]}} changes
   * @returns {Promise<Run>}
   */
  editRun: async (id, changes) => toRun(await request("PATCH", `/api/runs/${id}`, changes)),
  /** @param {number} id @returns {Promise<Run>} */
  cancelRun: async (id) => toRun(await request("POST", `/api/runs/${id}/cancel`)),
  /** Queue a failed or cancelled run again, from its last checkpoint. @param {number} id @returns {Promise<Run>} */
  resumeRun: async (id) => toRun(await request("POST", `/api/runs/${id}/resume`)),
  /** @param {number} id */
  deleteRun: (id) => request("DELETE", `/api/runs/${id}`),
  /**
   * One action on many runs, in one transaction: delete, archive, unarchive, tag or untag.
   * @param {number[]} ids @param {"delete"|"archive"|"unarchive"|"tag"|"untag"} action @param {string} [tag]
   * @returns {Promise<{done: number[], missing: number[]}>}
   */
  bulk: async (ids, action, tag) => {
    const body = await request("POST", "/api/runs/bulk", { ids, action, tag });
    return { done: body.done ?? [], missing: body.missing ?? [] };
  },
  /** Delete an experiment and all its runs. @param {number} id */
  deleteExperiment: (id) => request("DELETE", `/api/experiments/${id}`),

  /**
   * @param {number} id
   * @param {{names?: string[], start?: number, end?: number, maxPoints?: number}} [opts]
   * @returns {Promise<Map<string, Series>>}
   */
  metrics: async (id, opts = {}) => {
    const params = { names: opts.names, start: opts.start, end: opts.end, max_points: opts.maxPoints ?? 1000 };
    const body = await request("GET", `/api/runs/${id}/metrics${query(params)}`);
    return new Map(Object.entries(body.series ?? {}));
  },
  /**
   * @param {number} id @param {"availability"|"selection"|"staleness"} kind
   * @param {{maxClients?: number, maxRounds?: number}} [opts]
   * @returns {Promise<Matrix>}
   */
  matrix: async (id, kind, opts = {}) =>
    toMatrix(
      await request(
        "GET",
        `/api/runs/${id}/${kind}${query({ max_clients: opts.maxClients ?? 200, max_rounds: opts.maxRounds ?? 500 })}`,
      ),
    ),
  /**
   * The exact staleness distribution: cells (client, round) per bin of `width` rounds;
   * `unit` says what a round is: a round, or in an async run a server update (versions).
   * @param {number} id
   * @returns {Promise<{unit: "rounds"|"versions", rounds: number, cells: number, width: number, starts: number[], counts: number[], mean: number|null, max: number|null}>}
   */
  stalenessDistribution: (id) => request("GET", `/api/runs/${id}/staleness/distribution${query({ max_bins: 100 })}`),
  /**
   * Per client: its share of rounds available, device time, kept, dropped and stale
   * updates, and its shares of the aggregate and of the data; the run's participation
   * bias, overall and by fifths of availability and of device time.
   * @param {number} id
   * @returns {Promise<Participation>}
   */
  participation: async (id) => toParticipation(await request("GET", `/api/runs/${id}/participation`)),
  /**
   * The run's partition: each client's train and test samples and its train samples of
   * each class (every client up to 1000, an evenly spaced sample above).
   * @param {number} id
   * @returns {Promise<PartitionSummary>}
   */
  partition: async (id) => toPartition(await request("GET", `/api/runs/${id}/partition`)),
  /**
   * The partition a run of `config` would make, before it is launched.
   * @param {Record<string, any>} config
   * @returns {Promise<PartitionSummary>}
   */
  previewPartition: async (config) => toPartition(await request("POST", "/api/partition", { config })),
  /**
   * Clients in simulated time, downsampled (empty for a run without a system model).
   * @param {number} id @param {{maxClients?: number, maxBuckets?: number}} [opts]
   * @returns {Promise<ClientTimeline>}
   */
  timeline: async (id, opts = {}) => {
    const w = await request(
      "GET",
      `/api/runs/${id}/timeline${query({ max_clients: opts.maxClients ?? 100, max_buckets: opts.maxBuckets ?? 400 })}`,
    );
    return { clients: w.clients, times: w.times, widthS: w.width_s, labels: w.labels, states: w.states };
  },
  /** @param {number} id @returns {Promise<{round: number|null, values: (number|null)[]}>} */
  clientAccuracy: async (id) => {
    const body = await request("GET", `/api/runs/${id}/client-accuracy`);
    return { round: body.round ?? null, values: body.values ?? [] };
  },
  /**
   * The distribution of ε over the run's clients after its latest round, with its three
   * figures and why each client's ε is amplified or not.
   * @param {number} id
   * @returns {Promise<PrivacyClients>}
   */
  privacyClients: async (id) => {
    const b = await request("GET", `/api/runs/${id}/privacy/clients`);
    return {
      round: b.round,
      delta: b.delta,
      amplified: b.amplified,
      amplification: b.amplification,
      epsilonAssumed: b.epsilon_assumed,
      epsilonClientMax: b.epsilon_client_max,
      epsilonClientMedian: b.epsilon_client_median,
      histogram: b.histogram,
      noHistogram: b.no_histogram,
    };
  },
  /** @param {number} id */
  eventsUrl: (id) => `/api/runs/${id}/events`,
  /**
   * A file the API answers with (an export, a table, a figure, a model), fetched with the
   * token (a plain link could not carry it), and the file name the server gives it.
   * @param {string} path @param {string} [accept] @returns {Promise<{blob: Blob, filename: string}>}
   */
  download: async (path, accept = "*/*") => {
    const response = await send("GET", path, undefined, accept);
    const bare = path.split("?")[0];
    const filename =
      attachmentName(response.headers.get("Content-Disposition")) ?? bare.slice(bare.lastIndexOf("/") + 1);
    return { blob: await response.blob(), filename };
  },

  /** @returns {Promise<Experiment[]>} */
  experiments: async () => (await request("GET", "/api/experiments")).data.map(toExperiment),
  /** @param {number} id @returns {Promise<Experiment>} */
  experiment: async (id) => toExperiment(await request("GET", `/api/experiments/${id}`)),
  /**
   * @param {{name: string, base: Record<string, any>, grid: Record<string, any[]>, cells?: Cell[], seeds: number[]}} spec
   * @returns {Promise<Experiment>}
   */
  createExperiment: async (spec) => toExperiment(await request("POST", "/api/experiments", spec)),
  /**
   * Tune each method of a preset with the same budget (POST /api/tunes); a 422 names the key.
   * @param {{preset: string, methods: string[], space: string[], trials: number, seeds: number,
   *   sampler: string, pruner: string, objective: string, set: string[]}} spec
   * @returns {Promise<{id: number}>}
   */
  createTune: async (spec) => request("POST", "/api/tunes", spec),
  /**
   * Run a paper preset's methods over its seeds (or `seeds`), as an experiment with a report.
   * @param {string} name @param {{variant?: string, seeds?: number[], root?: string}} [opts] root: data.root of every run
   * @returns {Promise<Experiment>}
   */
  reproduce: async (name, opts = {}) =>
    toExperiment(
      await request("POST", `/api/presets/${encodeURIComponent(name)}/reproduce`, {
        variant: opts.variant || undefined,
        seeds: opts.seeds,
        root: opts.root || undefined,
      }),
    ),
  /** The reproduction report of an experiment so far. @param {number} id @returns {Promise<Reproduction>} */
  reproduction: async (id) => toReproduction(await request("GET", `/api/experiments/${id}/reproduction`)),

  /**
   * @param {CompareQuery} p
   * @returns {Promise<Comparison>}
   */
  compare: async (p) => toComparison(await request("GET", `/api/compare${query(compareParams(p))}`)),
  /**
   * The path of the comparison's table as a file (a format of `Meta.tableFormats`).
   * @param {CompareQuery} p @param {string} format
   */
  comparePath: (p, format) => `/api/compare${query({ ...compareParams(p), max_points: undefined, format })}`,
  /**
   * The path of the comparison's figure as a file (a format of `Meta.figureFormats`).
   * @param {CompareQuery} p @param {string} format @param {{band?: string, width?: string, log?: boolean}} [figure]
   */
  compareFigurePath: (p, format, figure) =>
    `/api/compare/figure.${format}${query({ ...compareParams(p), max_points: undefined, alpha: undefined, reference: undefined, band: figure?.band, width: figure?.width, log: figure?.log ? "true" : undefined })}`,
};

/** @param {any} b @returns {ParticipationBin[]|null} */
function toBins(b) {
  return b
    ? b.map((/** @type {any} */ x) => ({
        clients: x.clients,
        keyLow: x.key_low,
        keyHigh: x.key_high,
        dataShare: x.data_share,
        aggregateShare: x.aggregate_share,
        gap: x.gap,
      }))
    : null;
}

/** @param {any} b @returns {Participation} */
export function toParticipation(b) {
  return {
    rounds: b.rounds,
    availableShare: b.available_share,
    kept: b.kept,
    dropped: b.dropped,
    stale: b.stale,
    aggregateShare: b.aggregate_share ?? null,
    dataShare: b.data_share,
    dataKnown: Boolean(b.data_known),
    workS: b.work_s ?? null,
    participationTv: b.participation_tv ?? null,
    byAvailability: toBins(b.by_availability),
    byDeviceTime: toBins(b.by_device_time),
  };
}

/** @param {any} b @returns {PartitionSummary} */
export function toPartition(b) {
  return {
    nClients: b.n_clients,
    nClasses: b.n_classes,
    clients: b.clients,
    sizes: b.sizes,
    testSizes: b.test_sizes,
    counts: b.counts,
    total: b.total,
    smallest: b.smallest,
    largest: b.largest,
    sampled: Boolean(b.sampled),
  };
}
