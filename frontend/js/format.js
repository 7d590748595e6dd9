// Number, date and label formatting shared by the pages.
import { specOf } from "./catalog.js";

/** @param {number|null|undefined} x @param {number} [digits] */
export function num(x, digits = 4) {
  if (x === null || x === undefined || Number.isNaN(x)) return "—";
  if (x === 0) return "0";
  const abs = Math.abs(x);
  if (abs >= 1e5 || abs < 1e-3) return x.toExponential(2);
  return Number(x.toPrecision(digits)).toString();
}

/** @param {{mean: number|null, std: number|null}|null|undefined} stat */
export function meanStd(stat) {
  if (!stat || stat.mean === null || stat.mean === undefined) return "—";
  return stat.std === null || stat.std === undefined ? num(stat.mean) : `${num(stat.mean, 3)} ± ${num(stat.std, 2)}`;
}

/** @param {number|null} p */
export function pValue(p) {
  if (p === null || p === undefined || Number.isNaN(p)) return "—";
  return p < 1e-4 ? "p < 0.0001" : `p = ${p.toFixed(4)}`;
}

/** @param {Date|null} d */
export function when(d) {
  if (!d) return "—";
  return d.toLocaleString(undefined, { dateStyle: "short", timeStyle: "medium" });
}

/** @param {number|null|undefined} s seconds */
export function duration(s) {
  if (s === null || s === undefined) return "—";
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${Math.round(s % 60)} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** Human label of a metric or summary key, from the catalogue (catalog.js). @param {string} key */
export function label(key) {
  return specOf(key)?.label ?? key.replaceAll("_", " ");
}

/** Compact label of a metric for table headings. @param {string} key */
export function heading(key) {
  return specOf(key)?.short || label(key);
}

/** The headline result of a run summary, for tables. @param {Record<string, any>|null} s */
export function headline(s) {
  if (!s) return "—";
  if (s.best_test_acc !== null && s.best_test_acc !== undefined) return `best acc ${num(s.best_test_acc, 3)}`;
  if (s.final_opt_gap !== null && s.final_opt_gap !== undefined) return `gap ${num(s.final_opt_gap, 3)}`;
  if (s.final_test_loss !== null && s.final_test_loss !== undefined) return `loss ${num(s.final_test_loss, 3)}`;
  return "—";
}

/** A fraction in percent with 2 decimals, "–" when absent. @param {number|null|undefined} x */
export function percent(x) {
  return x === null || x === undefined || Number.isNaN(x) ? "–" : (100 * x).toFixed(2);
}

/** "71.79 ± 0.42 (n=3)", as the reproduction report writes a figure. @param {{mean: number|null, std: number|null, n: number}|null|undefined} stat */
export function percentStat(stat) {
  if (!stat || stat.mean === null || stat.mean === undefined) return "–";
  const std = stat.std === null || stat.std === undefined ? "" : ` ± ${percent(stat.std)}`;
  return `${percent(stat.mean)}${std} (n=${stat.n})`;
}

/** "+0.41 (p=0.53)": a difference of fractions in percentage points, with its p-value. @param {{meanDiff: number|null, pValue: number|null}|undefined} t */
export function percentDelta(t) {
  if (!t || t.meanDiff === null) return "–";
  const sign = t.meanDiff >= 0 ? "+" : "";
  const p = t.pValue === null ? "" : ` (p=${t.pValue < 1e-4 ? t.pValue.toExponential(1) : Number(t.pValue.toPrecision(2))})`;
  return `${sign}${percent(t.meanDiff)}${p}`;
}
