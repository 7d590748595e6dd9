// Runs: a filterable table with live status and progress; pick runs to compare, tag,
// archive or delete together (one confirmation, one request); archived runs on request.
import { api } from "../api.js";
import { loadCatalog, specOf } from "../catalog.js";
import { loadStatuses } from "../statuses.js";
import { badge, empty, errorBox, h, loading, progressBar, replace } from "../dom.js";
import { heading, headline, num, seedText, shortWhen, when } from "../format.js";
import { go, replaceQuery } from "../router.js";
import { columnChooser, shownColumns } from "../columns.js";

/** @typedef {import("../columns.js").Column & {heading?: string, cell: (run: import("../api.js").Run) => HTMLElement}} RunColumn */
import { standing } from "../standing.js";
import { confirmIn } from "../confirm.js";
import { helpLink } from "../help.js";

const PAGE_SIZE = 50;
const REFRESH_MS = 2000;

/** @type {import("../app.js").Mount} */
export function mount(root, route) {
  const q = route.query;
  const filters = {
    status: q.get("status") ?? "",
    algorithm: q.get("algorithm") ?? "",
    experimentId: q.get("experiment") ?? "",
    q: q.get("q") ?? "",
    rankBy: q.get("rank") ?? "",
    tag: q.get("tag") ?? "",
    archived: ["yes", "any"].includes(q.get("archived") ?? "") ? /** @type {string} */ (q.get("archived")) : "",
    offset: Number(q.get("offset") ?? 0) || 0,
  };
  /** @type {Set<number>} */
  const picked = new Set();
  /** The page's mutable state, in one place: its refresh timer, whether it is mounted, the key of the rows shown, and the search box's pending apply. */
  const page = {
    timer: 0,
    alive: true,
    shown: "",
    debounce: 0,
  };

  const status = select("status", [["", "any status"]], filters.status);
  const algorithm = select("algorithm", [["", "any algorithm"]], filters.algorithm);
  const experiment = select("experiment", [["", "any experiment"]], filters.experimentId);
  const text = h("input", { type: "search", name: "q", placeholder: "search name, notes or tags", value: filters.q });
  // Newest first, or best first by a summary value the catalogue ranks by (`rank_by`).
  const rank = select("rank", [["", "newest first"]], filters.rankBy);
  const archived = select(
    "archived",
    [
      ["", "not archived"],
      ["yes", "archived"],
      ["any", "archived or not"],
    ],
    filters.archived,
  );
  const tagFilter = h("span", { class: "tag-filter" });
  // The experiment filtered by, as a whole: its progress page.
  const experimentLink = h("a", { class: "experiment-link", hidden: true }, "");
  const compareBtn = h(
    "button",
    { type: "button", class: "primary", disabled: true, on: { click: () => go("/compare", { runs: [...picked] }) } },
    "Compare selected",
  );
  const tagName = /** @type {HTMLInputElement} */ (
    h("input", {
      type: "text",
      name: "bulk-tag",
      placeholder: "tag",
      maxLength: 40,
      "aria-label": "tag for the selected runs",
      pattern: "[A-Za-z0-9_.:+\\-]{1,40}",
    })
  );
  const selection = h(
    "div",
    { class: "selection-bar", hidden: true },
    h("span", { class: "selected-count" }),
    tagName,
    h("button", { type: "button", dataset: { bulk: "tag" }, on: { click: () => bulk("tag") } }, "Tag"),
    h("button", { type: "button", dataset: { bulk: "untag" }, on: { click: () => bulk("untag") } }, "Untag"),
    h(
      "button",
      {
        type: "button",
        dataset: { bulk: "archive" },
        on: { click: () => bulk(filters.archived === "yes" ? "unarchive" : "archive") },
      },
      "",
    ),
    h(
      "button",
      { type: "button", class: "danger", dataset: { bulk: "delete" }, on: { click: () => bulk("delete") } },
      "Delete",
    ),
    h("button", { type: "button", class: "link", on: { click: () => clearPicked() } }, "clear selection"),
  );
  const body = h("div", { class: "table-wrap" }, loading("Loading runs…"));
  const asking = h("div", { class: "confirm-slot", hidden: true });
  const pager = h("div", { class: "pager" });
  // Re-rendered from the last list when the user shows or hides a column.
  const chooser = columnChooser("runs", () => {
    page.shown = "";
    refresh();
  });
  chooser.update(runColumns());

  replace(
    root,
    h(
      "div",
      { class: "page-head" },
      h("h1", {}, "Runs ", helpLink("runs", "the runs table")),
      h("a", { class: "button primary", href: "#/new" }, "New run"),
    ),
    h(
      "p",
      { class: "tagline" },
      "FedWatch runs and tracks federated learning when clients come and go: simulate FedAvg, FedLaAvg, MIFA, FedAR, CA-Fed and more under diurnal, random or correlated availability, or log your own FL code, and compare them run for run.",
    ),
    h(
      "form",
      { class: "filters", on: { submit: (/** @type {Event} */ e) => e.preventDefault() } },
      status,
      algorithm,
      experiment,
      experimentLink,
      text,
      tagFilter,
      rank,
      archived,
      compareBtn,
      chooser.el,
    ),
    selection,
    asking,
    body,
    pager,
  );

  for (const control of [status, algorithm, experiment, rank, archived])
    control.addEventListener("change", () => apply());
  text.addEventListener("input", () => {
    clearTimeout(page.debounce);
    page.debounce = setTimeout(apply, 300);
  });

  /** Show only runs with this tag ("" for all). @param {string} tag */
  function filterTag(tag) {
    filters.tag = tag;
    filters.offset = 0;
    showTagFilter();
    refresh();
  }

  function showTagFilter() {
    replace(
      tagFilter,
      filters.tag &&
        h(
          "button",
          { type: "button", class: "tag active", title: "show every tag", on: { click: () => filterTag("") } },
          `tag: ${filters.tag} ✕`,
        ),
    );
  }

  function apply() {
    filters.status = status.value;
    filters.algorithm = algorithm.value;
    filters.experimentId = experiment.value;
    filters.q = text.value.trim();
    filters.rankBy = rank.value;
    filters.archived = archived.value;
    filters.offset = 0;
    clearPicked();
    refresh();
  }

  api
    .schema()
    .then((schema) => {
      const names = schema.$defs?.AlgorithmConfig?.properties?.name?.enum ?? [];
      addOptions(
        algorithm,
        names.map((/** @type {string} */ n) => [n, n]),
      );
      algorithm.value = filters.algorithm;
    })
    .catch(() => {});
  loadStatuses()
    .then((statuses) => {
      addOptions(
        status,
        statuses.map((s) => [s.name, s.name]),
      );
      status.value = filters.status;
    })
    .catch(() => {});
  api
    .experiments()
    .then((exps) => {
      addOptions(
        experiment,
        exps.map((e) => [String(e.id), `#${e.id} ${e.name}`]),
      );
      experiment.value = filters.experimentId;
    })
    .catch(() => {});
  // The table shows once the catalogue is there: its ranked-value column reads it.
  loadCatalog()
    .then((catalogue) => {
      const ranked = catalogue.filter((s) => s.kind === "summary" && s.rank);
      addOptions(
        rank,
        ranked.map((m) => [m.name, `${m.label} ${m.better === "higher" ? "↓" : "↑"}`]),
      );
      rank.value = filters.rankBy;
    })
    .catch(() => {})
    .finally(() => page.alive && refresh());

  async function refresh() {
    clearTimeout(page.timer);
    replaceQuery("/runs", {
      status: filters.status,
      algorithm: filters.algorithm,
      experiment: filters.experimentId,
      q: filters.q,
      rank: filters.rankBy,
      tag: filters.tag,
      archived: filters.archived,
      offset: filters.offset || "",
    });
    try {
      showExperimentLink();
      // An experiment's runs as they progress: running, then queued in the order they start.
      const order = filters.experimentId && !filters.rankBy ? "activity" : undefined;
      const { runs, count } = await api.listRuns({
        ...filters,
        archived: filters.archived || undefined,
        order,
        limit: PAGE_SIZE,
      });
      if (!page.alive) return;
      // Re-render only on change, so that an idle table does not swap buttons under the pointer.
      const key = JSON.stringify([runs, count, filters]); // the empty state names the filters
      if (key !== page.shown) {
        page.shown = key;
        renderTable(runs);
        renderPager(count);
      }
    } catch (err) {
      if (!page.alive) return;
      page.shown = "";
      replace(body, errorBox(err, refresh));
    }
    if (page.alive) page.timer = setTimeout(refresh, REFRESH_MS);
  }

  /** @param {import("../api.js").Run[]} runs */
  function renderTable(runs) {
    if (!runs.length) {
      const filtered =
        filters.status || filters.algorithm || filters.experimentId || filters.q || filters.tag || filters.archived;
      replace(
        body,
        filtered
          ? empty("No run matches these filters.")
          : empty("No runs yet.", [
              "Start one from ",
              h("a", { href: "#/new" }, "New run"),
              ", or try the ",
              h("a", { href: "#/new?preset=example1" }, "example1 preset"),
              ": it takes seconds.",
            ]),
      );
      return;
    }
    const columns = shownColumns(runColumns(), chooser.choice());
    const rows = runs.map((run) =>
      h(
        "tr",
        { dataset: { runId: String(run.id) } },
        columns.map((c) => c.cell(run)),
      ),
    );
    const all = /** @type {HTMLInputElement} */ (
      h("input", {
        type: "checkbox",
        name: "pick-all",
        "aria-label": "select every run on this page",
        checked: runs.every((r) => picked.has(r.id)),
        on: {
          change: () => {
            for (const r of runs) toggle(r.id, all.checked);
            page.shown = "";
            refresh();
          },
        },
      })
    );
    const head = (/** @type {RunColumn} */ c) =>
      h("th", { dataset: { key: c.key } }, c.key === "pick" ? all : (c.heading ?? c.label));
    replace(
      body,
      h("table", { class: "runs-table" }, h("thead", {}, h("tr", {}, columns.map(head))), h("tbody", {}, rows)),
    );
  }

  function clearPicked() {
    for (const id of [...picked]) toggle(id, false);
    page.shown = "";
  }

  /**
   * The selection's action, in one request; deleting asks once for all of them.
   * @param {"delete"|"archive"|"unarchive"|"tag"|"untag"} action
   */
  async function bulk(action) {
    const ids = [...picked];
    const n = `${ids.length} run${ids.length === 1 ? "" : "s"}`;
    const tag = tagName.value.trim();
    if ((action === "tag" || action === "untag") && !tagName.checkValidity()) return tagName.reportValidity();
    if ((action === "tag" || action === "untag") && !tag) {
      tagName.focus();
      return;
    }
    if (
      action === "delete" &&
      !(await confirmIn(asking, `Delete ${n} and all their records? This cannot be undone.`, `Delete ${n}`))
    )
      return;
    try {
      await api.bulk(ids, action, tag || undefined);
      if (action === "delete" || action === "archive" || action === "unarchive") clearPicked();
    } catch (err) {
      alert(err instanceof Error ? err.message : String(err));
    }
    page.shown = "";
    refresh();
  }

  /**
   * The table's columns: fixed ones and those the "Columns" menu shows or hides (at
   * 1440 px the default set fits without scrolling sideways).
   * @returns {RunColumn[]}
   */
  function runColumns() {
    return [
      {
        key: "pick",
        label: "select",
        heading: "",
        cell: (run) =>
          h(
            "td",
            {},
            h("input", {
              type: "checkbox",
              "aria-label": `select run ${run.id}`,
              checked: picked.has(run.id),
              on: {
                change: (/** @type {Event} */ e) => toggle(run.id, /** @type {HTMLInputElement} */ (e.target).checked),
              },
            }),
          ),
      },
      { key: "id", label: "#", cell: (run) => h("td", { class: "num" }, String(run.id)) },
      {
        key: "name",
        label: "name",
        cell: (run) =>
          h(
            "td",
            { class: "name-cell" },
            h("a", { href: `#/runs/${run.id}`, class: "run-name" }, run.name || `run ${run.id}`),
            run.notes && h("div", { class: "muted small" }, run.notes),
            run.tags.length > 0 &&
              h(
                "div",
                { class: "tags" },
                run.tags.map((t) =>
                  h(
                    "button",
                    { type: "button", class: "tag", title: `only runs tagged ${t}`, on: { click: () => filterTag(t) } },
                    t,
                  ),
                ),
              ),
          ),
      },
      {
        key: "status",
        label: "status",
        cell: (run) => h("td", {}, badge(run.cancelling ? "cancelling" : run.status), standing(run)),
      },
      {
        key: "progress",
        label: "progress",
        optional: true,
        cell: (run) =>
          h("td", { class: "progress-cell" }, progressBar(run.progress, `${run.roundsDone} / ${run.roundsTotal}`)),
      },
      { key: "algorithm", label: "algorithm", optional: true, cell: (run) => h("td", {}, run.algorithm) },
      { key: "dataset", label: "dataset", optional: true, hidden: true, cell: (run) => h("td", {}, run.dataset) },
      {
        key: "availability",
        label: "availability",
        optional: true,
        hidden: true,
        cell: (run) => h("td", {}, run.availability),
      },
      {
        key: "seed",
        label: "seed",
        optional: true,
        hidden: true,
        cell: (run) => h("td", { class: "num" }, seedText(run.seed)),
      },
      {
        key: "experiment",
        label: "experiment",
        optional: true,
        cell: (run) =>
          h(
            "td",
            {},
            run.experimentId === null
              ? "—"
              : h("a", { href: `#/experiments/${run.experimentId}` }, `#${run.experimentId}`),
          ),
      },
      {
        key: "result",
        label: "result",
        optional: true,
        cell: (run) => h("td", { class: "nowrap" }, rankedValue(filters.rankBy, run.summary) ?? headline(run.summary)),
      },
      {
        key: "created",
        label: "created",
        optional: true,
        cell: (run) => h("td", { class: "nowrap small", title: when(run.createdAt) }, shortWhen(run.createdAt)),
      },
      {
        key: "actions",
        label: "actions",
        heading: "",
        cell: (run) =>
          h(
            "td",
            { class: "actions" },
            run.active &&
              !run.cancelling &&
              h("button", { type: "button", on: { click: () => cancel(run) } }, "Cancel"),
            h("button", { type: "button", class: "danger", on: { click: () => remove(run) } }, "Delete"),
          ),
      },
    ];
  }

  function showExperimentLink() {
    experimentLink.hidden = !filters.experimentId;
    experimentLink.setAttribute("href", `#/experiments/${filters.experimentId}`);
    experimentLink.textContent = `experiment #${filters.experimentId} progress`;
    rank.options[0].textContent = filters.experimentId ? "running first" : "newest first";
  }

  /** @param {number} count */
  function renderPager(count) {
    const page = Math.floor(filters.offset / PAGE_SIZE) + 1;
    const pages = Math.max(1, Math.ceil(count / PAGE_SIZE));
    const move = (/** @type {number} */ delta) => {
      filters.offset = Math.max(0, filters.offset + delta * PAGE_SIZE);
      refresh();
    };
    replace(
      pager,
      count > 0 && h("span", { class: "muted" }, `${count} run${count === 1 ? "" : "s"}`),
      pages > 1 && h("button", { type: "button", disabled: page <= 1, on: { click: () => move(-1) } }, "Previous"),
      pages > 1 && h("span", {}, `page ${page} of ${pages}`),
      pages > 1 && h("button", { type: "button", disabled: page >= pages, on: { click: () => move(1) } }, "Next"),
    );
  }

  /** @param {number} id @param {boolean} on */
  function toggle(id, on) {
    if (on) picked.add(id);
    else picked.delete(id);
    compareBtn.disabled = picked.size === 0;
    compareBtn.textContent = picked.size ? `Compare ${picked.size} selected` : "Compare selected";
    selection.hidden = picked.size === 0;
    /** @type {HTMLElement} */ (selection.querySelector(".selected-count")).textContent = `${picked.size} selected:`;
    /** @type {HTMLElement} */ (selection.querySelector("[data-bulk=archive]")).textContent =
      filters.archived === "yes" ? "Unarchive" : "Archive";
  }

  /** @param {import("../api.js").Run} run */
  async function cancel(run) {
    if (!(await confirmIn(asking, `Cancel run #${run.id} "${run.name}"?`, "Cancel run"))) return;
    try {
      await api.cancelRun(run.id);
    } catch (err) {
      alert(err instanceof Error ? err.message : String(err));
    }
    refresh();
  }

  /** @param {import("../api.js").Run} run */
  async function remove(run) {
    const question = `Delete run #${run.id} "${run.name}" and all its records? This cannot be undone.`;
    if (!(await confirmIn(asking, question, "Delete run"))) return;
    try {
      await api.deleteRun(run.id);
      toggle(run.id, false);
    } catch (err) {
      alert(err instanceof Error ? err.message : String(err));
    }
    refresh();
  }

  showTagFilter();
  return () => {
    page.alive = false;
    clearTimeout(page.timer);
    clearTimeout(page.debounce);
  };
}

/** The value the table is ranked by, if any. @param {string} rankBy @param {Record<string, any>|null} summary */
function rankedValue(rankBy, summary) {
  const value = summary?.[rankBy];
  if (!rankBy || !specOf(rankBy)?.rank || value === null || value === undefined) return null;
  return `${heading(rankBy)} ${num(value, 3)}`;
}

/** @param {string} name @param {string[][]} options @param {string} value */
function select(name, options, value) {
  const el = /** @type {HTMLSelectElement} */ (h("select", { name, "aria-label": name }));
  // The value from the URL holds its place until the list it belongs to has loaded, so a
  // filter changed meanwhile does not drop it.
  addOptions(el, value && !options.some(([v]) => v === value) ? [...options, [value, value]] : options);
  el.value = value;
  return el;
}

/** Options by [value, text]; one already there gets the text. @param {HTMLSelectElement} el @param {string[][]} options */
function addOptions(el, options) {
  for (const [value, text] of options) {
    const known = [...el.options].find((o) => o.value === value);
    if (known) known.textContent = text;
    else el.appendChild(h("option", { value }, text));
  }
}
