"""FedWatch's faithful CA-Fed preset against the authors' own runs (bundled reference
runs, `worker/reproduction/data/cafed-synthetic.json`): on the same data (data seed 42),
from the same run seeds, with the availability each official run drew replayed round by
round (a trace of its `active` sets, π and λ from the generator's population, as the
official oracle estimator reads them).

- Unbiased, AdaFed and F3AST choose and weigh clients from availability alone: every
  round's entered clients and weights must be the official ones.
- The logged accuracy curves (28 points, the initial model's included) must lie within
  an RMSE of 0.5 pp of the official ones (2.5 pp for CA-Fed, whose exclusions follow
  the losses, so that small numeric differences can flip one).
"""

from __future__ import annotations

import pytest

from tests.fidelity.replay import (
    assert_same_availability,
    assert_same_entries,
    curve_error_pp,
    replayed,
)
from worker.presets import get_preset

PRESET = get_preset("cafed-synthetic")
BOUND_PP = {"unbiased": 0.5, "adafed": 0.5, "f3ast": 0.5, "cafed": 2.5}
DETERMINISTIC = ("unbiased", "adafed", "f3ast")
CASES = [(m.algorithm, s) for m in PRESET.compare for s in PRESET.seeds]


@pytest.mark.parametrize(("algorithm", "seed"), CASES)
def test_the_replayed_availability_is_the_official_one(algorithm: str, seed: int) -> None:
    assert_same_availability(replayed(PRESET.name, algorithm, seed))


@pytest.mark.parametrize("algorithm", DETERMINISTIC)
@pytest.mark.parametrize("seed", PRESET.seeds)
def test_entered_clients_and_weights_are_the_official_ones(algorithm: str, seed: int) -> None:
    assert_same_entries(replayed(PRESET.name, algorithm, seed))


@pytest.mark.parametrize(("algorithm", "seed"), CASES)
def test_the_accuracy_curve_follows_the_official_one(algorithm: str, seed: int) -> None:
    error_pp = curve_error_pp(replayed(PRESET.name, algorithm, seed))

    assert error_pp <= BOUND_PP[algorithm], f"RMSE {error_pp:.2f} pp"
