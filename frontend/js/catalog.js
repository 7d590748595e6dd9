// The metric catalogue (`GET /api/metrics/catalog`) and its panels (`/api/metrics/panels`),
// fetched once and kept: labels, the run page's charts, the compare table's columns and
// the runs page's rankings read it.
import { api } from "./api.js";

/** @typedef {import("./api.js").MetricSpec} MetricSpec */
/** @typedef {import("./api.js").PanelSpec} PanelSpec */

/** @type {Map<string, MetricSpec>} */
const byName = new Map();
/** @type {PanelSpec[]} */
let panelList = [];
/** @type {Promise<MetricSpec[]>|null} */
let loading = null;

/** The catalogue, fetched on the first call; a failed fetch is tried again next time. @returns {Promise<MetricSpec[]>} */
export function loadCatalog() {
  loading ??= Promise.all([api.metricCatalog(), api.metricPanels()]).then(
    ([specs, panels]) => {
      for (const s of specs) byName.set(s.name, s);
      panelList = panels;
      return specs;
    },
    (err) => {
      loading = null;
      throw err;
    },
  );
  return loading;
}

/** A metric's entry, once the catalogue is loaded. @param {string} name @returns {MetricSpec|undefined} */
export function specOf(name) {
  return byName.get(name);
}

/** The panels in display order, once the catalogue is loaded. @returns {PanelSpec[]} */
export function panelSpecs() {
  return panelList;
}
