// New run: the schema-generated config form, presets to start from (their comparison as a
// sweep, or their paper reproduced), a sweep mode that creates an experiment, and a tune
// mode that tunes each of a preset's methods with the same budget (tune.js). The
// form's whole state lives in the address (state.js), so a reload or a shared link
// restores it.
import { ApiError, api } from "../../api.js";
import { errorBox, h, loading, replace } from "../../dom.js";
import { sweepMessages } from "../../field-errors.js";
import { helpLink } from "../../help.js";
import { PartitionView } from "../../partition.js";
import { applyAssignments } from "../../paths.js";
import { go, replaceQuery } from "../../router.js";
import { runName } from "../../run-name.js";
import { schemaForm } from "../../schema-form.js";
import { sweepEditor } from "../../sweep/editor.js";
import { sweepSize } from "../../sweep/values.js";
import { DataCheck } from "./data.js";
import { errorLines, shownErrors } from "./errors.js";
import { PresetPicker } from "./presets.js";
import { DEFAULT_TUNE, edits, readAddress, snapshot, writeAddress } from "./state.js";
import { TuneEditor } from "./tune.js";

/** @type {import("../../app.js").Mount} */
export function mount(root, route) {
  let alive = true;
  /** @type {NewRunForm|null} */
  let view = null;
  replace(root, h("h1", {}, "New run"), loading("Loading the run-config schema…"));
  Promise.all([api.schema(), api.presets()])
    .then(([schema, presets]) => {
      if (!alive) return;
      view = new NewRunForm(root, schema, presets);
      view.restore(readAddress(route.query), presets);
    })
    .catch(
      (err) =>
        alive &&
        replace(
          root,
          h("h1", {}, "New run"),
          errorBox(err, () => go("/new")),
        ),
    );
  return () => {
    alive = false;
    view?.partitionView.close();
  };
}

class NewRunForm {
  /** @param {HTMLElement} root @param {any} schema @param {import("../../api.js").Preset[]} presets */
  constructor(root, schema, presets) {
    this.form = schemaForm(schema);
    /** @type {import("./state.js").Mode} */
    this.mode = "single";
    /** @type {number|null} the run whose config the form was filled from (`from`) */
    this.fromRun = null;
    /** @type {Record<string, string>|null} each field's value (as JSON) as the form was filled, edits differ; null before */
    this.filled = null;
    const dataRoot = () => String(this.form.value().data?.root ?? "");
    this.presets = new PresetPicker(
      presets,
      (base, sets) => this.fill(base, sets),
      (s) => this.showComparison(s),
      dataRoot,
    );
    this.singleTab = this.tab("single", "Single run");
    this.sweepTab = this.tab("sweep", "Sweep (experiment)");
    this.tuneTab = this.tab("tune", "Tune (each method)");
    this.sweep = sweepEditor(this.form.leaves, () => {
      this.updateSubmit();
      this.syncUrl();
    });
    /** The sweep as it starts: the address holds only one that differs from it. */
    this.emptySweep = JSON.stringify(this.sweep.value());
    this.tune = new TuneEditor(this.form.leaves, () => {
      this.updateSubmit();
      this.syncUrl();
    });
    this.notes = h("textarea", { name: "notes", rows: 2, placeholder: "notes (optional)", maxLength: 10000 });
    this.notesBox = h("div", { class: "field notes" }, h("label", { class: "field-name" }, "notes"), this.notes);
    this.errors = h("div", { class: "form-errors", role: "alert", hidden: true });
    this.data = new DataCheck(
      this.form.leaves.find((l) => l.path === "data.root"),
      (path, value) => this.setField(path, value),
      () => this.updateSubmit(),
    );
    this.submit = /** @type {HTMLButtonElement} */ (h("button", { type: "submit", class: "primary" }, "Start run"));
    // The partition the run would make: clients' sizes and clients × classes, on demand.
    this.partitionView = new PartitionView();
    this.partitionBox = h("div", { class: "partition-preview", hidden: true }, this.partitionView.element);
    this.previewBtn = /** @type {HTMLButtonElement} */ (
      h("button", { type: "button", on: { click: () => this.previewPartition() } }, "Show partition")
    );
    this.element = this.layout();
    replace(
      root,
      h("div", { class: "page-head" }, h("h1", {}, "New run ", helpLink("newRun", "the form"))),
      this.element,
    );
    this.listen();
  }

  /** @param {import("./state.js").Mode} mode @param {string} text */
  tab(mode, text) {
    return h("button", { type: "button", class: "tab", role: "tab", on: { click: () => this.setMode(mode) } }, text);
  }

