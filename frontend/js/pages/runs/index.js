// Runs: a filterable table with live status and progress; pick runs to compare, tag,
// archive or delete together (one confirmation, one request); archived runs on request.
// The filters and the page are in the address (state.js).
import { api } from "../../api.js";
import { columnChooser, shownColumns } from "../../columns.js";
import { confirmIn } from "../../confirm.js";
import { errorBox, h, loading, replace } from "../../dom.js";
import { helpLink } from "../../help.js";
import { go, replaceQuery } from "../../router.js";
import { filterControls, loadOptions, selectionBar } from "./controls.js";
import { filterQuery, filtered, listParams, moved, parseFilters, runCount } from "./state.js";
import { noRuns, pagerItems, runColumns, runsTable } from "./table.js";

/** @typedef {import("../../api.js").Run} Run */

const REFRESH_MS = 2000;
const TAGLINE =
  "FedWatch runs and tracks federated learning when clients come and go: simulate FedAvg, FedLaAvg, MIFA, FedAR, CA-Fed and more under diurnal, random or correlated availability, or log your own FL code, and compare them run for run.";

/** @type {import("../../app.js").Mount} */
export function mount(root, route) {
  const page = new RunsPage(root, parseFilters(route.query));
  return () => page.close();
}

/** The page: its filters, the picked runs, and the rows' actions (`table.js` `Rows`). */
class RunsPage {
  /** @param {HTMLElement} root @param {import("./state.js").Filters} filters */
  constructor(root, filters) {
    this.filters = filters;
    /** @type {Set<number>} */
    this.picked = new Set();
    /** the refresh timer, whether the page is mounted, the key of the rows shown, the search box's pending apply */
    this.timer = 0;
    this.alive = true;
    this.shown = "";
    this.debounce = 0;
    this.controls = filterControls(filters);
    this.compareBtn = /** @type {HTMLButtonElement} */ (
      h(
        "button",
        {
          type: "button",
          class: "primary",
          disabled: true,
          on: { click: () => go("/compare", { runs: [...this.picked] }) },
        },
        "Compare selected",
      )
    );
    this.selection = selectionBar(
      (action) => this.bulk(action),
      () => this.filters.archived === "yes",
      () => this.clearPicked(),
    );
    this.body = h("div", { class: "table-wrap" }, loading("Loading runs…"));
    this.asking = h("div", { class: "confirm-slot", hidden: true });
    this.pager = h("div", { class: "pager" });
    // Re-rendered from the last list when the user shows or hides a column.
    this.chooser = columnChooser("runs", () => this.redraw());
    this.chooser.update(runColumns(this));
    this.layout(root);
    this.listen();
    // The table shows once the catalogue is there: its ranked-value column reads it.
    loadOptions(this.controls, filters).finally(() => this.alive && this.refresh());
    this.showTagFilter();
  }

  /** @param {HTMLElement} root */
  layout(root) {
    const c = this.controls;
    replace(
      root,
      h(
        "div",
        { class: "page-head" },
        h("h1", {}, "Runs ", helpLink("runs", "the runs table")),
        h("a", { class: "button primary", href: "#/new" }, "New run"),
      ),
      h("p", { class: "tagline" }, TAGLINE),
      h(
        "form",
        { class: "filters", on: { submit: (/** @type {Event} */ e) => e.preventDefault() } },
        [c.status, c.algorithm, c.experiment, c.experimentLink, c.text, c.tagFilter, c.rank, c.archived],
        this.compareBtn,
        this.chooser.el,
      ),
      this.selection.el,
      this.asking,
      this.body,
      this.pager,
    );
  }

  listen() {
    const c = this.controls;
    for (const control of [c.status, c.algorithm, c.experiment, c.rank, c.archived])
      control.addEventListener("change", () => this.apply());
    c.text.addEventListener("input", () => {
      clearTimeout(this.debounce);
      this.debounce = setTimeout(() => this.apply(), 300);
    });
  }

  close() {
    this.alive = false;
    clearTimeout(this.timer);
    clearTimeout(this.debounce);
  }

  rankBy() {
    return this.filters.rankBy;
  }

  /** Show only runs with this tag ("" for all). @param {string} tag */
  filterTag(tag) {
    this.filters.tag = tag;
    this.filters.offset = 0;
    this.showTagFilter();
    this.refresh();
  }

  showTagFilter() {
    const tag = this.filters.tag;
    replace(
      this.controls.tagFilter,
      tag &&
        h(
          "button",
          { type: "button", class: "tag active", title: "show every tag", on: { click: () => this.filterTag("") } },
          `tag: ${tag} ✕`,
        ),
    );
  }

