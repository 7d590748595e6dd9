// Validation errors in plain words: pydantic's messages reworded, a sweep's repeated
// errors (one per seed) said once, and the sweep's own text fields (seeds, values)
// checked as they are typed.

/** @typedef {import("./api.js").FieldError} FieldError */

/** The largest seed the engine takes (worker/engine/sections.py MAX_SEED). */
export const MAX_SEED = 2 ** 31 - 1;
export const MAX_SEEDS = 100;

/** @type {[RegExp, string][]} pydantic's messages, and what a form says instead */
const PLAIN = [
  [/^Input should be a valid number, unable to parse string as a number$/, "not a number"],
  [/^Input should be a valid integer, unable to parse string as an integer$/, "not a whole number"],
  [/^Input should be a valid integer, got a number with a fractional part$/, "must be a whole number"],
  [/^Input should be a valid integer$/, "must be a whole number"],
  [/^Input should be a valid number$/, "must be a number"],
  [/^Input should be a valid boolean.*$/, "must be true or false"],
  [/^Input should be a valid list$/, "must be a list of values"],
  [/^Input should be a finite number$/, "must be a finite number"],
  [/^Input should be greater than or equal to (.+)$/, "must be at least $1"],
  [/^Input should be greater than (.+)$/, "must be greater than $1"],
  [/^Input should be less than or equal to (.+)$/, "must be at most $1"],
  [/^Input should be less than (.+)$/, "must be less than $1"],
  [/^Input should be (.+)$/, "must be $1"],
  [/^String should have at most (\d+) characters?$/, "at most $1 characters"],
  [/^String should have at least (\d+) characters?$/, "at least $1 characters"],
  [/^List should have at most (\d+) items? after validation, not \d+$/, "at most $1 values"],
  [/^List should have at least (\d+) items? after validation, not \d+$/, "at least $1 values"],
  [/^Extra inputs are not permitted$/, "not a setting here"],
  [/^Field required$/, "required"],
];

/** A validation message in plain words. @param {string} message */
export function plainMessage(message) {
  for (const [pattern, words] of PLAIN) if (pattern.test(message)) return message.replace(pattern, words);
  return message;
}

/**
 * A sweep's errors in plain words, each said once per field. The server checks every run
 * of a sweep and starts each error with the run's cell and seed ("client.lr=0.1, seed=3:
 * "): the seed is dropped, and the cell too when every one of the sweep's `cells` has the
 * same error (an error of the base config), so that it is said once.
 * @param {FieldError[]} errors @param {number} [cells] the sweep's cells (runs per seed)
 * @returns {FieldError[]}
 */
export function sweepMessages(errors, cells = 1) {
  /** @type {Map<string, Map<string, Set<string>>>} path -> message -> cells saying it */
  const byPath = new Map();
  for (const e of errors) {
    const m = /^(?:(.*?), )?seed=\d+: ([\s\S]*)$/.exec(e.message);
    const text = plainMessage(m ? m[2] : e.message);
    const messages = byPath.get(e.path) ?? new Map();
    messages.set(text, (messages.get(text) ?? new Set()).add(m?.[1] ?? ""));
    byPath.set(e.path, messages);
  }
  return [...byPath].map(([path, messages]) => {
    const said = [...messages].flatMap(([text, labels]) =>
      labels.has("") || labels.size >= cells ? [text] : [...labels].map((label) => `${label}: ${text}`),
    );
    return { path, message: said.join("; ") };
  });
}

/**
 * "0, 1, x" as a field of `kind` takes it: its values, and what is wrong with the text.
 * @param {string} text @param {string} kind "int", "number" or anything else (text)
 * @returns {{values: any[], problem: string|null}}
 */
export function checkValues(text, kind) {
  const items = text
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  if (!items.length) return { values: [], problem: "give at least one value" };
  if (kind !== "int" && kind !== "number") return { values: items, problem: null };
  /** @type {number[]} */
  const values = [];
  for (const item of items) {
    const v = Number(item);
    const whole = kind === "int";
    if (!Number.isFinite(v) || (whole && !Number.isInteger(v)))
      return { values, problem: `"${item}" is not a ${whole ? "whole " : ""}number` };
    values.push(v);
  }
  return { values, problem: null };
}

/** The seeds of a sweep, and what is wrong with them. @param {string} text */
export function checkSeeds(text) {
  const { values, problem } = checkValues(text, "int");
  if (problem) return { values, problem: problem === "give at least one value" ? "give at least one seed" : problem };
  const out = values.find((v) => v < 0 || v > MAX_SEED);
  if (out !== undefined) return { values, problem: `${out} is not a seed (0 to ${MAX_SEED})` };
  if (values.length > MAX_SEEDS) return { values, problem: `at most ${MAX_SEEDS} seeds` };
  return { values, problem: null };
}
