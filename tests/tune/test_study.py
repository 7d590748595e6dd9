"""One method's study on a convex problem whose best learning rate is known by hand.

Two clients both hold the mean 2 (FedLaAvg's Example 1 data, σ = 0, exact gradients of
(x − 2)²), always available, FedAvg, one local step of lr η, x₀ = 0: each round
x ← x − 2η(x − 2), so after R rounds x − 2 = −2(1 − 2η)^R and the validation loss is
4(1 − 2η)^(2R): minimal (0) at η* = ½."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import optuna
import pytest

from worker.engine.config import RunConfig
from worker.presets import get_preset
from worker.tune.objective import objective_of
from worker.tune.space import parse_dimension
from worker.tune.study import ConfigOf, TuneSpec, best_params, finished_trials, tune_method

CONVEX = [
    "algorithm.name=fedavg",
    "availability.kind=always",
    "data.mean_estimation.means=[2.0, 2.0]",
    "eval.validation=0.5",
]


def convex(rounds: int) -> ConfigOf:
    def config_of(extra: list[str]) -> RunConfig:
        return get_preset("example1").run_config([*CONVEX, f"rounds={rounds}", *extra])

    return config_of


def spec(space: str, trials: int, **kw: Any) -> TuneSpec:
    objective = objective_of("final_val_loss")
    return TuneSpec((parse_dimension(space),), trials, objective, **kw)


def storage(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'tune.db'}"


def test_the_loss_by_hand() -> None:
    from worker.engine import ListSink, simulate

    config_of = convex(2)
    for lr, loss in ((0.25, 4 * 0.5**4), (0.5, 0.0), (0.75, 4 * 0.5**4)):
        summary = simulate(config_of([f"client.lr={lr}"]), ListSink())
        assert summary.values["final_val_loss"] == pytest.approx(loss, abs=1e-12)


def test_grid_search_finds_the_optimum_exactly(tmp_path: Path) -> None:
    # 19 points 0.05, 0.10, ..., 0.95: ½ is one of them
    grid = spec("client.lr=linear:0.05:0.95", 19, sampler="grid", grid_points=19, pruner="none")

    study = tune_method(grid, convex(2), storage(tmp_path), "grid")

    assert finished_trials(study) == 19
    assert best_params(study) == {"client.lr": pytest.approx(0.5)}
    assert study.best_value == pytest.approx(0.0, abs=1e-12)


def test_tpe_finds_it_within_the_search_resolution(tmp_path: Path) -> None:
    tpe = spec("client.lr=log:1e-3:1", 30, pruner="none")

    study = tune_method(tpe, convex(2), storage(tmp_path), "tpe")

    assert finished_trials(study) == 30
    assert (best_params(study) or {}).get("client.lr") == pytest.approx(0.5, abs=0.05)


def test_an_obviously_bad_trial_is_pruned(tmp_path: Path) -> None:
    # three good learning rates complete; then lr 0.001: its round-0 loss 4(0.998)² ≈ 3.98
    # is far above theirs (4(1 − 2η)² ≤ 0.04), so the median pruner stops it there
    tune = spec("client.lr=linear:0.001:0.999", 3, prune_after=3, pruner="median")
    url = storage(tmp_path)
    study = optuna.create_study(storage=url, study_name="prune", direction="minimize")
    for lr in (0.45, 0.5, 0.55, 0.001):
        study.enqueue_trial({"client.lr": lr})

    tune_method(tune, convex(5), url, "prune")
    study = tune_method(replace(tune, trials=4), convex(5), url, "prune")

    (bad,) = [t for t in study.trials if t.params["client.lr"] == 0.001]
    assert bad.state == optuna.trial.TrialState.PRUNED
    assert bad.user_attrs["pruned_at_round"] == 0
    assert best_params(study) == {"client.lr": 0.5}


def test_a_refused_trial_fails_and_is_replaced(tmp_path: Path) -> None:
    # a negative learning rate is refused by the config: that trial fails and another
    # is drawn, until the budget of finished trials is met
    tune = spec("client.lr=linear:-1:1", 3, sampler="random", pruner="none")
    url = storage(tmp_path)
    study = optuna.create_study(storage=url, study_name="fail", direction="minimize")
    study.enqueue_trial({"client.lr": -0.5})

    study = tune_method(tune, convex(2), url, "fail")

    states = [t.state for t in study.trials]
    assert states[0] == optuna.trial.TrialState.FAIL
    assert "client.lr" in study.trials[0].user_attrs["error"]
    assert finished_trials(study) == 3 and len(states) == 4


@pytest.mark.parametrize("pruner", ["median", "hyperband"])
def test_each_pruner_spends_the_whole_budget(tmp_path: Path, pruner: str) -> None:
    tune = spec("client.lr=log:1e-3:1", 8, sampler="random", pruner=pruner, prune_after=2)

    study = tune_method(tune, convex(4), storage(tmp_path), pruner)

    assert finished_trials(study) == 8 == len(study.trials)
    pruned = [t for t in study.trials if t.state == optuna.trial.TrialState.PRUNED]
    assert pruned and all(0 <= t.user_attrs["pruned_at_round"] < 4 for t in pruned)
