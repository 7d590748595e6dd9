// Names of runs started from a preset: three runs of `example1` should not all read
// "example1".
import { leaves } from "./paths.js";

/**
 * "preset · algorithm · key=value …": the preset (and variant), the algorithm, then every
 * field whose value differs from the preset's, at most 200 characters (the API's limit).
 * @param {string} label the preset's name, with its variant if one was applied
 * @param {Record<string, any>} preset the preset's config @param {Record<string, any>} config
 */
export function runName(label, preset, config) {
  const before = leaves(preset);
  const changed = Object.entries(leaves(config))
    .filter(
      ([path, value]) =>
        path !== "name" && path !== "algorithm.name" && JSON.stringify(value) !== JSON.stringify(before[path]),
    )
    .map(([path, value]) => `${path}=${Array.isArray(value) ? value.join(",") : value}`);
  return [label, config.algorithm?.name, ...changed].filter(Boolean).join(" · ").slice(0, 200);
}
