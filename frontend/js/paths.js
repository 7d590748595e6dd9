// Dotted paths into config objects ("algorithm.fedar.rho"), as the CLI and sweeps use them.

/** @param {Record<string, any>} obj @param {string} path */
export function getPath(obj, path) {
  /** @type {any} */
  let cur = obj;
  for (const key of path.split(".")) {
    if (cur === null || typeof cur !== "object" || !(key in cur)) return undefined;
    cur = cur[key];
  }
  return cur;
}

/**
 * Set the dotted `path` of `obj` to `value`, in place: a missing or null section on the
 * way is created; any other value on the way throws. The rules, shared with the server's
 * `worker/engine/overrides.py`, are the cases of `tests/cases/dotted_paths.json`.
 * @param {Record<string, any>} obj @param {string} path @param {any} value
 */
export function setPath(obj, path, value) {
  const keys = path.split(".");
  /** @type {any} */
  let cur = obj;
  keys.slice(0, -1).forEach((key, i) => {
    if (cur[key] === undefined || cur[key] === null) cur[key] = {};
    if (typeof cur[key] !== "object" || Array.isArray(cur[key]))
      throw new Error(`${keys.slice(0, i + 1).join(".")}: is a value, not a section`);
    cur = cur[key];
  });
  cur[keys[keys.length - 1]] = value;
}

/**
 * A copy of `config` with "a.b=value" assignments applied in order (values parsed as JSON
 * where they can be, else kept as text), like a preset variant or `--set`. Throws on an
 * assignment that is no `dotted.key=value`, or a path through a value.
 * @param {Record<string, any>} config @param {string[]} assignments
 */
export function applyAssignments(config, assignments) {
  const out = structuredClone(config);
  for (const a of assignments) {
    const eq = a.indexOf("=");
    const key = a.slice(0, Math.max(eq, 0)).trim();
    if (eq < 0 || key.split(".").includes("")) throw new Error(`${JSON.stringify(a)}: expected dotted.key=value`);
    const raw = a.slice(eq + 1).trim();
    let value;
    try {
      value = JSON.parse(raw);
    } catch {
      value = raw;
    }
    setPath(out, key, value);
  }
  return out;
}

/**
 * The leaves of a config by dotted path (arrays are leaves).
 * @param {Record<string, any>} obj @param {string} [prefix] @returns {Record<string, any>}
 */
export function leaves(obj, prefix = "") {
  /** @type {Record<string, any>} */
  const out = {};
  for (const [key, value] of Object.entries(obj ?? {})) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) Object.assign(out, leaves(value, path));
    else out[path] = value;
  }
  return out;
}
