"""FedLaAvg's MNIST setup (E = 100, D = 1) against runs of its authors' code (bundled,
`worker/reproduction/data/fedlaavg-mnist.json`; `tests/fidelity/fedlaavg-mnist` says how
they ran): with the two client groups on for E rounds in turn, FedAvg and FedAdam follow
whichever group is on and swing with the cycle; FedLaAvg, averaging every client's latest
update, hardly does.

The swing is `period_swing`: the mean range of the test accuracy within each whole cycle
of 2E rounds after the first.
"""

from __future__ import annotations

import pytest

from tests.fidelity.real_data import data_root
from worker.engine.loop import simulate
from worker.engine.sink import ListSink
from worker.presets import get_preset
from worker.reproduction.figures import Curve, period_swing, rmse, run_curve
from worker.reproduction.references import reference

PRESET = get_preset("fedlaavg-mnist")
OSCILLATING = ("fedavg", "fedadam")
CYCLE = 200  # 2E: group 0 (digit 0) on rounds [0, 100), the rest [100, 200)


def official(method: str) -> Curve:
    ref = reference(PRESET.name)
    assert ref is not None
    (curve,) = ref.curves(method)
    return curve


def simulated(assignments: list[str], method: str) -> Curve:
    (entry,) = [m for m in PRESET.compare if m.name == method]
    sink = ListSink()
    simulate(PRESET.run_config([*assignments, *entry.as_overrides()]), sink)
    return run_curve(0, ((r.round, r.metrics) for r in sink.records))


def test_the_official_curves_are_logged_every_20_rounds_to_640() -> None:
    for method in ("fedlaavg", *OSCILLATING):
        curve = official(method)

        assert curve.rounds == tuple(range(0, 641, 20)), method
        assert curve.acc[0] == pytest.approx(0.054)  # the authors' initial model
        assert curve.acc[5] == pytest.approx(0.098)  # 100 rounds of digit 0 only


@pytest.mark.parametrize("method", OSCILLATING)
def test_in_the_official_runs_fedavg_and_fedadam_swing_with_the_cycle(method: str) -> None:
    calm = period_swing(official("fedlaavg"), CYCLE, CYCLE)

    assert period_swing(official(method), CYCLE, CYCLE) > 5 * calm


@pytest.mark.slow
def test_fedavg_swings_with_the_cycle_and_fedlaavg_does_not() -> None:
    """The preset shrunk to scikit-learn's digits: 100 clients, K = 10, E = 20."""
    small = ["data.dataset=digits", "data.n_clients=100", "algorithm.participation=10",
             "availability.diurnal.period=20", "rounds=160", "eval.every=2"]  # fmt: skip

    swing = {m: period_swing(simulated(small, m), 40, 40) for m in ("fedlaavg", "fedavg")}

    assert swing["fedavg"] > 3 * swing["fedlaavg"], swing


@pytest.mark.fidelity
@pytest.mark.parametrize("method", ("fedlaavg", *OSCILLATING))
def test_fedwatch_follows_the_official_curve_on_mnist(method: str) -> None:
    """640 rounds on the real MNIST, FedWatch's own draws: the curve within 1.5 pp RMS of
    the official one, its swing within 2 pp of the official swing."""
    root = data_root("mnist")

    curve = simulated([f"data.root={root}", "rounds=640"], method)

    theirs = official(method)
    assert 100 * rmse(curve, (list(theirs.rounds), list(theirs.acc))) < 1.5
    assert period_swing(curve, CYCLE, CYCLE) == pytest.approx(
        period_swing(theirs, CYCLE, CYCLE), abs=0.02
    )
