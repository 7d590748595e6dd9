// Plotly.js, loaded on the first plot instead of with the page: its 4.8 MB script would
// otherwise hold back the first paint of every page, the runs list included. A page that
// plots calls `preloadPlotly()` as it mounts (the script downloads while the page's data
// does, without running), draws its frame and tables at once and hands its plots to
// `react` here: the script runs after the next paint (parsing it takes the main thread for
// a second or so), then the plots are drawn in call order, a frame apart (the first one
// shows without waiting for the others). The server writes the script's versioned URL
// into the page (`<meta name="fedwatch-plotly">`).
import { errorBox, loading, replace } from "./dom.js";

/** The mark set when the document's first plot has rendered (`bench/paint.py` reads it). */
export const FIRST_PLOT = "fedwatch:first-plot";
/** The measure from the navigation's start to that mark. */
export const TIME_TO_FIRST_PLOT = "fedwatch:time-to-first-plot";
const DEFAULT_URL = "/vendor/plotly.min.js";
/** Every plot's Plotly config: it follows its card's width, without Plotly's logo. */
export const PLOT_CONFIG = { responsive: true, displaylogo: false };

/** @type {Promise<any>|null} */
let pending = null;
let preloaded = false;
/** Plotly, once loaded and the calls queued before have started to run. @type {any} */
let ready = null;
/** The latest react or purge of each plot: an older queued react is skipped. @type {WeakMap<HTMLElement, object>} */
const latest = new WeakMap();

/** The script's URL: versioned by the server in index.html, plain elsewhere. */
function scriptUrl() {
  const meta = /** @type {HTMLMetaElement|null} */ (document.querySelector('meta[name="fedwatch-plotly"]'));
  return meta?.content || DEFAULT_URL;
}

/** Download the script now, to run it later (`loadPlotly`); once per page load. */
export function preloadPlotly() {
  if (preloaded || pending || /** @type {any} */ (window).Plotly) return;
  preloaded = true;
  document.head.appendChild(
    Object.assign(document.createElement("link"), { rel: "preload", as: "script", href: scriptUrl() }),
  );
}

/**
 * After the next paint: a task queued from an animation frame runs once the frame is
 * drawn. A hidden tab draws no frames: there, after a timeout.
 */
function afterPaint() {
  return new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, 250);
  });
}

/**
 * Plotly, its script run after the next paint on the first call; a failed load is tried
 * again on the next call.
 * @returns {Promise<any>}
 */
export function loadPlotly() {
  if (pending) return pending;
  const w = /** @type {any} */ (window);
  pending = w.Plotly
    ? Promise.resolve(w.Plotly)
    : afterPaint().then(
        () =>
          new Promise((resolve, reject) => {
            const script = document.createElement("script");
            script.src = scriptUrl();
            script.onload = () =>
              w.Plotly ? resolve(w.Plotly) : reject(new Error("Plotly.js loaded without defining Plotly"));
            script.onerror = () => {
              script.remove();
              pending = null;
              reject(new Error(`Plotly.js did not load from ${script.src}`));
            };
            document.head.appendChild(script);
          }),
      );
  return pending;
}

/** @type {{fn: (P: any) => void, failed: (err: unknown) => void}[]} calls waiting for Plotly */
const queue = [];
let draining = false;

/**
 * `fn(Plotly)` now if it is loaded and nothing waits, else once it is, after the calls
 * queued before.
 * @param {(P: any) => void} fn @param {(err: unknown) => void} [failed]
 */
function withPlotly(fn, failed = () => {}) {
  if (ready && !queue.length) {
    fn(ready);
    return;
  }
  queue.push({ fn, failed });
  if (queue.length === 1 && !draining)
    loadPlotly().then(drain, (err) => {
      for (const call of queue.splice(0)) call.failed(err);
    });
}

/**
 * Run the queued calls, a frame between two of them: the first plot shows as soon as it
 * is drawn instead of once every plot of the page is.
 * @param {any} P
 */
async function drain(P) {
  draining = true;
  ready = P;
  while (queue.length) {
    const call = /** @type {{fn: (P: any) => void}} */ (queue.shift());
    try {
      call.fn(P);
    } catch (err) {
      console.error(err);
    }
    if (queue.length) await afterPaint();
  }
  draining = false;
}

/**
 * Plotly.react into `div`, which may hold an empty, loading or error state instead of a plot.
 * @param {HTMLElement} div @param {any[]} data @param {any} layout @param {any} [config]
 */
export function react(div, data, layout, config = PLOT_CONFIG) {
  const ticket = {};
  latest.set(div, ticket);
  if (!ready && !div.querySelector(".js-plotly-plot, .main-svg")) replace(div, loading("Loading the chart…"));
  withPlotly(
    (P) => {
      if (latest.get(div) !== ticket) return;
      for (const state of div.querySelectorAll(":scope > .state")) state.remove();
      P.react(div, data, layout, config).then(markFirstPlot, () => {});
    },
    (err) => {
      if (latest.get(div) === ticket) replace(div, errorBox(err));
    },
  );
}

/**
 * Plotly.extendTraces, after the queued react of `div`; nothing if `div` holds no plot by then.
 * @param {HTMLElement} div @param {{x: number[][], y: number[][]}} update @param {number[]} indices
 */
export function extendTraces(div, update, indices) {
  withPlotly((P) => {
    if (Array.isArray(/** @type {any} */ (div).data)) P.extendTraces(div, update, indices);
  });
}

/** Remove the plot of `div` (a react still queued for it is dropped). @param {HTMLElement} div */
export function purge(div) {
  latest.set(div, {});
  if (ready) ready.purge(div);
}

function markFirstPlot() {
  if (performance.getEntriesByName(FIRST_PLOT).length) return;
  performance.mark(FIRST_PLOT);
  performance.measure(TIME_TO_FIRST_PLOT, { start: 0, end: FIRST_PLOT });
}
