// New run: the schema-generated config form, presets to start from (their comparison as a
// sweep, or their paper reproduced), and a sweep mode that creates an experiment. The
// form's whole state lives in the address: the preset, its variant, the fields edited
// away from it (#/new?preset=example1&set=client.lr%3D0.05), the mode and the sweep (its
// name, methods, swept fields and seeds), so a reload or a shared link restores them.
import { ApiError, api } from "../api.js";
import { errorBox, h, loading, replace } from "../dom.js";
import { applyAssignments, leaves } from "../paths.js";
import { runName } from "../run-name.js";
import { schemaForm } from "../schema-form.js";
import { sweepMessages } from "../field-errors.js";
import { sweepEditor } from "../sweep/editor.js";
import { methodCells, sweepSize } from "../sweep/values.js";
import { go, replaceQuery } from "../router.js";
import { helpLink } from "../help.js";
import { PartitionView } from "../partition.js";

/** @type {import("../app.js").Mount} */
export function mount(root, route) {
  let alive = true;
  let closeView = () => {};
  replace(root, h("h1", {}, "New run"), loading("Loading the run-config schema…"));
  Promise.all([api.schema(), api.presets()])
    .then(([schema, presets]) => {
      if (alive) closeView = build(root, schema, presets, route.query);
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
    closeView();
  };
}

/**
 * @param {HTMLElement} root @param {any} schema @param {import("../api.js").Preset[]} presets
 * @param {URLSearchParams} query
 * @returns {() => void} what releases the page's plots
 */
function build(root, schema, presets, query) {
  const form = schemaForm(schema);
  /** The form's mutable state, in one place: single run or sweep, the preset and the run it was filled from, its values as filled, and why Start cannot run (the data is not on this server) for which data. */
  const page = {
    mode: query.get("mode") === "sweep" ? "sweep" : "single",
    /** @type {import("../api.js").Preset|null} */
    preset: null,
    /** @type {number|null} the run whose config the form was filled from (`from`) */
    fromRun: null,
    /** @type {Record<string, string>|null} each field's value (as JSON) as the form was filled, edits differ; null before */
    filled: null,
    /** @type {string|null} why Start cannot run: the data is not on this server */
    dataProblem: null,
    dataKey: "",
  };

  const presetSelect = /** @type {HTMLSelectElement} */ (
    h(
      "select",
      { name: "preset", "aria-label": "preset" },
      h("option", { value: "" }, "defaults"),
      presets.map((p) => h("option", { value: p.name }, p.name)),
    )
  );
  const variantSelect = /** @type {HTMLSelectElement} */ (
    h("select", { name: "variant", "aria-label": "variant", hidden: true })
  );
  const presetInfo = h("div", { class: "preset-info" });
  const compareBtn = h("button", { type: "button", hidden: true, on: { click: () => presetComparison() } }, "");
  const reproduceBtn = h(
    "button",
    { type: "button", hidden: true, on: { click: () => confirmReproduction() } },
    "Reproduce",
  );
  const reproduceBox = h("div", { class: "confirm-box", role: "group", "aria-label": "reproduce", hidden: true });
  const singleTab = h(
    "button",
    { type: "button", class: "tab", role: "tab", on: { click: () => setMode("single") } },
    "Single run",
  );
  const sweepTab = h(
    "button",
    { type: "button", class: "tab", role: "tab", on: { click: () => setMode("sweep") } },
    "Sweep (experiment)",
  );
  const sweep = sweepEditor(form.leaves, () => {
    updateSubmit();
    syncUrl();
  });
  /** The sweep as it starts: the address holds only one that differs from it. */
  const emptySweep = JSON.stringify(sweep.value());
  const notes = h("textarea", { name: "notes", rows: 2, placeholder: "notes (optional)", maxLength: 10000 });
  const notesBox = h("div", { class: "field notes" }, h("label", { class: "field-name" }, "notes"), notes);
  const errors = h("div", { class: "form-errors", role: "alert", hidden: true });
  const dataBox = h("div", { class: "data-status", role: "status", hidden: true });
  const submit = h("button", { type: "submit", class: "primary" }, "Start run");
  const rootField = rootHelp(form.leaves.find((l) => l.path === "data.root"));
  // The partition the run would make: clients' sizes and clients × classes, on demand.
  const partitionView = new PartitionView();
  const partitionBox = h("div", { class: "partition-preview", hidden: true }, partitionView.element);
  const previewBtn = h("button", { type: "button", on: { click: () => previewPartition() } }, "Show partition");

  presetSelect.addEventListener("change", () => loadPreset(presetSelect.value));
  variantSelect.addEventListener("change", () => {
    closeReproduction();
    applyPreset();
  });
  form.element.addEventListener("input", () => syncUrl());
  form.element.addEventListener("change", () => {
    syncUrl();
    checkData();
  });

  const formEl = h(
    "form",
    {
      class: "new-run",
      novalidate: true,
      on: {
        submit: (/** @type {Event} */ e) => {
          e.preventDefault();
          send();
        },
      },
    },
    h(
      "div",
      { class: "toolbar" },
      h("label", { class: "inline" }, "Start from ", presetSelect),
      variantSelect,
      compareBtn,
      reproduceBtn,
    ),
    reproduceBox,
    presetInfo,
    h("div", { class: "tabs", role: "tablist" }, singleTab, sweepTab),
    sweep.element,
    form.element,
    notesBox,
    dataBox,
    errors,
    h("div", { class: "submit-bar" }, previewBtn, submit),
    partitionBox,
  );
  replace(root, h("div", { class: "page-head" }, h("h1", {}, "New run ", helpLink("newRun", "the form"))), formEl);

  /**
   * Fill the form from `base` (what its edits are told apart from), then apply `sets`
   * ("path=value" edits, as the address holds them).
   * @param {Record<string, any>} base @param {string[]} [sets]
   */
  function fill(base, sets = []) {
    form.set(base);
    page.filled = snapshot();
    try {
      if (sets.length) form.set(applyAssignments(form.value(), sets));
    } catch (err) {
      // an address edited by hand: the base stays, the edit is named
      errors.hidden = false;
      replace(
        errors,
        h("p", {}, `The address's edits were not applied: ${err instanceof Error ? err.message : String(err)}`),
      );
    }
    syncUrl();
    checkData();
  }

  /**
   * Whether the config's dataset is on this server: where it is not, say so before Start
   * (where the files must go, and what works here instead), and hold Start back.
   */
  async function checkData() {
    const data = form.value().data ?? {};
    const name = String(data.dataset ?? "");
    const root = String(data.root ?? "data");
    const key = `${name}\u0000${root}\u0000${Boolean(data.download)}`;
    if (!name || key === page.dataKey) return;
    page.dataKey = key;
    /** @type {string|null} */
    let problem = null;
    /** @type {any[]|null} */
    let shown = null;
    try {
      const status = await api.dataset(name, root);
      if (key !== page.dataKey) return; // a newer check is under way
      rootField.show(status);
      if (!status.present && !(data.download && status.downloadAllowed)) {
        problem = `${name} is not on this server`;
        shown = [
          h("p", {}, status.advice ?? problem),
          h(
            "div",
            { class: "actions" },
            h("button", { type: "button", on: { click: () => setField("data.dataset", "digits") } }, "Use digits"),
            status.downloadAllowed &&
              h("button", { type: "button", on: { click: () => setField("data.download", true) } }, "Download it"),
          ),
        ];
      }
    } catch (err) {
      if (key !== page.dataKey) return;
      // An unknown dataset is the form's to report at its field; a root outside the data
      // root is said here, in the server's words, at the field and on the button.
      if (!(err instanceof ApiError && err.status === 404)) {
        const reason =
          err instanceof ApiError && err.fields.length
            ? err.fields[0].message
            : String(err instanceof Error ? err.message : err);
        problem = `data.root: ${reason}`;
        shown = [h("p", {}, problem)];
        rootField.refuse(reason);
      }
    }
    page.dataProblem = problem;
    dataBox.hidden = shown === null;
    replace(dataBox, shown ?? []);
    updateSubmit();
  }

  /** @param {string} path @param {any} value */
  function setField(path, value) {
    form.set(applyAssignments(form.value(), [`${path}=${JSON.stringify(value)}`]));
    syncUrl();
    checkData();
  }

  /** @returns {Record<string, string>} */
  function snapshot() {
    return Object.fromEntries(Object.entries(leaves(form.value())).map(([path, v]) => [path, JSON.stringify(v)]));
  }

  /** The fields edited away from what filled the form, as "path=value". */
  function edits() {
    const before = page.filled ?? {};
    return Object.entries(snapshot())
      .filter(([path, v]) => before[path] !== v)
      .map(([path, v]) => `${path}=${assigned(JSON.parse(v))}`);
  }

  /** The preset, its variant, where the form came from, the mode and the edits: in the address. */
  function syncUrl() {
    if (page.filled === null) return; // the address's state is still being restored
    const q = new URLSearchParams();
    if (page.preset) q.set("preset", page.preset.name);
    if (page.preset && !variantSelect.hidden && variantSelect.selectedIndex > 0) q.set("variant", variantSelect.value);
    if (page.fromRun !== null) q.set("from", String(page.fromRun));
    if (page.mode === "sweep") q.set("mode", "sweep");
    const spec = JSON.stringify(sweep.value());
    if (page.mode === "sweep" && spec !== emptySweep) q.set("sweep", spec);
    for (const edit of edits()) q.append("set", edit);
    replaceQuery("/new", q);
  }

  /**
   * @param {string} name
   * @param {{variant?: string|null, sets?: string[]}} [restore] the address's variant and edits
   */
  async function loadPreset(name, restore = {}) {
    page.preset = null;
    page.fromRun = null;
    variantSelect.hidden = true;
    compareBtn.hidden = true;
    reproduceBtn.hidden = true;
    closeReproduction();
    replace(presetInfo);
    if (!name) {
      fill({});
      return;
    }
    try {
      page.preset = await api.preset(name);
    } catch (err) {
      replace(presetInfo, errorBox(err));
      return;
    }
    const variants = Object.keys(page.preset.variants);
    replace(
      variantSelect,
      variants.map((v) => h("option", { value: v }, `variant: ${v}`)),
    );
    variantSelect.hidden = variants.length === 0;
    if (restore.variant && variants.includes(restore.variant)) variantSelect.value = restore.variant;
    if (page.preset.compare.length) {
      compareBtn.textContent = `Compare ${page.preset.compare.join(", ")}`;
      compareBtn.hidden = false;
      reproduceBtn.hidden = false;
    }
    replace(
      presetInfo,
      h("p", { class: "help" }, page.preset.description),
      page.preset.paper && h("p", { class: "help paper" }, page.preset.paper),
      page.preset.needs && h("p", { class: "help needs" }, `Needs ${page.preset.needs}.`),
    );
    applyPreset(restore.sets);
  }

  /** @param {string[]} [sets] edits to apply on top of it */
  function applyPreset(sets = []) {
    const base = presetBase();
    if (base) fill(base, sets);
  }

  /** The preset's config with its chosen variant, as the form was filled from it. */
  function presetBase() {
    if (!page.preset?.config) return null;
    return applyAssignments(page.preset.config, page.preset.variants[variantSelect.value] ?? []);
  }

  function presetLabel() {
    return variantSelect.hidden ? (page.preset?.name ?? "") : `${page.preset?.name} (${variantSelect.value})`;
  }

  function presetComparison() {
    if (!page.preset) return;
    const variant = variantSelect.hidden ? "" : ` (${variantSelect.value})`;
    // Cells, not a grid over algorithm.name: each method keeps its paper's settings.
    sweep.set({
      name: `${page.preset.name} comparison${variant}`,
      grid: {},
      cells: methodCells(page.preset.methods),
      seeds: page.preset.seeds,
    });
    setMode("sweep");
    sweep.element.scrollIntoView({ block: "start" });
  }

  /** Say what reproducing the preset launches, with buttons to go ahead or not. */
  function confirmReproduction() {
    if (!page.preset) return;
    const p = page.preset;
    const variant = variantSelect.hidden ? "" : variantSelect.value;
    const n = p.methods.length * p.seeds.length;
    const launch = h(
      "button",
      { type: "button", class: "primary", on: { click: () => reproduce(p, variant, launch) } },
      `Launch ${n} runs`,
    );
    replace(
      reproduceBox,
      h(
        "p",
        {},
        `Reproduce ${p.name}${variant ? ` (${variant})` : ""}: ${p.methods.length} methods × ${p.seeds.length} seeds = ${n} runs, each method with its paper's settings.`,
      ),
      h(
        "div",
        { class: "actions" },
        launch,
        h("button", { type: "button", on: { click: closeReproduction } }, "Cancel"),
      ),
    );
    reproduceBox.hidden = false;
  }

  function closeReproduction() {
    reproduceBox.hidden = true;
    replace(reproduceBox);
  }

  /** @param {import("../api.js").Preset} p @param {string} variant @param {HTMLElement} button */
  async function reproduce(p, variant, button) {
    /** @type {HTMLButtonElement} */ (button).disabled = true;
    reproduceBox.querySelector(".state-error")?.remove();
    try {
      const experiment = await api.reproduce(p.name, { variant, root: String(form.value().data?.root ?? "") });
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
        : errorBox(err, () => reproduce(p, variant, button));
      reproduceBox.appendChild(reasons);
      /** @type {HTMLButtonElement} */ (button).disabled = false;
    }
  }

  /** @param {string} m */
  function setMode(m) {
    page.mode = m;
    singleTab.classList.toggle("active", m === "single");
    sweepTab.classList.toggle("active", m === "sweep");
    singleTab.setAttribute("aria-selected", String(m === "single"));
    sweepTab.setAttribute("aria-selected", String(m === "sweep"));
    sweep.element.hidden = m !== "sweep";
    notesBox.hidden = m === "sweep";
    updateSubmit();
    syncUrl();
  }

  function updateSubmit() {
    submit.disabled = false;
    if (page.dataProblem) {
      submit.textContent = page.dataProblem;
      submit.disabled = true;
      return;
    }
    if (page.mode === "single") {
      submit.textContent = "Start run";
      return;
    }
    // What keeps the sweep from launching, said on the button instead of a count.
    const problem = sweep.problem();
    if (problem) {
      submit.textContent = problem;
      submit.disabled = true;
      return;
    }
    const spec = sweep.value();
    const n = sweepSize(spec.grid, spec.seeds, spec.cells);
    submit.textContent = `Launch ${n} run${n === 1 ? "" : "s"}`;
  }

  async function previewPartition() {
    form.clearErrors();
    errors.hidden = true;
    previewBtn.disabled = true;
    try {
      const shown = await api.previewPartition(form.value());
      partitionBox.hidden = false;
      partitionView.update({ status: "fulfilled", value: shown });
    } catch (err) {
      partitionView.close();
      partitionBox.hidden = true;
      showError(err);
    } finally {
      previewBtn.disabled = false;
    }
  }

  async function send() {
    form.clearErrors();
    sweep.clearErrors();
    errors.hidden = true;
    submit.disabled = true;
    try {
      if (page.mode === "single") {
        const config = form.value();
        const base = presetBase();
        if (page.preset && base && config.name === base.name) config.name = runName(presetLabel(), base, config);
        const run = await api.createRun(config, notes.value);
        go(`/runs/${run.id}`);
      } else {
        const spec = sweep.value();
        const base = form.value();
        const experiment = await api.createExperiment({
          name: spec.name || `${base.name} sweep`,
          base,
          grid: spec.grid,
          cells: spec.cells,
          seeds: spec.seeds,
        });
        go("/compare", { experiment: experiment.id });
      }
    } catch (err) {
      showError(err);
    } finally {
      updateSubmit();
    }
  }

  /** @param {unknown} err */
  function showError(err) {
    errors.hidden = false;
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) {
      replace(errors, errorBox(err, send));
      return;
    }
    const fields = err instanceof ApiError ? err.fields : [];
    // At their fields, in plain words, each once: a sweep repeats an error of its base
    // config for every one of its runs.
    const spec = sweep.value();
    const cells = page.mode === "sweep" ? sweepSize(spec.grid, [0], spec.cells) : 1;
    const unplaced = fields.length ? form.showErrors(sweepMessages(sweep.showErrors(fields), cells)) : [];
    // Every error in one list by Start, as its field shows it, each a link to its field:
    // only one may be in view.
    const all = [...formEl.querySelectorAll(".invalid")]
      .map((el) => ({
        path: /** @type {HTMLElement} */ (el).dataset.path ?? /** @type {HTMLElement} */ (el).dataset.label ?? "",
        message: el.querySelector(".field-error")?.textContent ?? "",
      }))
      .concat(unplaced);
    const n = all.length;
    const item = (/** @type {import("../api.js").FieldError} */ f) =>
      f.path
        ? h(
            "a",
            {
              href: "#",
              on: {
                click: (/** @type {Event} */ e) => {
                  e.preventDefault();
                  showField(f.path);
                },
              },
            },
            `${f.path}: ${f.message}`,
          )
        : f.message;
    const lines = fields.length
      ? [
          h("strong", {}, `${n === 1 ? "One field needs" : `${n} fields need`} fixing:`),
          h(
            "ul",
            { class: "error-list" },
            all.map((f) => h("li", {}, item(f))),
          ),
        ]
      : [h("strong", {}, "The run was not created."), h("div", {}, err instanceof Error ? err.message : String(err))];
    replace(errors, lines);
    errors.scrollIntoView({ block: "center" });
  }

  /** Scroll to a field the server refused, and put the cursor there. @param {string} path */
  function showField(path) {
    const field = formEl.querySelector(`.invalid[data-path="${CSS.escape(path)}"]`) ?? formEl.querySelector(".invalid");
    field?.scrollIntoView({ block: "center" });
    /** @type {HTMLElement|null|undefined} */ (field?.querySelector("input, select, textarea"))?.focus();
  }

  const initial = query.get("preset");
  const from = Number(query.get("from"));
  const sets = query.getAll("set");
  const savedSweep = sweepFromAddress(query.get("sweep"));
  /** The address's sweep, once the form it sweeps is filled. */
  const restoreSweep = () => {
    if (savedSweep) sweep.set(savedSweep);
    syncUrl();
  };
  if (initial && presets.some((p) => p.name === initial)) {
    presetSelect.value = initial;
    setMode(page.mode);
    loadPreset(initial, { variant: query.get("variant"), sets }).then(restoreSweep);
  } else if (Number.isInteger(from) && from > 0) {
    page.fromRun = from;
    setMode(page.mode);
    api
      .run(from)
      .then((run) => {
        fill(run.config ?? {}, sets);
        restoreSweep();
        replace(
          presetInfo,
          h(
            "p",
            { class: "help" },
            `Config copied from run #${run.id} `,
            h("a", { href: `#/runs/${run.id}` }, run.name),
          ),
        );
      })
      .catch((err) => replace(presetInfo, errorBox(err)));
  } else {
    fill({}, sets);
    restoreSweep();
    setMode(page.mode);
  }
  return () => partitionView.close();
}

