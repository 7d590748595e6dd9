// A tune as the page reads it (`GET /api/tunes/{id}`), wire names turned into the
// page's: pure, so node --test checks it.
import { ApiError, authHeaders } from "../../api.js";

/**
 * @typedef {{method: string, number: number, state: string, value: number|null,
 *   params: Record<string, any>, runId: number|null, intermediate: [number, number][],
 *   prunedAtRound: number|null, error: string|null}} Trial
 * @typedef {{method: string, budget: number, complete: number, pruned: number,
 *   failed: number, running: number, bestValue: number|null,
 *   bestParams: Record<string, any>|null, short: boolean}} Progress
 * @typedef {{label: string, values: any[]}} Axis
 * @typedef {{id: number, name: string, status: string, experimentId: number|null,
 *   objective: string, direction: "maximize"|"minimize", keys: string[], protocol: string,
 *   flags: string[],
 *   progress: Progress[], trials: Trial[], importances: Record<string, Record<string, number>>,
 *   parallel: Record<string, Axis[]>}} Tune
 */

/** @param {any} w @returns {Tune} */
export function toTune(w) {
  return {
    id: w.id,
    name: w.name,
    status: w.status,
    experimentId: w.experiment_id ?? null,
    objective: w.spec.objective,
    direction: w.direction,
    keys: w.spec.space.map((/** @type {string} */ s) => s.split("=")[0]),
    protocol: w.protocol,
    flags: w.flags ?? [],
    progress: w.progress.map((/** @type {any} */ p) => ({
      method: p.method,
      budget: p.budget,
      complete: p.complete,
      pruned: p.pruned,
      failed: p.failed,
      running: p.running,
      bestValue: p.best_value ?? null,
      bestParams: p.best_params ?? null,
      short: Boolean(p.short),
    })),
    trials: w.trials.map((/** @type {any} */ t) => ({
      method: t.method,
      number: t.number,
      state: t.state,
      value: t.value ?? null,
      params: t.params,
      runId: t.run_id ?? null,
      intermediate: Object.entries(t.intermediate)
        .map(([r, v]) => /** @type {[number, number]} */ ([Number(r), Number(v)]))
        .sort((a, b) => a[0] - b[0]),
      prunedAtRound: t.pruned_at_round ?? null,
      error: t.error ?? null,
    })),
    importances: w.importances,
    parallel: w.parallel,
  };
}

/** @param {number} id @returns {Promise<Tune>} */
export async function fetchTune(id) {
  const response = await fetch(`/api/tunes/${id}`, { headers: authHeaders() });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, String(body.detail ?? response.statusText));
  return toTune(body);
}
