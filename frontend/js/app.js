// Entry point: mounts the page of the current hash route and unmounts the previous one
// (which closes its streams and timers).
import { errorBox, h, replace } from "./dom.js";
import { parseRoute } from "./router.js";
import * as comparePage from "./pages/compare/index.js";
import * as experimentPage from "./pages/experiment.js";
import * as newRunPage from "./pages/new-run/index.js";
import * as reproductionPage from "./pages/reproduction.js";
import * as runPage from "./pages/run/index.js";
import * as runsPage from "./pages/runs/index.js";
import * as tunePage from "./pages/tune/index.js";

/** @typedef {(root: HTMLElement, route: import("./router.js").Route) => (() => void)} Mount */

/** @type {Record<string, {mount: Mount, title: string}>} */
const PAGES = {
  runs: { mount: runsPage.mount, title: "Runs" },
  new: { mount: newRunPage.mount, title: "New run" },
  run: { mount: runPage.mount, title: "Run" },
  compare: { mount: comparePage.mount, title: "Compare" },
  reproduction: { mount: reproductionPage.mount, title: "Reproduction" },
  experiment: { mount: experimentPage.mount, title: "Experiment" },
  tune: { mount: tunePage.mount, title: "Tune" },
};
/** The nav entry a page belongs under. @type {Record<string, string>} */
const NAV = { run: "runs", reproduction: "compare", experiment: "runs", tune: "compare" };

const root = /** @type {HTMLElement} */ (document.getElementById("view"));
let unmount = () => {};

function render() {
  unmount();
  const route = parseRoute(location.hash);
  const page = PAGES[route.page];
  document.title = `${page.title} · FedWatch`;
  for (const link of document.querySelectorAll("nav a[data-page]")) {
    link.classList.toggle("active", /** @type {HTMLElement} */ (link).dataset.page === (NAV[route.page] ?? route.page));
  }
  const container = h("div", { class: `page page-${route.page}` });
  replace(root, container);
  try {
    unmount = page.mount(container, route);
  } catch (err) {
    replace(container, errorBox(err));
    unmount = () => {};
  }
  window.scrollTo(0, 0);
}

window.addEventListener("hashchange", render);
render();
