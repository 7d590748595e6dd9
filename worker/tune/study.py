"""One method's tune: an Optuna study in RDB storage whose trials run the engine on the
validation split, report the objective's round metric as intermediate values and are
pruned by the study's pruner. Every method's study gets the same budget, sampler seed
and pruner (`TuneSpec`); a trial that fails (a crash, a refused config) is recorded as
failed and replaced, up to twice the budget in attempts."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import optuna

from worker.engine import ConfigError, ListSink, RoundRecord, RunConfig, simulate
from worker.tune.objective import Objective
from worker.tune.space import Dimension, assignments

Sampler = Literal["tpe", "random", "grid"]
Pruner = Literal["median", "hyperband", "none"]
SAMPLERS: tuple[Sampler, ...] = ("tpe", "random", "grid")
PRUNERS: tuple[Pruner, ...] = ("median", "hyperband", "none")
FINISHED = (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED)
FAILURES = (ConfigError, ValueError, RuntimeError)
"""What fails a trial (recorded in its `error`) rather than the tune: a refused config,
a run that breaks."""

ConfigOf = Callable[[list[str]], RunConfig]
"""A method's config with the given `--set` assignments applied (seed included)."""


@dataclass(frozen=True)
class TuneSpec:
    """What every method's study shares: the space, the budget of trials (finished ones:
    completed or pruned), the objective, the tuning seeds (a trial's value is the mean
    over them), the sampler (seeded by `sampler_seed`), the grid's points per range, the
    pruner and the trials it waits for before pruning (`prune_after`)."""

    space: tuple[Dimension, ...]
    trials: int
    objective: Objective
    seeds: tuple[int, ...] = (0,)
    sampler: Sampler = "tpe"
    sampler_seed: int = 0
    grid_points: int = 5
    pruner: Pruner = "median"
    prune_after: int = 5

    def make_sampler(self) -> optuna.samplers.BaseSampler:
        if self.sampler == "grid":
            grid = {d.key: d.grid(self.grid_points) for d in self.space}
            return optuna.samplers.GridSampler(grid, seed=self.sampler_seed)
        if self.sampler == "random":
            return optuna.samplers.RandomSampler(seed=self.sampler_seed)
        return optuna.samplers.TPESampler(seed=self.sampler_seed)

    def make_pruner(self, rounds: int) -> optuna.pruners.BasePruner:
        if self.pruner == "median":
            return optuna.pruners.MedianPruner(n_startup_trials=self.prune_after)
        if self.pruner == "hyperband":
            return optuna.pruners.HyperbandPruner(min_resource=1, max_resource=rounds)
        return optuna.pruners.NopPruner()


class ReportingSink(ListSink):
    """Reports the objective's round metric to the trial as each round lands (step: the
    round, after the earlier tuning seeds' rounds) and asks the pruner; the engine polls
    `should_stop` between rounds."""

    def __init__(self, trial: optuna.Trial, metric: str, first_step: int) -> None:
        super().__init__()
        self.trial, self.metric, self.first_step = trial, metric, first_step
        self.pruned_at: int | None = None

    def on_round(self, record: RoundRecord) -> None:
        super().on_round(record)
        value = record.metrics.get(self.metric)
        if value is None:
            return
        self.trial.report(float(value), self.first_step + record.round)
        if self.trial.should_prune():
            self.pruned_at = record.round

    def should_stop(self) -> bool:
        return self.pruned_at is not None


def trial_value(trial: optuna.Trial, spec: TuneSpec, config_of: ConfigOf) -> float:
    """Run the trial's settings on every tuning seed; the mean objective, or
    `optuna.TrialPruned` (the round it stopped at in the trial's `pruned_at_round`); a
    failure's message is kept in the trial's `error`."""
    params = {d.key: d.suggest(trial) for d in spec.space}
    try:
        return _mean_value(trial, params, spec, config_of)
    except FAILURES as err:
        trial.set_user_attr("error", str(err))
        raise


def _mean_value(
    trial: optuna.Trial, params: dict[str, Any], spec: TuneSpec, config_of: ConfigOf
) -> float:
    values = []
    for i, seed in enumerate(spec.seeds):
        config = config_of([*assignments(params), f"seed={seed}"])
        sink = ReportingSink(trial, spec.objective.round_metric, i * config.rounds)
        summary = simulate(config, sink, should_stop=sink.should_stop)
        if sink.pruned_at is not None:
            trial.set_user_attr("pruned_at_round", sink.pruned_at)
            raise optuna.TrialPruned(f"pruned at round {sink.pruned_at} of seed {seed}")
        value = summary.values[spec.objective.spec.name]
        if value is None:
            raise ConfigError(f"objective: the run recorded no {spec.objective.spec.name}")
        values.append(float(value))
    return statistics.fmean(values)


def tune_method(spec: TuneSpec, config_of: ConfigOf, storage: str, study_name: str) -> optuna.Study:
    """Run (or resume: the study is loaded where it exists) one method's study until
    `spec.trials` trials finished or twice as many were attempted."""
    rounds = config_of([]).rounds * len(spec.seeds)
    study = optuna.create_study(
        storage=storage,
        study_name=study_name,
        load_if_exists=True,
        direction=spec.objective.direction,
        sampler=spec.make_sampler(),
        pruner=spec.make_pruner(rounds),
    )
    while True:
        trials = study.get_trials(deepcopy=False)
        finished = sum(t.state in FINISHED for t in trials)
        if finished >= spec.trials or len(trials) >= 2 * spec.trials:
            return study
        study.optimize(
            lambda trial: trial_value(trial, spec, config_of),
            n_trials=1,
            catch=FAILURES,
        )


def finished_trials(study: optuna.Study) -> int:
    return sum(t.state in FINISHED for t in study.get_trials(deepcopy=False))


def best_params(study: optuna.Study) -> dict[str, Any] | None:
    """The best completed trial's settings; None where no trial completed."""
    done = study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,))
    return dict(study.best_trial.params) if done else None
