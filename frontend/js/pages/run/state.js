// The run page's address (#/runs/7?x=wall&logy=1: the curves' x axis, by the word the
// server gives it, and a log y axis) and the facts of a run it decides by. Pure: tested by
// node --test.

/** @typedef {import("../../api.js").Run} Run */
/** @typedef {import("../../api.js").XAxisSpec} XAxis the server's (`GET /api/meta`) */

/**
 * Whether a run keeps a simulated clock (a system model, or simulated time recorded).
 * @param {Run} run @param {{has: (name: string) => boolean}} series the names of the metrics it recorded
 */
export function timed(run, series) {
  return (run.config?.system?.kind ?? "none") !== "none" || series.has("sim_time_s");
}

/** The x axes a run's curves can take: simulated time only where it keeps a clock. @param {XAxis[]} axes @param {boolean} clock */
export function axesFor(axes, clock) {
  return axes.filter((a) => a.key !== "sim_time_s" || clock);
}

/**
 * The x axis an address asks for, by its word (`wall`, `sim`) or its key (`wall_s`,
 * `sim_time_s`, as older addresses wrote it); the round where it asks for none or one the
 * run does not have.
 * @param {XAxis[]} axes @param {string|null} asked @returns {string} the axis's key
 */
export function xKeyFor(axes, asked) {
  return axes.find((a) => a.key !== "round" && (asked === a.word || asked === a.key))?.key ?? "round";
}

/**
 * The address's query of the curves' choices: the x axis by its word (none for the round),
 * and the log y axis.
 * @param {XAxis[]} axes @param {string} xKey @param {boolean} logY
 */
export function curvesQuery(axes, xKey, logY) {
  return { x: xKey === "round" ? "" : (axes.find((a) => a.key === xKey)?.word ?? ""), logy: logY ? "1" : "" };
}

/** Whether the run failed before recording a round: nothing to chart, its error to read. @param {Run} run */
export function failedEarly(run) {
  return run.status === "failed" && run.roundsDone === 0;
}

/**
 * The summary values to show: the catalogue's in its order, then those it does not know (a
 * summary written by external code). A row says something: a number, but not the rounds
 * done where the head shows them already, or a flag that is set (`stopped: false` is not
 * shown).
 * @param {Record<string, any>} summary @param {{name: string, kind: string}[]} catalogue
 * @param {number} roundsDone as the head shows it
 * @returns {[string, number|boolean][]}
 */
export function summaryRows(summary, catalogue, roundsDone) {
  const known = new Set(catalogue.map((m) => m.name));
  const names = [
    ...catalogue.filter((m) => m.kind === "summary").map((m) => m.name),
    ...Object.keys(summary).filter((k) => !known.has(k)),
  ];
  /** @param {string} k @param {any} v */
  const informative = (k, v) => {
    if (k === "rounds_done") return v !== roundsDone;
    return v === true || (typeof v === "number" && Number.isFinite(v));
  };
  return names.filter((k) => informative(k, summary[k])).map((k) => [k, summary[k]]);
}

/**
 * A run's config as it matters to the run: no unset (null) values, and in each section only
 * the parameters of the component it selects (`algorithm.fedavg` of `algorithm.name =
 * fedavg`; the schema gives every registered component its sub-object).
 * @param {Record<string, any>} config @returns {Record<string, any>}
 */
export function essentialConfig(config) {
  /** @param {any} v @returns {any} */
  const pruned = (v) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    return Object.fromEntries(
      Object.entries(v)
        .filter(([, x]) => x !== null)
        .map(([k, x]) => [k, pruned(x)]),
    );
  };
  return Object.fromEntries(
    Object.entries(config)
      .filter(([, v]) => v !== null)
      .map(([key, section]) => {
        if (section === null || typeof section !== "object" || Array.isArray(section)) return [key, section];
        const chosen = new Set(Object.values(section).filter((v) => typeof v === "string"));
        const kept = Object.entries(section).filter(
          ([k, v]) => v !== null && (typeof v !== "object" || Array.isArray(v) || chosen.has(k)),
        );
        return [key, pruned(Object.fromEntries(kept))];
      }),
  );
}
