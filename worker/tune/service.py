"""A service tune, advanced one step at a time from what the database holds, so any
process may take the next step and a restart loses nothing.

A step (`advance`), under a lock on the tune's row: each method's running trials are
settled from their runs (new round values reported to Optuna, the pruner asked; a
finished run's objective told; a run that failed, or whose executor died, fails its
trial), then new trials are asked until the method has `parallel` in flight or its
budget is met, each an ordinary queued run tagged `tune:<id>`, `method:<name>`,
`trial:<number>`. Once every method's budget is met, each method's best settings run on
the fresh seeds as an ordinary experiment (the final comparison)."""

from __future__ import annotations

from dataclasses import dataclass

import optuna
from optuna.trial import TrialState
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from db.bulk import tag_runs
from db.metric_values import full_series
from db.models import Experiment, Run, Tune
from db.runs import cancel_run, new_run
from db.settings import Settings
from db.status import ACTIVE
from fedwatch.limits import TAG_MAX
from worker.data_root import portable
from worker.dispatch import queue_for
from worker.engine import ConfigError
from worker.tune.plan import TunePlan
from worker.tune.storage import optuna_storage, study_name
from worker.tune.study import FINISHED, TuneSpec, best_params

RUN_ID = "run_id"  # the trial's user attribute: the id of its run
ERROR = "error"
PRUNED_AT = "pruned_at_round"


def tags(tune_id: int, method: str, trial: int | None) -> list[str]:
    """A trial's (or, with `trial` None, a final run's) tags."""
    which = "final" if trial is None else f"trial:{trial}"
    return [f"tune:{tune_id}", f"method:{method}"[:TAG_MAX], which]


def load_study(
    database_url: str, tune_id: int, method: str, spec: TuneSpec, rounds: int
) -> optuna.Study:
    return optuna.create_study(
        storage=optuna_storage(database_url),
        study_name=study_name(tune_id, method),
        load_if_exists=True,
        direction=spec.objective.direction,
        sampler=spec.make_sampler(),
        pruner=spec.make_pruner(rounds),
    )


@dataclass
class Step:
    """What one step did: runs to submit once committed."""

    submit: list[tuple[int, str]]


def advance(sessions: sessionmaker[Session], settings: Settings, tune_id: int) -> Step:
    """One step of the tune (see the module's docstring); the runs it created are
    submitted by the caller after this returns (they are committed)."""
    step = Step([])
    with sessions.begin() as session:
        tune = session.get(Tune, tune_id, with_for_update=True)
        if tune is None or tune.status == "done":
            return step
        plan = TunePlan.from_json(tune.spec)
        if tune.status == "tuning":
            _tune(session, tune, plan, settings, step)
        if tune.status == "final":
            _finish(session, tune)
    return step


def _tune(session: Session, tune: Tune, plan: TunePlan, settings: Settings, step: Step) -> None:
    spec, url = plan.spec(), settings.database_url
    done = True
    for method in plan.methods:
        rounds = plan.trial_config(method, {}).rounds
        study = load_study(url, tune.id, method, spec, rounds)
        for frozen in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
            owned = tags(tune.id, method, frozen.number)
            settle(session, study, frozen, spec, settings.lease_s, owned)
        done &= _ask(session, study, tune, plan, method, settings, step)
    if done:
        _start_finals(session, tune, plan, settings, step)


def _ask(
    session: Session,
    study: optuna.Study,
    tune: Tune,
    plan: TunePlan,
    method: str,
    settings: Settings,
    step: Step,
) -> bool:
    """Start trials up to `parallel` in flight within the budget; True when the method's
    budget is met (finished trials) or spent (twice the budget attempted)."""
    while True:
        trials = study.get_trials(deepcopy=False)
        finished = sum(t.state in FINISHED for t in trials)
        running = sum(t.state == TrialState.RUNNING for t in trials)
        if finished >= plan.trials or len(trials) >= 2 * plan.trials:
            return running == 0
        if running >= plan.parallel or finished + running >= plan.trials:
            return False
        trial = study.ask()
        params = {d.key: d.suggest(trial) for d in plan.dimensions}
        try:
            config = portable(plan.trial_config(method, params), settings)
        except ConfigError as err:
            trial.set_user_attr(ERROR, str(err))
            study.tell(trial, state=TrialState.FAIL)
            continue
        run = new_run(
            config.model_dump(mode="json"),
            queue=queue_for(config),
            name=f"{tune.name} {method} trial {trial.number}",
            cell=method,
        )
        session.add(run)
        session.flush()
        for tag in tags(tune.id, method, trial.number):
            tag_runs(session, [run.id], tag, True)
        trial.set_user_attr(RUN_ID, run.id)
        step.submit.append((run.id, run.queue))


