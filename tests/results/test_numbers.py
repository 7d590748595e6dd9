"""The one number format of every table, by hand."""

from __future__ import annotations

import pytest

from worker.results import numbers


@pytest.mark.parametrize(
    ("mean", "std", "scale", "text"),
    [
        # the two cells, in percent: the std to 2 significant digits, the mean
        # to the same decimal place
        (0.766, 5.78e-4, 100.0, "76.600 ± 0.058"),
        (0.769, 0.004, 100.0, "76.90 ± 0.40"),
        (1234.5, 56.0, 1.0, "1234 ± 56"),  # no decimals past the units
        (0.25, 0.125, 1.0, "0.25 ± 0.12"),  # round half to even
        (-0.0004, 0.003, 1.0, "-0.0004 ± 0.0030"),
        (3.2e-7, 5e-8, 1.0, "(3.20 ± 0.50)e-07"),  # past 6 decimals: a shared power of ten
        (2.5e7, 1.5e6, 1.0, "(2.50 ± 0.15)e+07"),
        (120.0, None, 1.0, "120"),  # a whole number alone
        (0.123456, None, 1.0, "0.1235"),  # a lone value: 4 significant digits
        (17.0, 0.0, 1.0, "17 ± 0"),  # no spread: the value's own style
    ],
)
def test_mean_std(mean: float, std: float | None, scale: float, text: str) -> None:
    cell = numbers.mean_std(mean, std, scale)
    assert cell is not None and cell.text == text


def test_interval_and_latex_share_the_cell_style() -> None:
    cell = numbers.mean_std(0.7660, 0.0058, 100.0, (0.7516, 0.7804))

    assert cell is not None
    assert (cell.text, cell.interval_text) == ("76.60 ± 0.58", "[75.16, 78.04]")
    assert cell.latex == "$76.60 \\pm 0.58$"
    assert cell.latex_bold == "$\\mathbf{76.60 \\pm 0.58}$"
    tiny = numbers.mean_std(3.2e-7, 5e-8)
    assert tiny is not None and tiny.latex == "$(3.20 \\pm 0.50) \\times 10^{-7}$"
    assert numbers.mean_std(None, 0.1) is None


@pytest.mark.parametrize(
    ("p", "text"),
    [
        (0.9979, "p = 0.998"),
        (0.034, "p = 0.034"),
        (0.0012, "p = 0.0012"),
        (4e-5, "p < 0.001"),
        (None, "–"),
    ],
)
def test_p_values(p: float | None, text: str) -> None:
    assert numbers.p_value(p) == text


def test_signed_and_lone_values() -> None:
    assert numbers.signed(0.0041, 100.0) == "+0.4100"  # a lone value: 4 significant digits
    assert numbers.signed(-0.1767, 100.0, 0.025) == "-17.7"
    assert numbers.value(62.76) == "62.76" and numbers.value(None) == "–"


def test_subnormal_and_scaled_past_the_range_values_are_written() -> None:
    # 10 ** -324 is 0.0 as a float: the quotient divided by zero before.
    assert numbers.Style(2, -324).fixed(5e-324) == "4.94"
    assert numbers.style(5e-324) == numbers.Style(3, -324)
    # a huge mean ×100 (percent) is inf: no magnitude to take
    assert numbers.style(float("inf"), 1.0) == numbers.Style(0)
