// Where an active run stands, as the server estimates it (db/standing.py computes the
// speeds, queue positions and ETAs in one place): the words the pages show for it.
import { h } from "./dom.js";
import { duration, num } from "./format.js";

/** @typedef {import("./api.js").Run} Run */

/** "3 min 20 s", or "–" while the speeds it rests on are not measured. @param {number|null|undefined} seconds */
export function etaText(seconds) {
  return seconds === null || seconds === undefined ? "–" : duration(seconds);
}

/** "12.5 rounds/s", or "–" before any round was timed. @param {number|null|undefined} speed */
export function speedText(speed) {
  return speed === null || speed === undefined ? "–" : `${num(speed, 3)} rounds/s`;
}

/**
 * A queued run's place in the queue and an active run's ETA, as a line under its status;
 * nothing for a finished run.
 * @param {Run} run
 */
export function standing(run) {
  if (!run.active) return null;
  const queued = run.status === "queued" && run.queuePosition !== null;
  const title =
    run.status === "running"
      ? `rounds left ÷ its measured speed (${speedText(run.roundsPerS)})`
      : "after the runs ahead of it, at the measured speed of its experiment's runs";
  return h(
    "div",
    { class: "standing small muted" },
    queued &&
      h(
        "span",
        { class: "queue-position", dataset: { position: String(run.queuePosition) } },
        `#${run.queuePosition} in queue`,
      ),
    queued && " · ",
    h(
      "span",
      { class: "eta", title, dataset: { eta: run.etaS === null ? "" : String(run.etaS) } },
      `ETA ${etaText(run.etaS)}`,
    ),
  );
}
