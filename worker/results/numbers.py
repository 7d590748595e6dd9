"""The one number format of every table FedWatch writes (the compare page, the CLI, the
exports, the reproduction report).

A value with a spread (mean ± std) shows the spread to `SPREAD_DIGITS` significant
digits and the mean to the same decimal place; a lone value shows `VALUE_DIGITS`
significant digits (a whole number shows none after the point). Values are first
multiplied by their metric's `scale` (fractions → percent). Past `MAX_DECIMALS`
decimals, or from 10^`MAX_EXPONENT` up, both numbers share a power of ten:
"(3.2 ± 0.5)e-07".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

SPREAD_DIGITS = 2
VALUE_DIGITS = 4
MAX_DECIMALS = 6
MAX_EXPONENT = 6


@dataclass(frozen=True)
class Style:
    """How a group of numbers is written: divided by 10^exponent, `decimals` decimals."""

    decimals: int
    exponent: int = 0

    def fixed(self, x: float) -> str:
        # in decimal: neither 10**exponent nor the quotient under- or overflows
        text = f"{Decimal(x).scaleb(-self.exponent):.{self.decimals}f}"
        return text[1:] if text.startswith("-") and float(text) == 0 else text


def _magnitude(x: float) -> int:
    return math.floor(math.log10(abs(x)))


def _whole(x: float) -> bool:
    return float(x).is_integer() and abs(x) < 10**MAX_EXPONENT


def style(value: float, spread: float | None = None) -> Style:
    """The style of `value` (± `spread`), both already scaled."""
    if not math.isfinite(value):  # a huge value scaled for display (×100 for %)
        return Style(0)
    if spread is not None and math.isfinite(spread) and spread > 0:
        last = _magnitude(spread) - (SPREAD_DIGITS - 1)
        top = _magnitude(max(abs(value), spread))
    elif value == 0 or _whole(value):
        return Style(0)
    else:
        last = _magnitude(value) - (VALUE_DIGITS - 1)
        top = _magnitude(value)
    if -last > MAX_DECIMALS or top >= MAX_EXPONENT:
        return Style(max(0, top - last), top)
    return Style(max(0, -last))


@dataclass(frozen=True)
class Formatted:
    """Mean (± std) of one cell, written in one style; `interval` the 95 % CI's ends."""

    mean: str
    std: str | None
    exponent: int
    interval: tuple[str, str] | None = None

    @property
    def text(self) -> str:
        body = self.mean if self.std is None else f"{self.mean} ± {self.std}"
        if not self.exponent:
            return body
        wrapped = body if self.std is None else f"({body})"
        return f"{wrapped}e{self.exponent:+03d}"

    @property
    def latex(self) -> str:
        return f"${self._latex_body}$"

    @property
    def latex_bold(self) -> str:
        return f"$\\mathbf{{{self._latex_body}}}$"

    @property
    def _latex_body(self) -> str:
        body = self.mean if self.std is None else f"{self.mean} \\pm {self.std}"
        if self.exponent:
            wrapped = body if self.std is None else f"({body})"
            body = f"{wrapped} \\times 10^{{{self.exponent}}}"
        return body

    @property
    def interval_text(self) -> str | None:
        if self.interval is None:
            return None
        low, high = self.interval
        scale = f"e{self.exponent:+03d}" if self.exponent else ""
        return f"[{low}, {high}]{scale}"


def mean_std(
    mean: float | None,
    std: float | None,
    scale: float = 1.0,
    interval: tuple[float | None, float | None] | None = None,
) -> Formatted | None:
    """A cell: mean ± std (scaled), and the CI in the same style; None without a mean."""
    if mean is None or not math.isfinite(mean):
        return None
    m = mean * scale
    s = None if std is None or not math.isfinite(std) else std * scale
    st = style(m, s)
    ends = None
    if interval is not None and interval[0] is not None and interval[1] is not None:
        ends = (st.fixed(interval[0] * scale), st.fixed(interval[1] * scale))
    return Formatted(st.fixed(m), None if s is None else st.fixed(s), st.exponent, ends)


def value(x: float | None, scale: float = 1.0) -> str:
    """A lone value; "–" when absent or not finite."""
    if x is None or not math.isfinite(x):
        return "–"
    st = style(x * scale)
    return Formatted(st.fixed(x * scale), None, st.exponent).text


def signed(x: float | None, scale: float = 1.0, spread: float | None = None) -> str:
    """A difference, with its sign, in the style its spread gives."""
    if x is None or not math.isfinite(x):
        return "–"
    st = style(x * scale, None if spread is None else abs(spread * scale))
    text = st.fixed(x * scale)
    sign = "" if text.startswith("-") else "+"
    return f"{sign}{text}" + (f"e{st.exponent:+03d}" if st.exponent else "")


def p_value(p: float | None) -> str:
    """ "p < 0.001"; else three decimals ("p = 0.034", "p = 0.998"), or two significant
    digits below 0.01 ("p = 0.0012")."""
    if p is None or not math.isfinite(p):
        return "–"
    if p < 0.001:
        return "p < 0.001"
    return f"p = {p:.3f}" if p >= 0.01 else f"p = {p:.2g}"
