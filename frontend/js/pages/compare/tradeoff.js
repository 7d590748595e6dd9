// The privacy trade-off's traces: one point per group at the means of two summary values
// (the server's table statistics, drawn as they come: no statistic computed here), with
// their 95 % CIs as error bars in both directions where the group has one (n > 1), the
// point labelled by its group; and, where x is an ε, the assumed ε at each point's y, a
// dotted line between the two showing the gap. Pure (no DOM): tests/js/compare-tradeoff.test.js.
import { PALETTE, lineLayout, plotText } from "../../traces.js";

/** @typedef {import("../../api.js").Comparison} Comparison */
/** @typedef {import("../../api.js").Stat} Stat */
/** @typedef {{x: string, y: string}} Axes */

/**
 * A mean's error bar: the CI's distances below and above it; none without a CI.
 * @param {Stat} stat @returns {Record<string, any>}
 */
export function errorBar(stat) {
  if (stat.mean === null || stat.ciLow === null || stat.ciHigh === null) return { visible: false };
  return {
    type: "data",
    symmetric: false,
    array: [stat.ciHigh - stat.mean],
    arrayminus: [stat.mean - stat.ciLow],
    visible: true,
    thickness: 1.2,
    width: 4,
  };
}

/** A value's hover line: "label: 82.1 ± 1.2 (CI …)". @param {string} name @param {Stat} stat */
function hoverLine(name, stat) {
  return `${name}: ${stat.text ?? "—"}${stat.ciText ? ` (95 % CI ${stat.ciText})` : ""}`;
}

/** Lines of hover text, each shown literally. @param {string[]} lines */
function hover(lines) {
  return lines.map(plotText).join("<br>");
}

/**
 * The groups that have both values, each with its colour (the chart's group order).
 * @param {Comparison} c @param {Axes} axes
 */
function plotted(c, axes) {
  return c.table
    .map((row, i) => ({ row, color: PALETTE[i % PALETTE.length] }))
    .filter(({ row }) => row.stats[axes.x]?.mean != null && row.stats[axes.y]?.mean != null);
}

/**
 * The trade-off's traces: a point per group, then (x an ε other than the assumed one) the
 * assumed ε at the same y and the gap between them.
 * @param {Comparison} c @param {Axes} axes @param {(name: string) => string} label the catalogue's labels
 * @returns {Record<string, any>[]}
 */
export function tradeoffTraces(c, axes, label) {
  const groups = plotted(c, axes);
  const points = groups.map(({ row, color }) => {
    const [sx, sy] = [row.stats[axes.x], row.stats[axes.y]];
    return {
      type: "scatter",
      mode: "markers+text",
      name: plotText(row.label),
      x: [sx.mean],
      y: [sy.mean],
      text: [plotText(row.label)],
      textposition: "top right",
      hovertext: [hover([row.label, hoverLine(label(axes.x), sx), hoverLine(label(axes.y), sy)])],
      hoverinfo: "text",
      marker: { color, size: 10 },
      error_x: { ...errorBar(sx), color },
      error_y: { ...errorBar(sy), color },
      meta: { group: row.group, kind: "point", n: row.n },
    };
  });
  const assumed = c.tradeoff?.assumed;
  if (!assumed || axes.x === assumed || !c.tradeoff?.epsilon.includes(axes.x)) return points;
  const beside = groups.filter(({ row }) => row.stats[assumed]?.mean != null);
  return [...points, ...assumedTraces(beside, axes, assumed, label)];
}

/**
 * The assumed ε at each group's y (open diamonds in the group's colour, with its CI), and
 * the dotted gap from it to the group's point.
 * @param {ReturnType<typeof plotted>} groups @param {Axes} axes @param {string} assumed
 * @param {(name: string) => string} label
 */
function assumedTraces(groups, axes, assumed, label) {
  const stats = groups.map(({ row }) => row.stats[assumed]);
  const bars = stats.map(errorBar);
  const ys = groups.map(({ row }) => row.stats[axes.y].mean);
  return [
    {
      type: "scatter",
      mode: "lines",
      name: "gap",
      x: groups.flatMap(({ row }, i) => [stats[i].mean, row.stats[axes.x].mean, null]),
      y: ys.flatMap((y) => [y, y, null]),
      line: { color: "#888", dash: "dot", width: 1 },
      hoverinfo: "skip",
      showlegend: false,
      meta: { kind: "gap" },
    },
    {
      type: "scatter",
      mode: "markers",
      name: plotText(label(assumed)),
      x: stats.map((s) => s.mean),
      y: ys,
      hovertext: groups.map(({ row }, i) => hover([row.label, hoverLine(label(assumed), stats[i])])),
      hoverinfo: "text",
      marker: { symbol: "diamond-open", size: 11, color: groups.map((g) => g.color), line: { width: 2 } },
      error_x: {
        type: "data",
        symmetric: false,
        array: bars.map((b) => b.array?.[0] ?? 0),
        arrayminus: bars.map((b) => b.arrayminus?.[0] ?? 0),
        visible: bars.some((b) => b.visible),
        color: "#888",
        thickness: 1,
        width: 3,
      },
      meta: { kind: "assumed", groups: groups.map(({ row }) => row.group) },
    },
  ];
}

/**
 * The chart's layout: the axes titled by the catalogue's labels.
 * @param {Axes} axes @param {(name: string) => string} label @param {string} ids the compared runs
 */
export function tradeoffLayout(axes, label, ids) {
  const layout = lineLayout(`${label(axes.y)} against ${label(axes.x)}, mean and 95 % CI per group`, {
    xTitle: label(axes.x),
    yTitle: label(axes.y),
    height: 420,
    uirevision: `${axes.x}|${axes.y}|${ids}`,
  });
  return { ...layout, hovermode: "closest" };
}
