// Presets to start from: the picker and its variant, the preset's description, its
// comparison as a sweep, and its paper reproduced (after saying what that launches).
import { ApiError, api } from "../../api.js";
import { errorBox, h, replace } from "../../dom.js";
import { applyAssignments } from "../../paths.js";
import { go } from "../../router.js";
import { methodCells } from "../../sweep/values.js";

/** @typedef {import("../../api.js").Preset} Preset */

export class PresetPicker {
  /**
   * @param {Preset[]} presets those listed
   * @param {(base: Record<string, any>, sets: string[]) => void} fill fills the form from a config, then applies edits
   * @param {(sweep: import("./state.js").Sweep) => void} compare shows the preset's comparison as a sweep
   * @param {() => string} dataRoot the form's data.root, where a reproduction reads its data
   */
  constructor(presets, fill, compare, dataRoot) {
    this.fill = fill;
    this.dataRoot = dataRoot;
    /** @type {Preset|null} */
    this.preset = null;
    this.select = /** @type {HTMLSelectElement} */ (
      h(
        "select",
        { name: "preset", "aria-label": "preset" },
        h("option", { value: "" }, "defaults"),
        presets.map((p) => h("option", { value: p.name }, p.name)),
      )
    );
    this.variant = /** @type {HTMLSelectElement} */ (
      h("select", { name: "variant", "aria-label": "variant", hidden: true })
    );
    this.info = h("div", { class: "preset-info" });
    this.compareBtn = h("button", { type: "button", hidden: true, on: { click: () => this.compare(compare) } }, "");
    this.reproduceBtn = h(
      "button",
      { type: "button", hidden: true, on: { click: () => this.confirmReproduction() } },
      "Reproduce",
    );
    this.reproduceBox = h("div", { class: "confirm-box", role: "group", "aria-label": "reproduce", hidden: true });
    this.variant.addEventListener("change", () => {
      this.closeReproduction();
      this.apply();
    });
  }

  /**
   * Show the preset and fill the form from it ("" for the defaults).
   * @param {string} name
   * @param {{variant?: string|null, sets?: string[]}} [restore] the address's variant and edits
   */
  async load(name, restore = {}) {
    this.preset = null;
    this.variant.hidden = true;
    this.compareBtn.hidden = true;
    this.reproduceBtn.hidden = true;
    this.closeReproduction();
    replace(this.info);
    if (!name) {
      this.fill({}, []);
      return;
    }
    try {
      this.preset = await api.preset(name);
    } catch (err) {
      replace(this.info, errorBox(err));
      return;
    }
    this.show(this.preset, restore.variant);
    this.apply(restore.sets);
  }

  /** @param {Preset} preset @param {string|null|undefined} variant the one to select, if it has it */
  show(preset, variant) {
    const variants = Object.keys(preset.variants);
    replace(
      this.variant,
      variants.map((v) => h("option", { value: v }, `variant: ${v}`)),
    );
    this.variant.hidden = variants.length === 0;
    if (variant && variants.includes(variant)) this.variant.value = variant;
    if (preset.compare.length) {
      this.compareBtn.textContent = `Compare ${preset.compare.join(", ")}`;
      this.compareBtn.hidden = false;
      this.reproduceBtn.hidden = false;
    }
    replace(
      this.info,
      h("p", { class: "help" }, preset.description),
      preset.paper && h("p", { class: "help paper" }, preset.paper),
      preset.needs && h("p", { class: "help needs" }, `Needs ${preset.needs}.`),
      preset.publishedText &&
        h("p", { class: "help published" }, `Published: ${preset.publishedText} (${preset.source || preset.paper}).`),
      preset.differs && h("p", { class: "help differs" }, `Differs: ${preset.differs}.`),
    );
  }

  /** @param {string[]} [sets] edits to apply on top of it */
  apply(sets = []) {
    const base = this.base();
    if (base) this.fill(base, sets);
  }

  /** The preset's config with its chosen variant, as the form was filled from it. */
  base() {
    if (!this.preset?.config) return null;
    return applyAssignments(this.preset.config, this.preset.variants[this.variant.value] ?? []);
  }

  /** The variant chosen, as the address holds it: none where the first is. */
  chosenVariant() {
    return this.preset && !this.variant.hidden && this.variant.selectedIndex > 0 ? this.variant.value : null;
  }

  /** The preset's name and variant, as a run's name gives them. */
  label() {
    return this.variant.hidden ? (this.preset?.name ?? "") : `${this.preset?.name} (${this.variant.value})`;
  }

  /** @param {(sweep: import("./state.js").Sweep) => void} show */
  compare(show) {
    if (!this.preset) return;
    const variant = this.variant.hidden ? "" : ` (${this.variant.value})`;
    // Cells, not a grid over algorithm.name: each method keeps its paper's settings.
    show({
      name: `${this.preset.name} comparison${variant}`,
      grid: {},
      cells: methodCells(this.preset.methods),
      seeds: this.preset.seeds,
    });
  }

  /** Say what reproducing the preset launches, with buttons to go ahead or not. */
  confirmReproduction() {
    if (!this.preset) return;
    const p = this.preset;
    const variant = this.variant.hidden ? "" : this.variant.value;
    const n = p.methods.length * p.seeds.length;
    const launch = /** @type {HTMLButtonElement} */ (
      h(
        "button",
        { type: "button", class: "primary", on: { click: () => this.reproduce(p, variant, launch) } },
        `Launch ${n} runs`,
      )
    );
    replace(
      this.reproduceBox,
      h(
        "p",
        {},
        `Reproduce ${p.name}${variant ? ` (${variant})` : ""}: ${p.methods.length} methods × ${p.seeds.length} seeds = ${n} runs, each method with its paper's settings.`,
      ),
      h(
        "div",
        { class: "actions" },
        launch,
        h("button", { type: "button", on: { click: () => this.closeReproduction() } }, "Cancel"),
      ),
    );
    this.reproduceBox.hidden = false;
  }

  closeReproduction() {
    this.reproduceBox.hidden = true;
    replace(this.reproduceBox);
  }

  /** @param {Preset} p @param {string} variant @param {HTMLButtonElement} button */
  async reproduce(p, variant, button) {
    button.disabled = true;
    this.reproduceBox.querySelector(".state-error")?.remove();
    try {
      const experiment = await api.reproduce(p.name, { variant, root: this.dataRoot() });
      go(`/experiments/${experiment.id}/reproduction`);
    } catch (err) {
      // the server's reason for refusing it (its data.root, the data it needs) as it gave it
      const refused = err instanceof ApiError && err.status === 422 && err.fields.length;
      const reasons = refused
        ? h(
            "div",
            { class: "state state-error", role: "alert" },
            err.fields.map((f) => h("p", {}, `${f.path === "root" ? "data.root" : f.path || p.name}: ${f.message}`)),
          )
        : errorBox(err, () => this.reproduce(p, variant, button));
      this.reproduceBox.appendChild(reasons);
      button.disabled = false;
    }
  }
}
