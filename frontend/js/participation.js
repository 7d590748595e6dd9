// The run page's participation view (`GET /api/runs/{id}/participation`): each client's
// share of the aggregate against its share of the data, its device time (or, without a
// system model, its availability) against how often its updates were kept, dropped or
// entered stale, and the gaps of the fifths by availability and by device time. Pure
// trace builders, and a view the run page mounts as one more client view.
import { empty, errorBox, h, replace } from "./dom.js";
import { num } from "./format.js";
import { purge, react } from "./plot.js";
import { lineLayout, PALETTE } from "./traces.js";

/** @typedef {import("./api.js").Participation} Participation */
/** @typedef {import("./api.js").ParticipationBin} ParticipationBin */

const FIFTHS = ["1st", "2nd", "3rd", "4th", "5th"];

/**
 * The gap chart's x axis title: which end of the ranking each fifth is.
 * @param {boolean} timed whether the device-time split is drawn too
 */
export function fifthsTitle(timed) {
  return timed
    ? "fifths of the clients: 1st = least available / slowest devices, 5th = most available / fastest"
    : "fifths of the clients: 1st = least available, 5th = most available";
}

/**
 * One point a client: its share of the data (x) against its share of the aggregate (y),
 * coloured by its share of rounds available; and the diagonal, where the two are equal.
 * @param {Participation} p
 */
export function shareTraces(p) {
  const share = p.aggregateShare ?? p.dataShare.map(() => 0);
  const top = Math.max(...p.dataShare, ...share, 0) || 1;
  return [
    {
      type: "scattergl",
      mode: "markers",
      x: p.dataShare,
      y: share,
      name: "clients",
      text: p.availableShare.map((a, k) => `client ${k}, available ${(100 * a).toFixed(1)} %`),
      marker: {
        size: 7,
        opacity: 0.8,
        color: p.availableShare,
        cmin: 0,
        cmax: 1,
        colorscale: "Viridis",
        colorbar: { title: { text: "available" }, tickformat: ".0%", thickness: 10 },
      },
      hovertemplate: "%{text}: data %{x:.2%}, aggregate %{y:.2%}<extra></extra>",
    },
    {
      type: "scatter",
      mode: "lines",
      x: [0, top],
      y: [0, top],
      name: "as much as its data",
      line: { color: "#888", dash: "dash", width: 1 },
      hoverinfo: "skip",
    },
  ];
}

/**
 * One series of points a client per outcome: its device time (x; its share of rounds
 * available without a system model) against how many of its updates were kept, dropped
 * (the server asked and it did not enter) and entered stale (from the server's memory).
 * @param {Participation} p
 */
export function outcomeTraces(p) {
  const x = p.workS ?? p.availableShare;
  const text = x.map((_, k) => `client ${k}`);
  /** @param {string} name @param {number[]} y @param {string} color @param {string} symbol */
  const series = (name, y, color, symbol) => ({
    type: "scattergl",
    mode: "markers",
    x,
    y,
    name,
    text,
    marker: { color, symbol, size: 7, opacity: 0.8 },
    hovertemplate: `%{text}: %{y} ${name}<extra></extra>`,
  });
  return [
    series("kept", p.kept, PALETTE[2], "circle"),
    series("dropped", p.dropped, PALETTE[3], "x"),
    series("stale", p.stale, PALETTE[1], "triangle-up"),
  ];
}

/**
 * Bars of each fifth's gap, its share of the aggregate minus its share of the data in pp:
 * by availability (least available first) and by device time (slowest first).
 * @param {Participation} p
 */
