// The run page once its data are there: the head, the curves, the client views and the
// details, kept up to date by the events the page follows (index.js).
import { api } from "../../api.js";
import { confirmIn } from "../../confirm.js";
import { h, replace } from "../../dom.js";
import { helpLink } from "../../help.js";
import { ClientViews } from "./client-views.js";
import { Curves } from "./curves.js";
import { details } from "./details.js";
import { editForm, head, progress, statusFields } from "./head.js";

/** @typedef {import("../../api.js").Run} Run */
/** @typedef {import("../../api.js").Series} Series */

export class RunView {
  /**
   * @param {HTMLElement} root @param {Run} run @param {Map<string, Series>} series
   * @param {import("../../api.js").MetricSpec[]} catalogue the metric catalogue: panels, summary rows
   * @param {HTMLElement[]} plots every plot div, purged on unmount
   * @param {(v: RunView) => void} onReady follows the run while it is active; called again when it resumes
   * @param {{x: string|null, logY: boolean}} asked the address's x axis and log y axis
   * @param {import("../../api.js").Meta} meta the x axes, the timeline's states
   */
  constructor(root, run, series, catalogue, plots, onReady, asked, meta) {
    this.run = run;
    this.catalogue = catalogue;
    this.onReady = onReady;
    /** @type {HTMLElement|null} the open edit form (name, notes, tags), if any */
    this.editor = null;
    /**
     * What this page saved of the name, notes and tags, until a run read from the server
     * shows it: an event or an answer read before the save was stored, arriving after it,
     * must not show the values from before.
     * @type {{name: string, notes: string, tags: string[]}|null}
     */
    this.saved = null;
    const plotDiv = (/** @type {string} */ name) => {
      const div = h("div", { class: "plot", dataset: { plot: name } });
      plots.push(div);
      return div;
    };
    this.curves = new Curves(() => this.run, series, catalogue, plotDiv, asked, meta.xAxes);
    /** a log y axis on the staleness distribution, whose counts span decades */
    this.histLog = /** @type {HTMLInputElement} */ (
      h("input", { type: "checkbox", name: "hist-log", on: { change: () => this.refreshClientViews() } })
    );
    this.clients = new ClientViews(run, this.curves.timed, () => this.histLog.checked, meta.timelineStates);
    plots.push(...this.clients.plots());
    this.head = h("div", { class: "run-head" });
    this.asking = h("div", { class: "confirm-slot", hidden: true });
    this.connection = h("span", { class: "live-dot", title: "live" });
    this.details = h("div", { class: "run-details" });
    this.layout(root);
    this.renderHead();
    this.renderDetails();
    this.curves.draw();
    onReady(this);
  }

  /** @param {HTMLElement} root */
  layout(root) {
    const section = (/** @type {HTMLElement[]} */ headed, /** @type {HTMLElement} */ body) =>
      h("section", {}, h("div", { class: "section-head" }, headed), body);
    replace(
      root,
      this.head,
      this.asking,
      section(
        [
          h("h2", {}, "Training curves ", this.connection, " ", helpLink("curves", "the training curves")),
          this.curves.toolbar(),
        ],
        this.curves.element,
      ),
      section(
        [
          h("h2", {}, "Clients ", helpLink("clients", "the client views")),
          h("label", { class: "check" }, this.histLog, "log counts (staleness distribution)"),
        ],
        this.clients.element,
      ),
      this.details,
    );
  }

  renderHead() {
    this.connection.hidden = !this.run.active;
    const act = { edit: () => this.edit(), cancel: () => this.cancel(), resume: () => this.resume() };
    replace(this.head, head(this.run, act, this.editor));
  }

  renderDetails() {
    replace(this.details, details(this.run, this.catalogue));
  }

  drawCurves() {
    this.curves.draw();
  }

  refreshClientViews() {
    return this.clients.refresh(this.run);
  }

  lastRound() {
    return this.curves.lastRound();
  }

  /** The run's stored series, as read again. @param {Map<string, Series>} series */
  setSeries(series) {
    this.curves.series = series;
  }

  /** Append streamed rows: the progress, then the curves. @param {Record<string, number>[]} rows */
  append(rows) {
    const last = rows[rows.length - 1].round;
    if (this.run.roundsTotal) {
      this.run = { ...this.run, roundsDone: last + 1, progress: (last + 1) / this.run.roundsTotal };
      this.head.querySelector(".progress")?.replaceWith(progress(this.run));
    }
    this.curves.append(rows);
  }

  /** @param {any} wire a Run without config, from a status event */
  setStatus(wire) {
    const { config, summary } = this.run;
    const fields = this.unlessStale(statusFields(wire));
    // An event read just before the cancel was stored may arrive after its answer.
    if (this.run.cancelling && fields.status === "running") fields.cancelling = true;
    this.run = { ...this.run, ...fields, config, summary: wire.summary ?? summary };
    this.renderHead();
  }

  /** @param {boolean} ok */
  setConnection(ok) {
    this.connection.classList.toggle("down", !ok);
    this.connection.title = ok ? "live" : "reconnecting…";
  }

  /** @param {Run} run as the API helpers return it */
  setRun(run) {
    const fresh = this.unlessStale(run);
    this.run = { ...fresh, config: run.config ?? this.run.config, summary: run.summary ?? this.run.summary };
    this.renderHead();
  }

  /**
   * `fields` of a run read from the server, with what this page saved in place of the
   * name, notes and tags where they were read before the save was stored.
   * @template {{name?: string, notes?: string, tags?: string[]}} T @param {T} fields @returns {T}
   */
  unlessStale(fields) {
    const saved = this.saved;
    if (!saved) return fields;
    const shown =
      fields.name === saved.name && fields.notes === saved.notes && fields.tags?.join() === saved.tags.join();
    if (shown) this.saved = null;
    return shown ? fields : { ...fields, ...saved };
  }

  /** The name, notes and tags in a form under the title. */
  edit() {
    const saved = (/** @type {Run} */ edited) => {
      this.editor = null;
      this.saved = null;
      this.setRun(edited);
      this.saved = { name: edited.name, notes: edited.notes, tags: edited.tags };
    };
    const close = () => {
      this.editor = null;
      this.renderHead();
    };
    this.editor = editForm(this.run, saved, close);
    this.renderHead();
  }

  async cancel() {
    if (!(await confirmIn(this.asking, `Cancel run #${this.run.id}?`, "Cancel run"))) return;
    try {
      this.setRun(await api.cancelRun(this.run.id));
    } catch (err) {
      alert(err instanceof Error ? err.message : String(err));
    }
  }

  async resume() {
    try {
      this.setRun(await api.resumeRun(this.run.id));
      this.onReady(this);
    } catch (err) {
      alert(err instanceof Error ? err.message : String(err));
    }
  }
}
