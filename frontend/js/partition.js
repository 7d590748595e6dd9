// A partition as the new-run form previews it (`POST /api/partition`) and the run page
// shows it (`GET /api/runs/{id}/partition`): each client's train samples as bars, and a
// clients × classes heatmap of them. Pure trace builders, and a view both pages mount.
import { empty, errorBox, h, replace } from "./dom.js";
import { purge, react } from "./plot.js";
import { lineLayout, PALETTE } from "./traces.js";

/** @typedef {import("./api.js").PartitionSummary} PartitionSummary */

/** Bars of each client's train samples, by client id. @param {PartitionSummary} p */
export function sizeTraces(p) {
  return [
    {
      type: "bar",
      x: p.clients,
      y: p.sizes,
      name: "train samples",
      customdata: p.testSizes,
      marker: { color: PALETTE[0] },
      hovertemplate: "client %{x}: %{y} train, %{customdata} test samples<extra></extra>",
    },
  ];
}

/**
 * The clients × classes heatmap: one row a client shown, one column a class, the count of
 * its train samples of that class (none for a regression dataset).
 * @param {PartitionSummary} p
 */
export function classTraces(p) {
  if (!p.nClasses) return [];
  return [
    {
      type: "heatmap",
      z: p.counts,
      x: Array.from({ length: p.nClasses }, (_, c) => c),
      y: p.clients,
      colorscale: "Viridis",
      colorbar: { title: { text: "samples" }, thickness: 10 },
      hovertemplate: "client %{y}, class %{x}: %{z} samples<extra></extra>",
    },
  ];
}

/** The view's title: totals over every client, and whether the chart shows a sample. @param {PartitionSummary} p */
export function partitionTitle(p) {
  const shown = p.sampled
    ? `, ${p.clients.length} of ${p.nClients.toLocaleString()} clients shown (evenly spaced)`
    : "";
  return `${p.total.toLocaleString()} train samples over ${p.nClients.toLocaleString()} clients: ${p.smallest}–${p.largest} a client${shown}`;
}

/** The partition view: mount `element`, then `update` with a fetch's result. */
export class PartitionView {
  constructor() {
    /** @param {string} name */
    const plot = (name) => h("div", { class: "plot", dataset: { plot: name } });
    this.sizes = plot("partition-sizes");
    this.classes = plot("partition-classes");
    this.plots = [this.sizes, this.classes];
    this.element = h("div", { class: "partition-view" }, ...this.plots);
  }

  /** Draw the fetched partition, or say why there is none. @param {PromiseSettledResult<PartitionSummary>} result */
  update(result) {
    if (result.status !== "fulfilled") {
      this.close();
      replace(this.element, errorBox(result.reason));
      return;
    }
    const p = result.value;
    if (this.element.firstChild !== this.sizes) replace(this.element, ...this.plots);
    const sizes = lineLayout(partitionTitle(p), {
      xTitle: "client",
      yTitle: "train samples",
      uirevision: "partition-sizes",
      legend: false,
    });
    react(this.sizes, sizeTraces(p), { ...sizes, hovermode: "closest", bargap: 0.1 });
    if (!p.nClasses) {
      purge(this.classes);
      replace(this.classes, empty("No classes", "A regression dataset: its samples have no labels to count."));
      return;
    }
    const classes = lineLayout("Train samples of each class, by client", {
      xTitle: "class",
      yTitle: "client",
      uirevision: "partition-classes",
      legend: false,
    });
    react(this.classes, classTraces(p), { ...classes, hovermode: "closest" });
  }

  /** Release the plots. */
  close() {
    for (const div of this.plots) purge(div);
  }
}