  apply() {
    const c = this.controls;
    Object.assign(this.filters, {
      status: c.status.value,
      algorithm: c.algorithm.value,
      experimentId: c.experiment.value,
      q: c.text.value.trim(),
      rankBy: c.rank.value,
      archived: c.archived.value,
      offset: 0,
    });
    this.clearPicked();
    this.refresh();
  }

  /** Draw the table again from the server even where the list did not change. */
  redraw() {
    this.shown = "";
    this.refresh();
  }

  async refresh() {
    clearTimeout(this.timer);
    replaceQuery("/runs", filterQuery(this.filters));
    try {
      this.showExperimentLink();
      const { runs, count } = await api.listRuns(listParams(this.filters));
      if (!this.alive) return;
      // Re-render only on change, so that an idle table does not swap buttons under the pointer.
      const key = JSON.stringify([runs, count, this.filters]); // the empty state names the filters
      if (key !== this.shown) {
        this.shown = key;
        this.renderTable(runs);
        replace(
          this.pager,
          pagerItems(count, this.filters.offset, (delta) => this.move(delta)),
        );
      }
    } catch (err) {
      if (!this.alive) return;
      this.shown = "";
      replace(
        this.body,
        errorBox(err, () => this.refresh()),
      );
    }
    if (this.alive) this.timer = setTimeout(() => this.refresh(), REFRESH_MS);
  }

  /** @param {number} delta pages forward */
  move(delta) {
    this.filters.offset = moved(this.filters.offset, delta);
    this.refresh();
  }

  /** @param {Run[]} runs */
  renderTable(runs) {
    if (!runs.length) {
      replace(this.body, noRuns(filtered(this.filters)));
      return;
    }
    const columns = shownColumns(runColumns(this), this.chooser.choice());
    replace(
      this.body,
      runsTable(runs, columns, this, () => this.redraw()),
    );
  }

  showExperimentLink() {
    const { experimentLink, rank } = this.controls;
    const id = this.filters.experimentId;
    experimentLink.hidden = !id;
    experimentLink.setAttribute("href", `#/experiments/${id}`);
    experimentLink.textContent = `experiment #${id} progress`;
    rank.options[0].textContent = id ? "running first" : "newest first";
  }

  clearPicked() {
    for (const id of [...this.picked]) this.toggle(id, false);
    this.shown = "";
  }

  /** @param {number} id @param {boolean} on */
  toggle(id, on) {
    if (on) this.picked.add(id);
    else this.picked.delete(id);
    const n = this.picked.size;
    this.compareBtn.disabled = n === 0;
    this.compareBtn.textContent = n ? `Compare ${n} selected` : "Compare selected";
    const bar = this.selection.el;
    bar.hidden = n === 0;
    /** @type {HTMLElement} */ (bar.querySelector(".selected-count")).textContent = `${n} selected:`;
    /** @type {HTMLElement} */ (bar.querySelector("[data-bulk=archive]")).textContent =
      this.filters.archived === "yes" ? "Unarchive" : "Archive";
  }

  /**
   * The selection's action, in one request; deleting asks once for all of them.
   * @param {import("./controls.js").BulkAction} action
   */
  async bulk(action) {
    const ids = [...this.picked];
    const n = runCount(ids.length);
    const { tagName } = this.selection;
    const tag = tagName.value.trim();
    const tagging = action === "tag" || action === "untag";
    if (tagging && !tagName.checkValidity()) return tagName.reportValidity();
    if (tagging && !tag) return tagName.focus();
    const question = `Delete ${n} and all their records? This cannot be undone.`;
    if (action === "delete" && !(await confirmIn(this.asking, question, `Delete ${n}`))) return;
    try {
      await api.bulk(ids, action, tag || undefined);
      if (!tagging) this.clearPicked();
    } catch (err) {
      alert(err instanceof Error ? err.message : String(err));
    }
    this.redraw();
  }

  /** @param {Run} run */
  async cancel(run) {
    if (!(await confirmIn(this.asking, `Cancel run #${run.id} "${run.name}"?`, "Cancel run"))) return;
    try {
      await api.cancelRun(run.id);
    } catch (err) {
      alert(err instanceof Error ? err.message : String(err));
    }
    this.refresh();
  }

  /** @param {Run} run */
  async remove(run) {
    const question = `Delete run #${run.id} "${run.name}" and all its records? This cannot be undone.`;
    if (!(await confirmIn(this.asking, question, "Delete run"))) return;
    try {
      await api.deleteRun(run.id);
      this.toggle(run.id, false);
    } catch (err) {
      alert(err instanceof Error ? err.message : String(err));
    }
    this.refresh();
  }
}
