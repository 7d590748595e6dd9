"""Hand-made runs written through the recorder."""

from __future__ import annotations

import numpy as np
from sqlalchemy.orm import Session, sessionmaker

from db.runs import new_run
from worker.engine import ClientWeights, RoundRecord, run_config_for
from worker.engine.components import current
from worker.recorder import Recorder


def make_run(sessions: sessionmaker[Session], n_clients: int, rounds: int) -> int:
    config = run_config_for(current()).model_validate(
        {"rounds": rounds, "data": {"n_clients": n_clients}, "algorithm": {"participation": 1}}
    )
    with sessions.begin() as session:
        run = new_run(config.model_dump(mode="json"), queue="cpu")
        session.add(run)
        session.flush()
        return run.id


def record(
    round_: int,
    available: list[int],
    selected: list[int],
    metrics: dict[str, float] | None = None,
    client_acc: list[float] | None = None,
) -> RoundRecord:
    return RoundRecord(
        round=round_,
        metrics=metrics or {},
        available=np.array(available, dtype=np.int64),
        selected=np.array(selected, dtype=np.int64),
        weights=ClientWeights.from_dict({c: 1.0 / len(selected) for c in selected}),
        wall_s=0.1 * (round_ + 1),
        client_acc=client_acc,
    )


def write(
    sessions: sessionmaker[Session],
    run_id: int,
    n_clients: int,
    records: list[RoundRecord],
    start_round: int = 0,
) -> None:
    """Record `records` in batches of 4 rounds, as a worker starting at `start_round`."""
    recorder = Recorder(
        sessions, run_id, n_clients, flush_rounds=4, flush_seconds=60, start_round=start_round
    )
    for r in records:
        recorder.on_round(r)
    recorder.close()
