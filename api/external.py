"""External runs: created from their declaration, their rounds turned into records."""

from __future__ import annotations

import math

import numpy as np
from fastapi.exceptions import RequestValidationError
from sqlalchemy.orm import Session

from api.schemas.ingest import ExternalRunCreate, RoundIn
from db.external import experiment_named, new_external_run
from db.models import Run
from worker.engine import ClientWeights, RoundRecord


def create_external(session: Session, body: ExternalRunCreate) -> Run:
    experiment = None
    if body.experiment is not None:
        experiment = experiment_named(session, body.experiment, body.config)
    run = new_external_run(
        name=body.name,
        config=body.config,
        n_clients=body.n_clients,
        rounds=body.rounds,
        experiment_id=None if experiment is None else experiment.id,
        notes=body.notes,
        created_at=body.created_at or body.started_at,
        started_at=body.started_at or body.created_at,
        availability_period=body.availability_period,
    )
    session.add(run)
    session.commit()
    return run


def _error(loc: list[str | int], msg: str) -> dict[str, object]:
    return {"loc": ["body", "rounds", *loc], "msg": msg, "type": "value_error"}


def _ids(index: int, field: str, ids: list[int], n_clients: int) -> list[dict[str, object]]:
    """An error for the first id out of [0, n_clients) and the first repeated one."""
    errors = []
    outside = next((j for j, i in enumerate(ids) if i >= n_clients), None)
    if outside is not None:
        msg = f"client id {ids[outside]} is not in [0, {n_clients})"
        errors.append(_error([index, field, outside], msg))
    if len(set(ids)) != len(ids):
        errors.append(_error([index, field], "a client id appears twice"))
    return errors


def check_batch(rounds: list[RoundIn], n_clients: int, max_rounds: int) -> None:
    """422 naming each bad record's index and field: ids in [0, n_clients), no id twice,
    rounds increasing, one accuracy per client, at most `max_rounds` records."""
    errors: list[dict[str, object]] = []
    if len(rounds) > max_rounds:
        errors.append({**_error([], f"{len(rounds)} rounds: at most {max_rounds} a batch")})
    for index, r in enumerate(rounds):
        if index and r.round <= rounds[index - 1].round:
            errors.append(_error([index, "round"], "rounds must increase within a batch"))
        for field, ids in (("available", r.available), ("selected", r.selected)):
            errors += _ids(index, field, ids or [], n_clients)
        errors += _ids(index, "weights", list(r.weights or {}), n_clients)
        if r.client_acc is not None and len(r.client_acc) != n_clients:
            msg = f"{len(r.client_acc)} accuracies for {n_clients} clients"
            errors.append(_error([index, "client_acc"], msg))
        if "wall_s" in r.metrics:
            errors.append(_error([index, "metrics", "wall_s"], "send it as `wall_s`"))
    if errors:
        raise RequestValidationError(errors)


def to_record(r: RoundIn) -> RoundRecord:
    """The round as the engine reports one: selected defaults to the clients with a
    weight, available to the selected."""
    weights = ClientWeights.from_dict(dict(r.weights or {}))
    selected = r.selected if r.selected is not None else weights.ids.tolist()
    available = r.available if r.available is not None else selected
    return RoundRecord(
        round=r.round,
        metrics={k: math.nan if v is None else v for k, v in r.metrics.items()},
        available=np.asarray(sorted(available), dtype=np.int64),
        selected=np.asarray(selected, dtype=np.int64),
        weights=weights,
        wall_s=r.wall_s,
        client_acc=None
        if r.client_acc is None
        else [np.nan if a is None else a for a in r.client_acc],
    )
