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

/** A run's seed; "—" for an external run that named none. @param {number|null} seed */
export function seedText(seed) {
  return seed === null ? "—" : String(seed);
}

/** @param {Date|null} d */
export function when(d) {
  if (!d) return "—";
  return d.toLocaleString(undefined, { dateStyle: "short", timeStyle: "medium" });
}

/**
 * A compact date for tables: the time for today ("22:59"), the day otherwise ("Nov 25");
 * the full one on hover (`when`).
 * @param {Date|null} d @param {Date} [now]
 */
export function shortWhen(d, now = new Date()) {
  if (!d) return "—";
  if (d.toDateString() === now.toDateString()) {
    return d.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  }
  const year = d.getFullYear() === now.getFullYear() ? undefined : "numeric";
  return d.toLocaleDateString(undefined, { month: "short", day: "numeric", year });
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
