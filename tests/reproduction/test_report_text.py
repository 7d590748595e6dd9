"""The reproduction report writes its figures in the one number format of every table
(`worker.results.numbers`): the Markdown, the JSON the page shows, the same text."""

from __future__ import annotations

from worker.reproduction.report import delta, percent
from worker.results.stats import Stat, WelchTest, mean_std


def test_figures_in_percent_and_differences_in_points() -> None:
    assert percent(mean_std([0.7154, 0.7179, 0.7204])) == "71.79 ± 0.25 (n=3)"
    assert percent(Stat(0.7, None, 1)) == "70 (n=1)"  # a whole number: no decimals
    assert percent(Stat(0.7172, None, 1)) == "71.72 (n=1)"  # 4 significant digits
    assert percent(None) == "–"
    assert delta(WelchTest(0.0041, 0.5312)) == "+0.4100 (p = 0.531)"
    assert delta(WelchTest(-0.0869, None)) == "-8.690"
    assert delta(WelchTest(None, None)) == "–"
