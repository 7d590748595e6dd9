// Group statistics of run summaries, for summary keys the compare endpoint does not aggregate.

/**
 * Mean and sample standard deviation (n − 1) of the finite values; std is null below two values.
 * @param {(number|null|undefined)[]} values
 * @returns {{mean: number|null, std: number|null}}
 */
export function meanStd(values) {
  const xs = values.filter((v) => typeof v === "number" && Number.isFinite(v));
  if (!xs.length) return { mean: null, std: null };
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  if (xs.length < 2) return { mean, std: null };
  const ss = xs.reduce((a, b) => a + (b - mean) ** 2, 0);
  return { mean, std: Math.sqrt(ss / (xs.length - 1)) };
}

/**
 * Per group, mean ± std of each summary key in `keys` over the group's runs.
 * @param {{id: number, group: string}[]} members run → group
 * @param {Map<number, Record<string, any>|null>} summaries run id → summary
 * @param {string[]} keys
 * @returns {Map<string, Record<string, {mean: number|null, std: number|null}>>}
 */
export function groupSummaries(members, summaries, keys) {
  /** @type {Map<string, number[]>} */
  const byGroup = new Map();
  for (const m of members) byGroup.set(m.group, [...(byGroup.get(m.group) ?? []), m.id]);
  const out = new Map();
  for (const [group, ids] of byGroup) {
    /** @type {Record<string, {mean: number|null, std: number|null}>} */
    const stats = {};
    for (const key of keys) stats[key] = meanStd(ids.map((id) => summaries.get(id)?.[key]));
    out.set(group, stats);
  }
  return out;
}
