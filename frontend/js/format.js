// Number, date and label formatting shared by the pages.

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

/** Human label of a metric or summary key. @param {string} key */
export function label(key) {
  return LABELS[key] ?? key.replaceAll("_", " ");
}

/** @type {Record<string, string>} */
const LABELS = {
  test_acc: "test accuracy",
  test_loss: "test loss",
  train_loss: "train loss",
  n_available: "available clients",
  n_selected: "selected clients",
  staleness_mean: "staleness mean",
  staleness_p50: "staleness median",
  staleness_p90: "staleness p90",
  staleness_max: "staleness max",
  tv_bias: "TV(α, p) this round",
  tv_bias_avg: "TV(α, p̄) running average",
  client_acc_mean: "client accuracy mean",
  client_acc_var: "client accuracy variance",
  client_acc_worst10: "worst 10 % clients",
  client_acc_best10: "best 10 % clients",
  param: "parameter x",
  opt_gap: "optimality gap (x − x*)²",
  wall_s: "wall time (s)",
  best_test_acc: "best accuracy",
  final_test_acc: "final accuracy",
  time_avg_test_acc: "time-average accuracy",
  std_test_acc_second_half: "std, second half",
  rounds_to_target: "rounds to target",
  final_test_loss: "final test loss",
  rounds_done: "rounds done",
  client_updates_per_s: "client updates / s",
  final_param: "final x",
  final_opt_gap: "final gap (x − x*)²",
};

/** The headline result of a run summary, for tables. @param {Record<string, any>|null} s */
export function headline(s) {
  if (!s) return "—";
  if (s.best_test_acc !== null && s.best_test_acc !== undefined) return `best acc ${num(s.best_test_acc, 3)}`;
  if (s.final_opt_gap !== null && s.final_opt_gap !== undefined) return `gap ${num(s.final_opt_gap, 3)}`;
  if (s.final_test_loss !== null && s.final_test_loss !== undefined) return `loss ${num(s.final_test_loss, 3)}`;
  return "—";
}