/**
 * The sweep an address holds (`sweep=` JSON: name, grid, cells, seeds), or null when it
 * has none or it does not read as one.
 * @param {string|null} text
 * @returns {{name: string, grid: Record<string, any[]>, cells: import("../api.js").Cell[], seeds: number[]}|null}
 */
export function sweepFromAddress(text) {
  if (!text) return null;
  try {
    const v = JSON.parse(text);
    const grid = v && typeof v.grid === "object" && !Array.isArray(v.grid) ? v.grid : {};
    return {
      name: typeof v.name === "string" ? v.name : "",
      grid: Object.fromEntries(Object.entries(grid).filter(([, values]) => Array.isArray(values))),
      cells: Array.isArray(v.cells)
        ? v.cells.filter((/** @type {any} */ c) => c && typeof c.label === "string" && typeof c.set === "object")
        : [],
      seeds: Array.isArray(v.seeds) ? v.seeds.filter((/** @type {any} */ s) => Number.isInteger(s)) : [],
    };
  } catch {
    return null;
  }
}

/**
 * A value as an edit in the address writes it: JSON, but a text as it is where it does
 * not read as JSON (`name=my run`, and `name="5"` for the text 5).
 * @param {any} value
 */
function assigned(value) {
  if (typeof value !== "string") return JSON.stringify(value);
  try {
    JSON.parse(value);
    return JSON.stringify(value);
  } catch {
    return value;
  }
}

/**
 * Under the `data.root` field: what this server accepts there and where its data root is,
 * and the folders in it that hold the chosen dataset (the field's suggestions), all as
 * `GET /api/datasets/{name}` gives them.
 * @param {{input: HTMLElement, wrap: HTMLElement, setError: (msg: string|null) => void}|undefined} leaf
 */
function rootHelp(leaf) {
  const list = h("datalist", { id: "data-root-folders" });
  const note = h("div", { class: "help root-rule" });
  if (leaf) {
    leaf.input.setAttribute("list", "data-root-folders");
    leaf.wrap.append(note, list);
  }
  return {
    /** @param {import("../api.js").DatasetStatus} status */
    show(status) {
      note.textContent = status.fromRoot
        ? `This server's data root is ${status.dataRoot}; data.root is ${status.rule}. ` +
          (status.holding.length
            ? `Folders holding ${status.dataset}: ${status.holding.join(", ")}.`
            : `No folder in it holds ${status.dataset} yet.`)
        : "";
      replace(
        list,
        status.holding.map((f) => h("option", { value: f })),
      );
    },
    /** @param {string} reason the server's */
    refuse(reason) {
      leaf?.setError(reason);
    },
  };
}
