"""The report's curves as a standalone SVG: one panel per method, FedWatch's mean
accuracy (solid) over the official code's (dashed), on a shared accuracy axis."""

from __future__ import annotations

from html import escape

from worker.reproduction.report import Report

WIDTH, PANEL_H, MARGIN = 640, 200, 48
SOLID, DASHED = "#1f6feb", "#d1242f"


def svg(report: Report) -> str:
    rows = report.rows
    values = [v for r in rows for v in r.curve[1]]
    values += [v for r in rows if r.official_curve for v in r.official_curve[1]]
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    pad = max(0.01, (high - low) * 0.05)
    low, high = low - pad, high + pad
    height = len(rows) * PANEL_H + MARGIN
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'font-family="sans-serif" font-size="12">',
        f'<text x="{MARGIN}" y="16">{escape(report.preset)}: test accuracy by round '
        f'(<tspan fill="{SOLID}">FedWatch</tspan>, '
        f'<tspan fill="{DASHED}">official code, dashed</tspan>)</text>',
    ]
    for i, row in enumerate(rows):
        top = 28 + i * PANEL_H
        box_h = PANEL_H - 40

        def xy(r: int, v: float, top: int = top, box_h: int = box_h) -> str:
            x = MARGIN + (WIDTH - 2 * MARGIN) * r / max(1, report.rounds)
            y = top + box_h * (high - v) / (high - low)
            return f"{x:.1f},{y:.1f}"

        out.append(
            f'<rect x="{MARGIN}" y="{top}" width="{WIDTH - 2 * MARGIN}" height="{box_h}" '
            f'fill="none" stroke="#999"/>'
        )
        out.append(f'<text x="{MARGIN + 4}" y="{top + 14}">{escape(row.algorithm)}</text>')
        for value in (low + pad, high - pad):
            y = top + box_h * (high - value) / (high - low)
            out.append(f'<text x="4" y="{y + 4:.1f}">{100 * value:.1f}%</text>')
        out.append(f'<text x="{WIDTH - MARGIN}" y="{top + box_h + 14}" text-anchor="end">'
                   f"round {report.rounds}</text>")  # fmt: skip
        curves = [(row.curve, SOLID, "")]
        if row.official_curve:
            curves.append((row.official_curve, DASHED, ' stroke-dasharray="5,4"'))
        for (rounds, accs), colour, dash in curves:
            if rounds:
                points = " ".join(xy(r, v) for r, v in zip(rounds, accs, strict=True))
                out.append(
                    f'<polyline points="{points}" fill="none" stroke="{colour}" '
                    f'stroke-width="1.5"{dash}/>'
                )
    out.append("</svg>")
    return "\n".join(out)
