// Below the charts: the run's summary in the catalogue's units, and its config (what
// matters to the run, then the whole of it).
import { specOf } from "../../catalog.js";
import { empty, h } from "../../dom.js";
import { duration, label, num } from "../../format.js";
import { essentialConfig, summaryRows } from "./state.js";

/** @param {import("../../api.js").Run} run @param {import("../../api.js").MetricSpec[]} catalogue */
export function details(run, catalogue) {
  const s = run.summary;
  const rows = s ? summaryRows(s, catalogue, run.roundsDone) : [];
  const summary = rows.length
    ? h(
        "table",
        { class: "kv" },
        h(
          "tbody",
          {},
          rows.map(([k, v]) => h("tr", { dataset: { key: k } }, h("th", {}, label(k)), h("td", {}, shownValue(k, v)))),
        ),
      )
    : empty(run.active ? "The summary appears when the run ends." : "No summary.");
  return [
    h("section", { class: "summary" }, h("h2", {}, "Summary"), summary),
    h("section", { class: "config" }, h("h2", {}, "Config"), run.config ? config(run.config) : empty("No config.")),
  ];
}

/** @param {Record<string, any>} config */
function config(config) {
  return [
    h("pre", { class: "config-json" }, JSON.stringify(essentialConfig(config), null, 2)),
    h(
      "details",
      { class: "config-full" },
      h("summary", {}, "Full config (with unset values and the parameters of components not selected)"),
      h("pre", { class: "config-json" }, JSON.stringify(config, null, 2)),
    ),
  ];
}

/** A summary value in the catalogue's unit ("0.38 s", "76.12 %"). @param {string} k @param {number|boolean} v */
function shownValue(k, v) {
  if (typeof v === "boolean") return "yes";
  if (k === "wall_s") return duration(v);
  const spec = specOf(k);
  const text = num(v * (spec?.scale ?? 1), 5);
  return spec?.unit ? `${text} ${spec.unit}` : text;
}
