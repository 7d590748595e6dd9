"""The privacy trade-off's values and defaults, from a comparison table."""

from __future__ import annotations

from worker.engine import metrics
from worker.results.stats import Sample, compare
from worker.results.tradeoff import ASSUMED, WORST, tradeoff

EPSILONS = ["final_epsilon_assumed", "final_epsilon_client_max", "final_epsilon_client_median"]


def sample(seed: int, **values: float) -> Sample:
    return Sample(seed, dict(values))


def test_the_defaults_are_the_worst_client_and_the_headline_accuracy() -> None:
    # σ = 1 and σ = 2 record all three ε and both accuracies; a third group none of them.
    eps = {"final_epsilon_assumed": 1.0, "final_epsilon_client_max": 4.0,
           "final_epsilon_client_median": 2.0}  # fmt: skip
    groups = {
        "σ=1": [sample(0, final_test_acc=0.8, best_test_acc=0.85, wall_s=3.0, **eps)],
        "σ=2": [sample(0, final_test_acc=0.7, best_test_acc=0.75, wall_s=3.0, **eps)],
        "plain": [sample(0, final_test_acc=0.9)],
    }
    headline_first = ["final_test_acc", *EPSILONS, "best_test_acc", "wall_s"]

    got = tradeoff(compare(groups, None, names=headline_first))

    assert got is not None
    assert got.values == ["final_test_acc", *EPSILONS, "best_test_acc"]  # wall_s: the machine's
    assert got.epsilon == EPSILONS
    assert (got.x, got.y, got.assumed) == (WORST, "final_test_acc", ASSUMED)
    # In the catalogue's order (no headline), best accuracy comes first.
    assert tradeoff(compare(groups, None)).y == "best_test_acc"  # type: ignore[union-attr]


def test_the_names_are_the_catalogue_s_values_in_epsilon() -> None:
    specs = metrics.by_name()
    assert [specs[n].unit for n in (WORST, ASSUMED)] == ["ε", "ε"]
    assert specs[WORST].compare and specs[ASSUMED].compare


def test_no_trade_off_below_two_groups_with_an_epsilon() -> None:
    one = {
        "private": [sample(0, final_test_acc=0.8, final_epsilon_client_median=2.0)],
        "plain": [sample(0, final_test_acc=0.9)],
    }
    only_median = {
        "a": [sample(0, final_test_acc=0.8, final_epsilon_client_median=2.0)],
        "b": [sample(0, final_test_acc=0.7, final_epsilon_client_median=3.0)],
    }

    assert tradeoff(compare(one, None)) is None
    got = tradeoff(compare(only_median, None))
    assert got is not None
    assert (got.x, got.assumed, got.epsilon) == ("final_epsilon_client_median", None, [got.x])
