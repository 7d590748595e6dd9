"""Client views of a run: availability, selection and staleness matrices, accuracies."""

from __future__ import annotations

from typing import Annotated, Literal

import numpy as np
from fastapi import APIRouter, Query

from api.deps import MAX_INT, RunDep, SessionDep
from api.schemas.errors import NOT_FOUND
from api.schemas.series import (
    ClientAccuracyPublic,
    ClientRoundPublic,
    ClientRoundsPublic,
    MatrixPublic,
    ParticipationPublic,
    StalenessDistributionPublic,
    TimelinePublic,
)
from db import matrices, staleness
from db.client_rounds import FIELDS, client_rounds
from db.models import Run
from db.participation import participation
from db.timeline import STATES, client_timeline
from worker.engine.algorithms.asynchronous import runs_async
from worker.engine.components import current
from worker.engine.stats import participation_bias

router = APIRouter(prefix="/api/runs/{run_id}", tags=["clients"], responses=NOT_FOUND)

MaxClients = Annotated[int, Query(ge=1, le=2000)]
MaxRounds = Annotated[int, Query(ge=1, le=5000)]
# A page of client rounds holds at most this many per-client values (available ids and
# staleness take one a client): 1000 clients get 1000 rounds a page, 10⁶ clients one.
PAGE_CELLS = 1_000_000


@router.get("/availability")
def read_availability(
    run: RunDep, session: SessionDep, max_clients: MaxClients = 200, max_rounds: MaxRounds = 500
) -> MatrixPublic:
    """Share of (client, round) cells of each bucket where the client was available."""
    m = matrices.availability(session, run.id, run.n_clients, max_clients, max_rounds)
    return MatrixPublic(**vars(m))


@router.get("/selection")
def read_selection(
    run: RunDep, session: SessionDep, max_clients: MaxClients = 200, max_rounds: MaxRounds = 500
) -> MatrixPublic:
    """Share of (client, round) cells of each bucket where the client was selected."""
    m = matrices.selection(session, run.id, run.n_clients, max_clients, max_rounds)
    return MatrixPublic(**vars(m))


@router.get("/staleness")
def read_staleness(
    run: RunDep, session: SessionDep, max_clients: MaxClients = 200, max_rounds: MaxRounds = 500
) -> MatrixPublic:
    """Mean staleness (rounds since the client's last selection) of each bucket."""
    m = matrices.staleness(session, run.id, run.n_clients, max_clients, max_rounds)
    return MatrixPublic(**vars(m))


@router.get("/staleness/distribution")
def read_staleness_distribution(
    run: RunDep, session: SessionDep, max_bins: Annotated[int, Query(ge=1, le=5000)] = 100
) -> StalenessDistributionPublic:
    """How many (client, round) cells have each staleness, counted exactly over every
    recorded round, in at most `max_bins` bins of equal integer width."""
    d = staleness.distribution(session, run.id, run.n_clients)
    width, starts, counts = d.binned(max_bins)
    return StalenessDistributionPublic(
        unit=staleness_unit(run),
        rounds=d.rounds,
        cells=d.cells,
        width=width,
        starts=starts,
        counts=counts,
        mean=d.mean,
        max=d.max,
    )


def staleness_unit(run: Run) -> Literal["rounds", "versions"]:
    """Versions for an async run (a round is a server update), rounds otherwise."""
    name = ((run.config or {}).get("algorithm") or {}).get("name")
    return (
        "versions" if isinstance(name, str) and runs_async(current().algorithms, name) else "rounds"
    )


@router.get("/participation")
def read_participation(run: RunDep, session: SessionDep) -> ParticipationPublic:
    """Each client's share of rounds available against the rounds its update entered:
    the participation-bias diagnostic, and its correlation `participation_bias`."""
    p = participation(session, run.id, run.n_clients)
    total = max(1, int(p.updates.sum()))
    return ParticipationPublic(
        rounds=p.rounds,
        available_share=np.round(p.available_share, 6).tolist(),
        updates=p.updates.tolist(),
        update_share=np.round(p.updates / total, 6).tolist(),
        participation_bias=participation_bias(p.available_share, p.updates),
    )


@router.get("/timeline")
def read_timeline(
    run: RunDep,
    session: SessionDep,
    max_clients: MaxClients = 100,
    max_buckets: Annotated[int, Query(ge=1, le=2000)] = 400,
    start_s: Annotated[float, Query(ge=0, le=1e15)] = 0.0,
    end_s: Annotated[float | None, Query(gt=0, le=1e15)] = None,
) -> TimelinePublic:
    """Each client in simulated time from `start_s` to `end_s` (default: the last
    round's end): offline, online, training, uploading, or its update kept, partial or
    dropped, downsampled to at most `max_clients` rows and `max_buckets` columns. Empty
    for a run without a system model."""
    t = client_timeline(session, run.id, run.n_clients, max_clients, max_buckets, start_s, end_s)
    return TimelinePublic(
        clients=t.clients, times=t.times, width_s=t.width_s, labels=list(STATES), states=t.states
    )


@router.get("/client-accuracy")
def read_client_accuracy(run: RunDep, session: SessionDep) -> ClientAccuracyPublic:
    round_, values = matrices.client_accuracy(session, run.id)
    return ClientAccuracyPublic(round=round_, values=values)


@router.get("/clients/rounds")
def read_client_rounds(
    run: RunDep,
    session: SessionDep,
    after: Annotated[int, Query(ge=-1, le=MAX_INT, description="The page starts after it.")] = -1,
    limit: Annotated[int, Query(ge=1, le=5000)] = 500,
    fields: Annotated[
        str,
        Query(
            pattern=rf"^({'|'.join(FIELDS)})(,({'|'.join(FIELDS)}))*$",
            description="Comma-separated, of: " + ", ".join(FIELDS),
        ),
    ] = ",".join(FIELDS),
) -> ClientRoundsPublic:
    """Every recorded round's client records at full resolution, a page at a time, in
    round order: available and selected ids, aggregation weights, and each client's
    staleness. A page holds at most `limit` rounds, fewer where clients are many (at
    most 10⁶ per-client values a page). Start with `after=-1` and pass each page's
    `next_after` until it is null."""
    wanted = fields.split(",")
    dense = {"available", "staleness"} & set(wanted)
    size = min(limit, max(1, PAGE_CELLS // run.n_clients)) if dense else limit
    rows = client_rounds(session, run.id, run.n_clients, after, size, wanted)
    return ClientRoundsPublic(
        data=[ClientRoundPublic(**vars(r)) for r in rows],
        next_after=rows[-1].round if len(rows) == size else None,
    )