  layout() {
    const p = this.presets;
    return h(
      "form",
      {
        class: "new-run",
        novalidate: true,
        on: {
          submit: (/** @type {Event} */ e) => {
            e.preventDefault();
            this.send();
          },
        },
      },
      h(
        "div",
        { class: "toolbar" },
        h("label", { class: "inline" }, "Start from ", p.select),
        p.variant,
        p.compareBtn,
        p.reproduceBtn,
      ),
      p.reproduceBox,
      p.info,
      h("div", { class: "tabs", role: "tablist" }, this.singleTab, this.sweepTab, this.tuneTab),
      this.sweep.element,
      this.tune.element,
      this.form.element,
      this.notesBox,
      this.data.box,
      this.errors,
      h("div", { class: "submit-bar" }, this.previewBtn, this.submit),
      this.partitionBox,
    );
  }

  listen() {
    this.presets.select.addEventListener("change", () => this.loadPreset(this.presets.select.value));
    this.form.element.addEventListener("input", () => this.syncUrl());
    this.form.element.addEventListener("change", () => {
      this.syncUrl();
      this.checkData();
    });
  }

  /**
   * Show what the address asks for: a preset (its variant), a run's config, or the
   * defaults; then its edits, and its sweep once the form it sweeps is filled.
   * @param {import("./state.js").Address} address @param {import("../../api.js").Preset[]} presets
   */
  restore(address, presets) {
    this.mode = address.mode;
    const restoreSweep = () => {
      if (address.sweep) this.sweep.set(address.sweep);
      if (address.tune) this.tune.set(address.tune);
      this.syncUrl();
    };
    if (address.preset && presets.some((p) => p.name === address.preset)) {
      this.presets.select.value = address.preset;
      this.setMode(this.mode);
      this.loadPreset(address.preset, { variant: address.variant, sets: address.sets }).then(restoreSweep);
    } else if (address.from !== null) {
      this.fromRun = address.from;
      this.setMode(this.mode);
      this.copyRun(address.from, address.sets).then(restoreSweep, (err) => replace(this.presets.info, errorBox(err)));
    } else {
      this.fill({}, address.sets);
      restoreSweep();
      this.setMode(this.mode);
    }
  }

  /** Fill the form from a run's config, and say so. @param {number} id @param {string[]} sets */
  async copyRun(id, sets) {
    const run = await api.run(id);
    this.fill(run.config ?? {}, sets);
    const link = h("a", { href: `#/runs/${run.id}` }, run.name);
    replace(this.presets.info, h("p", { class: "help" }, `Config copied from run #${run.id} `, link));
  }

  /**
   * @param {string} name
   * @param {{variant?: string|null, sets?: string[]}} [restore] the address's variant and edits
   */
  loadPreset(name, restore) {
    this.fromRun = null;
    return this.presets.load(name, restore);
  }

  /**
   * Fill the form from `base` (what its edits are told apart from), then apply `sets`
   * ("path=value" edits, as the address holds them).
   * @param {Record<string, any>} base @param {string[]} sets
   */
  fill(base, sets) {
    this.tune.setMethods(this.presets.preset?.compare ?? []);
    this.form.set(base);
    this.filled = snapshot(this.form.value());
    try {
      if (sets.length) this.form.set(applyAssignments(this.form.value(), sets));
    } catch (err) {
      // an address edited by hand: the base stays, the edit is named
      this.errors.hidden = false;
      const why = err instanceof Error ? err.message : String(err);
      replace(this.errors, h("p", {}, `The address's edits were not applied: ${why}`));
    }
    this.syncUrl();
    this.checkData();
  }

  checkData() {
    this.data.check(this.form.value().data ?? {});
  }

  /** @param {string} path @param {any} value */
  setField(path, value) {
    this.form.set(applyAssignments(this.form.value(), [`${path}=${JSON.stringify(value)}`]));
    this.syncUrl();
    this.checkData();
  }

  /** The preset, its variant, where the form came from, the mode and the edits: in the address. */
  syncUrl() {
    if (this.filled === null) return; // the address's state is still being restored
    const sweep = JSON.stringify(this.sweep.value());
    const tune = JSON.stringify(this.tune.value());
    const address = writeAddress({
      preset: this.presets.preset?.name ?? null,
      variant: this.presets.chosenVariant(),
      from: this.fromRun,
      mode: this.mode,
      sweep: sweep === this.emptySweep ? null : sweep,
      tune: tune === JSON.stringify(DEFAULT_TUNE) ? null : tune,
      edits: edits(this.filled, snapshot(this.form.value())),
    });
    replaceQuery("/new", address);
  }

  /** @param {import("./state.js").Sweep} sweep the preset's comparison */
  showComparison(sweep) {
    this.sweep.set(sweep);
    this.setMode("sweep");
    this.sweep.element.scrollIntoView({ block: "start" });
  }

