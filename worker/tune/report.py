"""What a service tune's page shows, read from its studies: each method's progress and
best settings, every trial (state, value, the round values it reported), parameter
importances (Optuna's own evaluator) and the data of a parallel-coordinates plot."""

from __future__ import annotations

from typing import Any

import optuna
from optuna.trial import FrozenTrial, TrialState

from worker.tune.plan import TunePlan
from worker.tune.protocol import Chosen, protocol, shortfalls
from worker.tune.service import ERROR, PRUNED_AT, RUN_ID
from worker.tune.storage import optuna_storage, study_name

STATES = {
    TrialState.RUNNING: "running",
    TrialState.COMPLETE: "complete",
    TrialState.PRUNED: "pruned",
    TrialState.FAIL: "failed",
    TrialState.WAITING: "waiting",
}


def studies(database_url: str, tune_id: int, plan: TunePlan) -> dict[str, optuna.Study | None]:
    """Each method's study (None: not created yet)."""
    storage = optuna_storage(database_url)
    names = {s.study_name for s in storage.get_all_studies()}
    return {
        m: optuna.load_study(study_name=study_name(tune_id, m), storage=storage)
        if study_name(tune_id, m) in names
        else None
        for m in plan.methods
    }


def chosen(method: str, study: optuna.Study | None) -> Chosen:
    trials = study.get_trials(deepcopy=False) if study else []
    states = [t.state for t in trials]
    done = [t for t in trials if t.state == TrialState.COMPLETE]
    best = study.best_trial if study and done else None
    return Chosen(
        method,
        None if best is None else dict(best.params),
        None if best is None else best.value,
        states.count(TrialState.COMPLETE),
        states.count(TrialState.PRUNED),
        states.count(TrialState.FAIL),
    )


def trial_row(method: str, t: FrozenTrial) -> dict[str, Any]:
    return {
        "method": method,
        "number": t.number,
        "state": STATES[t.state],
        "value": t.value if t.state == TrialState.COMPLETE else None,
        "params": dict(t.params),
        "run_id": t.user_attrs.get(RUN_ID),
        "intermediate": dict(t.intermediate_values),
        "pruned_at_round": t.user_attrs.get(PRUNED_AT),
        "error": t.user_attrs.get(ERROR),
    }


def importances(study: optuna.Study | None, keys: list[str]) -> dict[str, float] | None:
    """Optuna's importances over the completed trials; None with fewer than two (or
    fewer than two distinct values of a key: nothing to tell apart)."""
    if study is None:
        return None
    done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    if len(done) < 2:
        return None
    if len(keys) == 1:
        return {keys[0]: 1.0}
    try:
        found = optuna.importance.get_param_importances(study)
    except (RuntimeError, ValueError):
        return None
    return {k: float(v) for k, v in found.items()}


def parallel(study: optuna.Study | None, keys: list[str], objective: str) -> list[dict[str, Any]]:
    done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)) if study else []
    axes = [{"label": k, "values": [t.params.get(k) for t in done]} for k in keys]
    return [*axes, {"label": objective, "values": [t.value for t in done]}]


def report(database_url: str, tune_id: int, plan: TunePlan, settled: bool) -> dict[str, Any]:
    """The `progress`, `trials`, `importances`, `parallel` and `protocol` of the tune;
    `settled`: its trials are over (a method short of its budget is flagged)."""
    spec = plan.spec()
    keys = [d.key for d in spec.space]
    found = studies(database_url, tune_id, plan)
    outcomes = [chosen(m, s) for m, s in found.items()]
    short = shortfalls(outcomes, plan.trials)
    progress = []
    for c, study in zip(outcomes, found.values(), strict=True):
        running = (
            len(study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))) if study else 0
        )
        progress.append(
            {
                "method": c.method,
                "budget": plan.trials,
                "complete": c.complete,
                "pruned": c.pruned,
                "failed": c.failed,
                "running": running,
                "best_value": c.value,
                "best_params": c.params,
                "short": settled and c.method in short,
            }
        )
    trials = [trial_row(m, t) for m, s in found.items() if s for t in s.get_trials(deepcopy=False)]
    imp = {m: i for m, s in found.items() if (i := importances(s, keys)) is not None}
    par = {m: parallel(s, keys, spec.objective.spec.name) for m, s in found.items()}
    return {
        "protocol": protocol(spec, plan.validation, plan.seeds),
        "direction": spec.objective.direction,
        "flags": list(short.values()) if settled else [],
        "progress": progress,
        "trials": trials,
        "importances": imp,
        "parallel": par,
    }
