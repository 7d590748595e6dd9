// The run's head: its title and actions, status and progress, facts, tags, notes, error,
// and the form that edits its name, notes and tags.
import { ApiError, api, toRun } from "../../api.js";
import { badge, h, progressBar } from "../../dom.js";
import { downloadButton } from "../../downloads.js";
import { seedText, when } from "../../format.js";

/** @typedef {import("../../api.js").Run} Run */
/** @typedef {{edit: () => void, cancel: () => void, resume: () => void}} Actions */

// Run fields carried by a status event.
const STATUS_FIELDS = /** @type {const} */ ([
  "name",
  "notes",
  "tags",
  "status",
  "progress",
  "roundsDone",
  "roundsTotal",
  "startedAt",
  "finishedAt",
  "error",
  "worker",
  "active",
  "resumable",
  "cancelling",
]);

/** @param {any} w @returns {Partial<Run>} */
export function statusFields(w) {
  const r = toRun(w);
  return Object.fromEntries(STATUS_FIELDS.map((k) => [k, r[k]]));
}

/** The progress bar of the head. @param {Run} r */
export function progress(r) {
  return progressBar(r.progress, `round ${r.roundsDone} / ${r.roundsTotal}`);
}

/** The head's content. @param {Run} r @param {Actions} act @param {HTMLElement|null} editor the open edit form */
export function head(r, act, editor) {
  return [
    h(
      "div",
      { class: "page-head" },
      h(
        "h1",
        {},
        h("span", { class: "run-id" }, `#${r.id}`),
        " ",
        h("span", { class: "run-title" }, r.name || `run ${r.id}`),
      ),
      h("div", { class: "actions" }, actions(r, act)),
    ),
    h("div", { class: "status-line" }, badge(r.cancelling ? "cancelling" : r.status), progress(r)),
    h(
      "dl",
      { class: "facts" },
      fact("algorithm", r.algorithm),
      fact("dataset", r.dataset),
      fact("availability", r.availability),
      fact("clients", String(r.nClients || "—")),
      fact("seed", seedText(r.seed)),
      fact("created", when(r.createdAt)),
      fact("started", when(r.startedAt)),
      fact("finished", when(r.finishedAt)),
      r.worker && fact("worker", r.worker),
    ),
    r.tags.length > 0 &&
      h(
        "div",
        { class: "tags" },
        r.tags.map((t) => h("a", { class: "tag", href: `#/runs?tag=${encodeURIComponent(t)}` }, t)),
      ),
    r.notes && h("p", { class: "notes" }, r.notes),
    r.error && h("pre", { class: "run-error", role: "alert" }, r.error),
    editor, // kept across the re-renders of a live run
  ];
}

/** @param {Run} r @param {Actions} act */
function actions(r, act) {
  const resume = "Queue it again; it continues from its last checkpoint";
  return [
    h("button", { type: "button", title: "Rename, notes, tags", on: { click: act.edit } }, "Edit"),
    r.active && !r.cancelling && h("button", { type: "button", on: { click: act.cancel } }, "Cancel"),
    r.resumable && h("button", { type: "button", title: resume, on: { click: act.resume } }, "Resume"),
    downloads(r),
    !r.external && h("a", { class: "button", href: `#/new?from=${r.id}` }, "Run again…"),
    r.experimentId !== null &&
      h("a", { class: "button", href: `#/compare?experiment=${r.experimentId}` }, `Experiment #${r.experimentId}`),
  ];
}

/** What the run can be downloaded as. @param {Run} r */
function downloads(r) {
  return [
    downloadButton("Export CSV", () => `/api/runs/${r.id}/export.csv`, {
      title: "Every round's metrics",
      format: "csv",
    }),
    downloadButton("Bundle", () => `/api/runs/${r.id}/export.zip`, {
      title: "The run with its config: config, summary, every round's metrics and client records (.zip)",
      format: "zip",
    }),
    r.roundsDone > 0 &&
      downloadButton("Figure", () => `/api/runs/${r.id}/figure.pdf`, {
        title: "The run's accuracy and loss curves as a PDF for a paper",
        format: "pdf",
      }),
    r.modelBytes !== null &&
      downloadButton("Model", () => `/api/runs/${r.id}/model`, {
        title: `The final global model (safetensors, ${(r.modelBytes / 1024).toFixed(0)} KiB)`,
        format: "safetensors",
      }),
  ];
}

/** A fact of the head; none for a value not there (not started, not finished). @param {string} k @param {string} v */
function fact(k, v) {
  if (!v || v === "—") return null;
  return h("div", {}, h("dt", {}, k), h("dd", {}, v));
}

/**
 * The name, notes and tags in a form under the title; saved with PATCH.
 * @param {Run} r @param {(edited: Run) => void} saved @param {() => void} close
 */
export function editForm(r, saved, close) {
  const name = h("input", { name: "edit-name", value: r.name, maxLength: 200, "aria-label": "name" });
  const tags = h("input", {
    name: "edit-tags",
    value: r.tags.join(", "),
    placeholder: "tags, comma-separated",
    "aria-label": "tags",
  });
  const notes = h("textarea", { name: "edit-notes", rows: 2, maxLength: 20000, "aria-label": "notes" }, r.notes);
  const problem = h("div", { class: "field-error" });
  const save = async () => {
    const changes = {
      name: name.value.trim(),
      notes: notes.value,
      tags: tags.value
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean),
    };
    try {
      saved(await api.editRun(r.id, changes));
    } catch (err) {
      problem.textContent =
        err instanceof ApiError && err.fields.length
          ? err.fields.map((f) => `${f.path}: ${f.message}`).join("; ")
          : String(err);
    }
  };
  const submit = (/** @type {Event} */ e) => {
    e.preventDefault();
    save();
  };
  const buttons = h(
    "div",
    { class: "actions" },
    h("button", { type: "submit", class: "primary" }, "Save"),
    h("button", { type: "button", on: { click: close } }, "Discard"),
  );
  return h("form", { class: "edit-run", on: { submit } }, name, tags, notes, problem, buttons);
}