  /** @param {import("./state.js").Mode} m */
  setMode(m) {
    this.mode = m;
    for (const [tab, mode] of /** @type {const} */ ([
      [this.singleTab, "single"],
      [this.sweepTab, "sweep"],
      [this.tuneTab, "tune"],
    ])) {
      tab.classList.toggle("active", m === mode);
      tab.setAttribute("aria-selected", String(m === mode));
    }
    this.sweep.element.hidden = m !== "sweep";
    // in the page only in its mode: its fields share names (seeds, a key's row) with the sweep's and the form's
    if (m === "tune") this.sweep.element.after(this.tune.element);
    else this.tune.element.remove();
    this.notesBox.hidden = m !== "single";
    this.updateSubmit();
    this.syncUrl();
  }

  /** Start's label: what it launches, or what keeps it from launching, said on the button. */
  updateSubmit() {
    const modeProblem = { single: null, sweep: this.sweep.problem(), tune: this.tune.problem() }[this.mode];
    const problem = this.data.problem ?? modeProblem;
    this.submit.disabled = Boolean(problem);
    if (problem) this.submit.textContent = problem;
    else if (this.mode === "single") this.submit.textContent = "Start run";
    else if (this.mode === "tune") {
      const { methods, trials } = this.tune.size();
      this.submit.textContent = `Tune ${methods} method${methods === 1 ? "" : "s"}, ${trials} trial${trials === 1 ? "" : "s"} each`;
    } else {
      const spec = this.sweep.value();
      const n = sweepSize(spec.grid, spec.seeds, spec.cells);
      this.submit.textContent = `Launch ${n} run${n === 1 ? "" : "s"}`;
    }
  }

  async previewPartition() {
    this.form.clearErrors();
    this.errors.hidden = true;
    this.previewBtn.disabled = true;
    try {
      const shown = await api.previewPartition(this.form.value());
      this.partitionBox.hidden = false;
      this.partitionView.update({ status: "fulfilled", value: shown });
    } catch (err) {
      this.partitionView.close();
      this.partitionBox.hidden = true;
      this.showError(err);
    } finally {
      this.previewBtn.disabled = false;
    }
  }

  async send() {
    this.form.clearErrors();
    this.sweep.clearErrors();
    this.tune.clearErrors();
    this.errors.hidden = true;
    this.submit.disabled = true;
    try {
      if (this.mode === "single") await this.startRun();
      else if (this.mode === "sweep") await this.startSweep();
      else await this.startTune();
    } catch (err) {
      this.showError(err);
    } finally {
      this.updateSubmit();
    }
  }

  async startRun() {
    const config = this.form.value();
    const base = this.presets.base();
    if (this.presets.preset && base && config.name === base.name)
      config.name = runName(this.presets.label(), base, config);
    const run = await api.createRun(config, this.notes.value);
    go(`/runs/${run.id}`);
  }

  async startSweep() {
    const spec = this.sweep.value();
    const base = this.form.value();
    const experiment = await api.createExperiment({
      name: spec.name || `${base.name} sweep`,
      base,
      grid: spec.grid,
      cells: spec.cells,
      seeds: spec.seeds,
    });
    go("/compare", { experiment: experiment.id });
  }

  /** Each method of the preset tuned, the form's edits (`this.filled`'s) applied to all its runs. */
  async startTune() {
    const tune = await api.createTune({
      preset: this.presets.preset?.name ?? "",
      ...this.tune.body(),
      set: edits(this.filled ?? {}, snapshot(this.form.value())),
    });
    go(`/tunes/${tune.id}`);
  }

  /**
   * Place the server's errors at their fields: the tune's own (`set.<key>`, a setting
   * for all its runs, at the form's field), else the sweep's; returns those no field took.
   * @param {import("../../api.js").FieldError[]} fields
   */
  placeErrors(fields) {
    if (this.mode === "tune") {
      const rest = this.tune.showErrors(fields).map((e) => ({ ...e, path: e.path.replace(/^set\./, "") }));
      return this.form.showErrors(rest);
    }
    // At their fields, in plain words, each once: a sweep repeats an error of its base
    // config for every one of its runs.
    const spec = this.sweep.value();
    const cells = this.mode === "sweep" ? sweepSize(spec.grid, [0], spec.cells) : 1;
    return this.form.showErrors(sweepMessages(this.sweep.showErrors(fields), cells));
  }

  /** @param {unknown} err */
  showError(err) {
    this.errors.hidden = false;
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
      replace(
        this.errors,
        errorBox(err, () => this.send()),
      );
      return;
    }
    const fields = err instanceof ApiError ? err.fields : [];
    const unplaced = fields.length ? this.placeErrors(fields) : [];
    const all = shownErrors(this.element, unplaced);
    replace(this.errors, errorLines(all, fields.length > 0, err, this.element));
    this.errors.scrollIntoView({ block: "center" });
  }
}
