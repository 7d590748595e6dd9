"""A service tune advanced step by step (`worker.tune.service.advance`) on a SQLite
database, its runs executed by the run's own body (`worker.execute`) in this process.

The convex problem of `test_study`: validation loss 4(1 − 2η)^(2(t+1)) after round t for
a learning rate η, so round 0's loss is 4(1 − 2η)²: 0.04 at η = 0.45 or 0.55, 0 at ½,
3.984 at η = 0.001."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

import optuna
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from db.migrate import upgrade
from db.models import Run, Tune
from db.session import make_engine, make_sessionmaker
from db.settings import Settings
from worker.claims import claim_execution
from worker.engine import ListSink, current, run_config_for, simulate
from worker.execute import execute_claimed
from worker.round_rows import RoundRows
from worker.tune.plan import TunePlan
from worker.tune.service import advance, load_study
from worker.tune.storage import optuna_storage, study_name

CONVEX = (
    "algorithm.name=fedavg",
    "availability.kind=always",
    "data.mean_estimation.means=[2.0, 2.0]",
    "rounds=5",
    "device=cpu",
)
PLAN = TunePlan(
    preset="example1",
    methods=("fedavg",),
    space=("client.lr=linear:0.001:0.999",),
    trials=4,
    seeds=1,
    objective="final_val_loss",
    validation=0.5,
    sampler="random",
    pruner="median",
    prune_after=3,
    parallel=1,
    set=CONVEX,
)


@pytest.fixture
def sessions(tmp_path: Path) -> sessionmaker[Session]:
    url = f"sqlite:///{tmp_path / 'fedwatch.sqlite3'}"
    upgrade(url)
    return make_sessionmaker(make_engine(url))


def settings_of(sessions: sessionmaker[Session]) -> Settings:
    url = sessions.kw["bind"].url.render_as_string(hide_password=False)
    return Settings(database_url=url, broker_url=None, flush_seconds=0.05, lease_s=10.0)


def new_tune(sessions: sessionmaker[Session], plan: TunePlan, lrs: list[float]) -> int:
    """A stored tune whose study draws `lrs` first."""
    with sessions.begin() as session:
        tune = Tune(name="convex", spec=plan.to_json(), status="tuning")
        session.add(tune)
        session.flush()
        tune_id = tune.id
    url = settings_of(sessions).database_url
    study = load_study(url, tune_id, "fedavg", plan.spec(), 5)
    for lr in lrs:
        study.enqueue_trial({"client.lr": lr})
    return tune_id


def step(sessions: sessionmaker[Session], tune_id: int) -> list[int]:
    """One step; the runs it started."""
    done = advance(sessions, settings_of(sessions), tune_id)
    return [run_id for run_id, _ in done.submit]


def execute(sessions: sessionmaker[Session], run_id: int) -> None:
    settings = settings_of(sessions)
    claimed = claim_execution(sessions, run_id, "test", settings)
    assert claimed is not None
    stop, cancel = threading.Event(), threading.Event()
    execute_claimed(
        run_id, claimed.claim, sessions=sessions, settings=settings, stop=stop, cancel=cancel
    )


def store_first_round(sessions: sessionmaker[Session], run_id: int) -> None:
    """The run, claimed, with its first round stored as its execution stores it."""
    settings = settings_of(sessions)
    assert claim_execution(sessions, run_id, "test", settings) is not None
    with sessions.begin() as session:
        run = session.get(Run, run_id)
        assert run is not None
        config = run_config_for(current()).model_validate(run.config)
        sink = ListSink()
        simulate(config, sink)
        rows = RoundRows.load(session, run_id, config.data.n_clients)
        rows.store(session, rows.pack(sink.records[:1], 1))


def trials(sessions: sessionmaker[Session], tune_id: int) -> list[optuna.trial.FrozenTrial]:
    storage = optuna_storage(settings_of(sessions).database_url)
    return optuna.load_study(study_name=study_name(tune_id, "fedavg"), storage=storage).trials


def tags(sessions: sessionmaker[Session], run_id: int) -> list[str]:
    with sessions() as session:
        run = session.get(Run, run_id)
        assert run is not None
        return run.tags


def test_an_obviously_bad_trial_is_pruned_and_its_run_says_so(
    sessions: sessionmaker[Session],
) -> None:
    tune_id = new_tune(sessions, PLAN, [0.45, 0.5, 0.55, 0.001])
    for _ in range(3):  # three good trials, one at a time (parallel 1), run to their end
        (run_id,) = step(sessions, tune_id)
        execute(sessions, run_id)
    (bad,) = step(sessions, tune_id)
    store_first_round(sessions, bad)

    (final,) = step(sessions, tune_id)  # the budget of 4 is met: the final run starts

    states = [t.state for t in trials(sessions, tune_id)]
    assert states == [optuna.trial.TrialState.COMPLETE] * 3 + [optuna.trial.TrialState.PRUNED]
    pruned = trials(sessions, tune_id)[3]
    assert pruned.intermediate_values == {0: pytest.approx(4 * 0.998**2)}
    assert pruned.user_attrs["pruned_at_round"] == 0
    assert {"tune:1", "method:fedavg", "trial:3", "state:pruned"} <= set(tags(sessions, bad))
    with sessions() as session:
        run = session.get(Run, bad)
        assert run is not None and run.cancel_requested
        tune = session.get(Tune, tune_id)
        assert tune is not None and tune.status == "final"
        assert session.scalar(select(Run.experiment_id).where(Run.id == final)) == (
            tune.experiment_id
        )
    completed = trials(sessions, tune_id)[:3]
    # 4(1 − 2η)^10 after 5 rounds, within float32's rounding of η
    assert [t.value for t in completed] == pytest.approx([4e-10, 0.0, 4e-10], rel=1e-2, abs=1e-15)


def test_a_trial_whose_executor_died_fails_and_is_replaced(
    sessions: sessionmaker[Session],
) -> None:
    plan = TunePlan(**{**PLAN.to_json(), "trials": 2, "pruner": "none"})
    tune_id = new_tune(sessions, plan, [0.5, 0.25])
    (first,) = step(sessions, tune_id)
    with sessions.begin() as session:  # its executor died: the run was queued again
        run = session.get(Run, first)
        assert run is not None
        run.crashes = 1

    (replacement,) = step(sessions, tune_id)

    assert [t.state for t in trials(sessions, tune_id)] == [
        optuna.trial.TrialState.FAIL,
        optuna.trial.TrialState.RUNNING,
    ]
    assert "executor died" in trials(sessions, tune_id)[0].user_attrs["error"]
    assert "state:failed" in tags(sessions, first)
    with sessions() as session:
        assert session.scalar(select(Run.status).where(Run.id == first)) == "cancelled"
    # the budget is still met: the replacement and one more trial complete
    execute(sessions, replacement)
    (last,) = step(sessions, tune_id)
    execute(sessions, last)
    finals = step(sessions, tune_id)
    states = [t.state for t in trials(sessions, tune_id)]
    assert states.count(optuna.trial.TrialState.COMPLETE) == 2 and len(states) == 3
    assert len(finals) == 1


def test_a_tune_resumes_from_the_database_alone(sessions: sessionmaker[Session]) -> None:
    # every step reads the tune from the database: a fresh engine (a restarted server)
    # takes the next step where the last one stopped
    plan = TunePlan(**{**PLAN.to_json(), "trials": 2, "pruner": "none"})
    tune_id = new_tune(sessions, plan, [0.5, 0.25])
    (first,) = step(sessions, tune_id)
    execute(sessions, first)
    restarted = make_sessionmaker(make_engine(settings_of(sessions).database_url))

    (second,) = step(restarted, tune_id)
    execute(restarted, second)
    finals = step(restarted, tune_id)
    for run_id in finals:
        execute(restarted, run_id)
    step(restarted, tune_id)

    with restarted() as session:
        tune = session.get(Tune, tune_id)
        assert tune is not None and tune.status == "done"
        (final,) = session.scalars(select(Run).where(Run.experiment_id == tune.experiment_id))
    assert final.config["client"]["lr"] == 0.5 and final.seed == 1
    assert final.config["eval"]["validation"] == 0
    assert final.status == "succeeded" and set(final.tags) == {"tune:1", "method:fedavg", "final"}


def test_a_trial_whose_run_was_never_stored_is_failed_not_given_another(
    sessions: sessionmaker[Session],
) -> None:
    # Optuna's storage commits a trial's run id at once, the run commits with the step: a
    # server stopped in between leaves the second method's trial an id no run holds, and
    # SQLite gives that id (rolled back) to the next run made, the first method's.
    plan = replace(PLAN, methods=("fedavg", "fedlaavg"), trials=2)
    tune_id = new_tune(sessions, plan, [])
    url = settings_of(sessions).database_url
    lost = load_study(url, tune_id, "fedlaavg", plan.spec(), 5).ask()
    lost.set_user_attr("run_id", 1)  # the id the step's first run will be given

    started = step(sessions, tune_id)

    fedavg = load_study(url, tune_id, "fedavg", plan.spec(), 5).trials
    fedlaavg = load_study(url, tune_id, "fedlaavg", plan.spec(), 5).trials
    assert fedavg[0].user_attrs["run_id"] == 1 and "method:fedavg" in tags(sessions, 1)
    assert fedlaavg[0].state == optuna.trial.TrialState.FAIL
    assert "never stored" in fedlaavg[0].user_attrs["error"]
    assert fedlaavg[0].user_attrs["run_id"] is None  # shown with no run, not with fedavg's
    assert fedlaavg[1].user_attrs["run_id"] == 2  # its replacement, with a run of its own
    assert started == [1, 2]
