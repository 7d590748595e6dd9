// The compare page's picker: what is compared as removable chips, and the selects that
// add a run or an experiment.
import { api } from "../../api.js";
import { h, replace } from "../../dom.js";

/** @param {string} text @param {() => void} onRemove */
function chip(text, onRemove) {
  return h(
    "span",
    { class: "chip" },
    text,
    h("button", { type: "button", class: "link", "aria-label": `remove ${text}`, on: { click: onRemove } }, "×"),
  );
}

/**
 * @param {{addRun: (id: number) => void, addExperiment: (id: number) => void, alive: () => boolean}} on
 *   what a chosen run or experiment does, and whether the page is still mounted
 */
export function picker(on) {
  const addRun = /** @type {HTMLSelectElement} */ (
    h("select", { "aria-label": "add run" }, h("option", { value: "" }, "+ add run…"))
  );
  const addExperiment = /** @type {HTMLSelectElement} */ (
    h("select", { "aria-label": "add experiment" }, h("option", { value: "" }, "+ add experiment…"))
  );
  const chips = h("div", { class: "chips" });
  for (const [select, add] of /** @type {const} */ ([
    [addRun, on.addRun],
    [addExperiment, on.addExperiment],
  ])) {
    select.addEventListener("change", () => {
      const id = Number(select.value);
      select.value = "";
      add(id);
    });
  }
  /**
   * The run picker's options with each run's status as it is now: read again on focus and
   * on every refresh, since a run listed while queued finishes with the page open.
   */
  async function fillRuns() {
    const listed = await api.listRuns({ limit: 200 }).catch(() => null);
    if (!listed || !on.alive()) return;
    replace(
      addRun,
      h("option", { value: "" }, "+ add run…"),
      listed.runs.map((r) => h("option", { value: String(r.id) }, `#${r.id} ${r.name} (${r.algorithm}, ${r.status})`)),
    );
  }
  addRun.addEventListener("focus", () => fillRuns());
  fillRuns();
  api
    .experiments()
    .then((exps) => {
      for (const e of exps)
        addExperiment.appendChild(h("option", { value: String(e.id) }, `#${e.id} ${e.name} (${e.runIds.length} runs)`));
    })
    .catch(() => {});
  return {
    el: h("div", { class: "picker" }, chips, addRun, addExperiment),
    /** Refill the run picker, unless it is open. */
    refill() {
      if (document.activeElement !== addRun) fillRuns();
    },
    /**
     * The chips of the compared experiments (with their links) and runs.
     * @param {import("../../api.js").Experiment[]} experiments @param {number[]} runs
     * @param {{experiment: (id: number) => void, run: (id: number) => void}} remove
     */
    chips(experiments, runs, remove) {
      replace(
        chips,
        experiments.map((e) => [
          chip(`experiment #${e.id} ${e.name}`, () => remove.experiment(e.id)),
          h("a", { class: "report-link experiment-link", href: `#/experiments/${e.id}` }, "Progress"),
          e.preset &&
            h("a", { class: "report-link", href: `#/experiments/${e.id}/reproduction` }, "Reproduction report"),
        ]),
        runs.map((id) => chip(`run #${id}`, () => remove.run(id))),
      );
    },
  };
}