def settle(
    session: Session,
    study: optuna.Study,
    frozen: optuna.trial.FrozenTrial,
    spec: TuneSpec,
    lease_s: float,
    owned: list[str],
) -> None:
    """Bring a running trial up to date with its run (see the module's docstring).
    `owned`: the tags its run carries. Optuna's storage commits the trial's run id at
    once, the run itself commits with the step: a server stopped in between leaves the
    trial an id that no run holds, or that a later run was given (SQLite reuses the ids
    of rows rolled back). Such a trial fails, and is replaced."""
    run_id = frozen.user_attrs.get(RUN_ID)
    run = session.get(Run, run_id) if run_id is not None else None
    if run is None or not set(owned) <= set(run.tags):
        # the id is no run of its: the trial shows none
        optuna.trial.Trial(study, frozen._trial_id).set_user_attr(RUN_ID, None)
        why = "its run was never stored (the server stopped before)" if run else "its run is gone"
        return _fail(session, study, frozen, None, f"{why}; the trial is replaced")
    if run.crashes > 0 and run.status in ACTIVE:
        cancel_run(session, run, lease_s)
        return _fail(session, study, frozen, run, "its executor died; the trial is replaced")
    last = _report(session, study, frozen, spec)
    if run.status == "succeeded":
        value = (run.summary or {}).get(spec.objective.spec.name)
        if value is None:
            return _fail(
                session, study, frozen, run, f"its run recorded no {spec.objective.spec.name}"
            )
        study.tell(frozen.number, float(value))
        return _tag(session, run, "complete")
    if run.status not in ACTIVE:
        return _fail(session, study, frozen, run, run.error or f"its run is {run.status}")
    if last is not None:
        _prune(session, study, frozen, run, last, lease_s)


def _report(
    session: Session, study: optuna.Study, frozen: optuna.trial.FrozenTrial, spec: TuneSpec
) -> int | None:
    """Report the rounds the trial's run recorded since the last step (the pruner reads
    finished trials' values too); the last round reported, None if none was new."""
    trial = optuna.trial.Trial(study, frozen._trial_id)
    known = frozen.intermediate_values
    rounds, values = full_series(session, frozen.user_attrs[RUN_ID], spec.objective.round_metric)
    last = None
    for r, v in zip(rounds, values, strict=True):
        if r not in known and v is not None:
            trial.report(v, r)
            last = r
    return last


def _prune(
    session: Session, study: optuna.Study, frozen: optuna.trial.FrozenTrial, run: Run, at: int,
    lease_s: float,
) -> None:  # fmt: skip
    """Prune the trial where the pruner says so, and cancel its run."""
    trial = optuna.trial.Trial(study, frozen._trial_id)
    if trial.should_prune():
        trial.set_user_attr(PRUNED_AT, at)
        study.tell(frozen.number, state=TrialState.PRUNED)
        cancel_run(session, run, lease_s)
        _tag(session, run, "pruned")


def _fail(
    session: Session,
    study: optuna.Study,
    frozen: optuna.trial.FrozenTrial,
    run: Run | None,
    why: str,
) -> None:
    optuna.trial.Trial(study, frozen._trial_id).set_user_attr(ERROR, why)
    study.tell(frozen.number, state=TrialState.FAIL)
    if run is not None:
        _tag(session, run, "failed")


def _tag(session: Session, run: Run, state: str) -> None:
    tag_runs(session, [run.id], f"state:{state}", True)


def _start_finals(
    session: Session, tune: Tune, plan: TunePlan, settings: Settings, step: Step
) -> None:
    """The final comparison: an experiment of each method's best settings on the fresh
    seeds (a method with no completed trial has none)."""
    cells = []
    runs = []
    for method in plan.methods:
        rounds = plan.trial_config(method, {}).rounds
        spec = plan.spec()
        params = best_params(load_study(settings.database_url, tune.id, method, spec, rounds))
        if params is None:
            continue
        chosen = {**plan.method(method).assignments(), **params, "eval.validation": 0}
        cells.append({"label": method, "set": chosen})
        for seed in plan.final_seeds():
            config = portable(plan.final_config(method, params, seed), settings)
            run = new_run(
                config.model_dump(mode="json"),
                queue=queue_for(config),
                name=f"{tune.name} (final) [{method}] seed={seed}",
                cell=method,
            )
            runs.append((method, run))
    experiment = Experiment(
        name=f"{tune.name} (final)",
        base=plan.base.run_config(list(plan.set)).model_dump(mode="json"),
        grid={},
        seeds=plan.final_seeds(),
        cells=cells,
        preset=None,
    )
    session.add(experiment)
    session.flush()
    for method, run in runs:
        run.experiment_id = experiment.id
        session.add(run)
        session.flush()
        for tag in tags(tune.id, method, None):
            tag_runs(session, [run.id], tag, True)
        step.submit.append((run.id, run.queue))
    tune.experiment_id = experiment.id
    tune.status = "final"


def _finish(session: Session, tune: Tune) -> None:
    """Done once no final run is queued or running."""
    active = session.scalar(
        select(Run.id).where(Run.experiment_id == tune.experiment_id, Run.status.in_(ACTIVE))
    )
    if active is None:
        tune.status = "done"
