// Run: live curves (initial downsampled fetch, then rounds streamed over SSE and appended),
// client views, summary. This module loads the run and follows it while it is active.
import { api, authHeaders } from "../../api.js";
import { loadCatalog } from "../../catalog.js";
import { loadMeta } from "../../meta.js";
import { empty, errorBox, h, loading, replace } from "../../dom.js";
import { preloadPlotly, purge } from "../../plot.js";
import { followEvents } from "../../sse.js";
import { RunView } from "./view.js";

const FLUSH_MS = 300;
const CLIENT_VIEWS_MS = 3000;

/** @type {import("../../app.js").Mount} */
export function mount(root, route) {
  const page = new RunPage(root, /** @type {number} */ (route.id), route.query);
  return () => page.close();
}

class RunPage {
  /** @param {HTMLElement} root @param {number} id @param {URLSearchParams} query */
  constructor(root, id, query) {
    this.root = root;
    this.id = id;
    this.query = query;
    /** @type {{close: () => void}|null} */
    this.stream = null;
    this.flushTimer = 0;
    this.viewsTimer = 0;
    this.alive = true;
    /** @type {HTMLElement[]} */
    this.plots = [];
    replace(root, loading(`Loading run #${id}…`));
    preloadPlotly(); // downloads while the run's data does; runs once a plot is drawn
    this.load();
  }

  load() {
    this.start().catch((err) => {
      if (!this.alive) return;
      if (/** @type {any} */ (err)?.status === 404) this.missing();
      else
        replace(
          this.root,
          errorBox(err, () => {
            replace(this.root, loading());
            this.load();
          }),
        );
    });
  }

  missing() {
    const back = h("a", { href: "#/runs" }, "Back to the runs");
    const gone = empty(`Run #${this.id} does not exist`, "It was deleted, or never created.");
    replace(this.root, h("div", { class: "state state-missing" }, gone, back));
  }

  async start() {
    const [run, series, catalogue, meta] = await Promise.all([
      api.run(this.id),
      api.metrics(this.id, { maxPoints: 1000 }),
      loadCatalog(),
      loadMeta(),
    ]);
    if (!this.alive) return;
    const asked = { x: this.query.get("x"), logY: this.query.get("logy") === "1" };
    new RunView(this.root, run, series, catalogue, this.plots, (v) => this.follow(v), asked, meta);
  }

  /** @param {RunView} view */
  follow(view) {
    view.refreshClientViews();
    if (!view.run.active) return;
    /** @type {Record<string, number>[]} */
    let pending = [];
    const flush = () => {
      if (!pending.length) return;
      const rows = pending;
      pending = [];
      view.setConnection(true);
      view.append(rows);
    };
    const lastRound = view.lastRound();
    this.stream = followEvents(api.eventsUrl(this.id), {
      lastEventId: lastRound === null ? null : String(lastRound),
      headers: authHeaders(),
      onEvent: (e) => {
        const data = JSON.parse(e.data);
        if (e.event === "round") pending.push(data);
        else if (e.event === "status") {
          view.setStatus(data);
          if (!view.run.active) {
            flush();
            this.finish(view);
          }
        }
      },
      onError: () => view.setConnection(false),
    });
    this.flushTimer = setInterval(flush, FLUSH_MS);
    this.viewsTimer = setInterval(() => view.refreshClientViews(), CLIENT_VIEWS_MS);
  }

  /** The run ended: stop following and redraw everything from the stored records. @param {RunView} view */
  async finish(view) {
    this.stop();
    const [run, series] = await Promise.all([api.run(this.id), api.metrics(this.id, { maxPoints: 1000 })]);
    if (!this.alive) return;
    view.setRun(run);
    view.renderDetails();
    view.setSeries(series);
    view.drawCurves();
    view.refreshClientViews();
  }

  stop() {
    this.stream?.close();
    clearInterval(this.flushTimer);
    clearInterval(this.viewsTimer);
  }

  close() {
    this.alive = false;
    this.stop();
    for (const p of this.plots) purge(p);
  }
}
