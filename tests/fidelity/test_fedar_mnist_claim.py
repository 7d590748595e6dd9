"""FedAR's MNIST claim in direction, on the real MNIST (`fedar-mnist`, p_min 0.1): FedAR at
least matches MIFA, FedVARP and FedAvg on test accuracy, and its clients' accuracies
spread less than under FedAvg and FedVARP.

A short run of the preset (seed 0, its first 50 rounds, every client evaluated every 10):
the final test accuracy, and the variance of the clients' accuracies averaged over the
five evaluations. Measured on seeds 0, 1, 2: FedAR's final accuracy 88.00 / 87.40 / 87.57 %
against at most 87.90 / 87.20 / 87.06 % for the three; its spread 29.6 / 25.9 / 35.7 %²
against FedAvg's 64.8 / 34.8 / 37.4 and FedVARP's 108 / 116 / 131 (MIFA's 34.9 / 25.3 /
28.1: FedAR does not spread less than MIFA). `docs/reproducibility.md` has the full
comparison (500 rounds, 3 seeds, both variants): there no difference is significant, and
with p_min 0.5 FedAR's clients spread more than FedAvg's and FedVARP's, not less.
"""

from __future__ import annotations

import statistics

import pytest

from tests.fidelity.real_data import data_root
from worker.engine import ListSink, simulate
from worker.presets import get_preset

PRESET = get_preset("fedar-mnist")
ROUNDS = 50
BASELINES = ("mifa", "fedvarp", "fedavg")
MATCH_PP = 0.3  # "at least matches": no more than 0.3 pp below a baseline


def measure(algorithm: str) -> tuple[float, float]:
    """Final test accuracy and mean client-accuracy variance of a short run."""
    config = PRESET.run_config(
        [
            f"algorithm.name={algorithm}",
            f"data.root={data_root('mnist')}",
            f"rounds={ROUNDS}",
            "eval.every=10",
            "eval.client_every=10",
            "seed=0",
        ]
    )
    sink = ListSink()
    summary = simulate(config, sink)
    spread = [r.metrics["client_acc_var"] for r in sink.records if "client_acc_var" in r.metrics]
    assert len(spread) == ROUNDS // 10
    final = summary["final_test_acc"]
    assert final is not None
    return float(final), statistics.mean(spread)


@pytest.mark.slow
def test_fedar_matches_the_baselines_and_spreads_less_than_fedavg() -> None:
    acc, spread = measure("fedar")
    others = {name: measure(name) for name in BASELINES}

    for name, (their_acc, _) in others.items():
        assert acc >= their_acc - MATCH_PP / 100, (name, acc, their_acc)
    for name in ("fedavg", "fedvarp"):
        assert spread < others[name][1], (name, spread, others[name][1])