export function gapTraces(p) {
  /** @param {ParticipationBin[]|null} bins @param {string} name @param {string} color @param {string} unit */
  const bars = (bins, name, color, unit) =>
    bins && {
      type: "bar",
      x: bins.map((_, i) => FIFTHS[i]),
      y: bins.map((b) => 100 * b.gap),
      name,
      text: bins.map(
        (b) =>
          `${b.clients} clients, ${name} ${num(b.keyLow, 3)}–${num(b.keyHigh, 3)}${unit}: ` +
          `${(100 * b.dataShare).toFixed(1)} % of the data, ${(100 * b.aggregateShare).toFixed(1)} % of the aggregate`,
      ),
      textposition: "none",
      marker: { color },
      hovertemplate: "%{text}: %{y:+.1f} pp<extra></extra>",
    };
  return [
    bars(p.byAvailability, "availability", PALETTE[0], ""),
    bars(p.byDeviceTime, "device time", PALETTE[3], " s"),
  ].filter((t) => t);
}

/** The view's title: the run's bias, in words. @param {Participation} p */
export function participationTitle(p) {
  const tv = p.participationTv === null ? "no aggregate yet" : `bias TV(α, p̄) = ${num(p.participationTv, 3)}`;
  const data = p.dataKnown ? "" : " (data shares taken as 1/N)";
  return `Aggregate vs data share per client: ${tv}${data}`;
}

/** The gap chart's title: the splits it draws, and why one is missing. @param {Participation} p */
export function gapsTitle(p) {
  const by = [p.byAvailability && "availability", p.byDeviceTime && "device time"].filter(Boolean);
  const missing = [
    !p.byAvailability && "every client available as often",
    !p.byDeviceTime && "no device times: no system model",
  ].filter(Boolean);
  const split = by.length ? `, by ${by.join(" and ")}` : "";
  return `Aggregate − data share of each fifth${split}${missing.length ? ` (${missing.join("; ")})` : ""}`;
}

/** What the outcome chart's x axis is, and why. @param {Participation} p */
export function outcomeTitle(p) {
  return p.workS
    ? "Each client's updates by its device time"
    : "No system model, so no device times: updates by availability";
}

/** The run page's participation view: mount `element`, then `update` with each fetch. */
export class ParticipationView {
  constructor() {
    /** @param {string} name */
    const plot = (name) => h("div", { class: "plot", dataset: { plot: name } });
    this.shares = plot("participation");
    this.outcomes = plot("participation-outcomes");
    this.gaps = plot("participation-gaps");
    this.plots = [this.shares, this.outcomes, this.gaps];
    this.element = h("div", { class: "participation-view" }, ...this.plots);
  }

  /** Draw the fetched participation, or say why there is none. @param {PromiseSettledResult<Participation>} result */
  update(result) {
    if (result.status !== "fulfilled" || !result.value.rounds) {
      this.close();
      const why = empty("Participation per client", "Nothing recorded yet.");
      replace(this.element, result.status === "rejected" ? errorBox(result.reason) : why);
      return;
    }
    if (this.element.firstChild !== this.shares) replace(this.element, ...this.plots);
    const p = result.value;
    const shares = lineLayout(participationTitle(p), {
      xTitle: "share of the data (α)",
      yTitle: "share of the aggregate (p̄)",
      uirevision: "participation",
      legend: false,
    });
    shares.xaxis.tickformat = ".1%";
    shares.yaxis.tickformat = ".1%";
    react(this.shares, shareTraces(p), { ...shares, hovermode: "closest" });
    const outcomes = lineLayout(outcomeTitle(p), {
      xTitle: p.workS ? "device time for a round (s)" : "share of rounds available",
      yTitle: "updates",
      uirevision: "participation-outcomes",
    });
    if (!p.workS) outcomes.xaxis.tickformat = ".0%";
    react(this.outcomes, outcomeTraces(p), { ...outcomes, hovermode: "closest" });
    const gaps = lineLayout(gapsTitle(p), {
      xTitle: fifthsTitle(Boolean(p.byDeviceTime)),
      yTitle: "aggregate − data share (pp)",
      uirevision: "participation-gaps",
    });
    react(this.gaps, gapTraces(p), { ...gaps, hovermode: "closest", barmode: "group" });
  }

  /** Release the plots. */
  close() {
    for (const div of this.plots) purge(div);
  }
}
