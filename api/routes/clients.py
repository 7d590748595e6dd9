"""Client views of a run: availability, selection and staleness matrices, accuracies."""

from __future__ import annotations

from typing import Annotated, Literal

import numpy as np
from fastapi import APIRouter, Query

from api.deps import RunDep, SessionDep
from api.schemas.errors import NOT_FOUND
from api.schemas.participation import BinPublic, ParticipationPublic
from api.schemas.series import (
    ClientAccuracyPublic,
    ClientRoundPublic,
    ClientRoundsPublic,
    MatrixPublic,
    StalenessDistributionPublic,
    TimelinePublic,
)
from db import matrices, staleness
from db.client_rounds import FIELDS, client_rounds
from db.models import Run
from db.participation import participation
from db.timeline import STATES, client_timeline
from fedwatch.limits import INT32_MAX
from worker.engine import current
from worker.engine.bias import Bin, aggregate_share, split, tv_distance

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
    algorithms = current().algorithms
    if isinstance(name, str) and name in algorithms and algorithms.get(name).runs_async:
        return "versions"
    return "rounds"


@router.get("/participation")
def read_participation(run: RunDep, session: SessionDep) -> ParticipationPublic:
    """Each client's availability, device time and how its updates fared (kept, dropped,
    stale), its share of the aggregate against its share of the data, and the run's
    participation bias: overall (TV) and by fifths of availability and device time."""
    p = participation(session, run.id, run.n_clients)
    share = aggregate_share(run.n_clients, p.rounds, p.weight_round, p.weight_ids, p.weights)
    alpha = p.data_share
    by_speed = None
    if p.work_s is not None and share is not None:
        by_speed = split(p.work_s, alpha, share, descending=True)
    return ParticipationPublic(
        rounds=p.rounds,
        available_share=_rounded(p.available_share),
        kept=p.kept.tolist(),
        dropped=p.dropped.tolist(),
        stale=p.stale.tolist(),
        aggregate_share=None if share is None else _rounded(share),
        data_share=_rounded(alpha),
        data_known=p.data_known,
        work_s=None if p.work_s is None else _rounded(p.work_s),
        participation_tv=None if share is None else tv_distance(alpha, share),
        by_availability=None if share is None else _bins(split(p.available_share, alpha, share)),
        by_device_time=_bins(by_speed),
    )


def _rounded(values: np.ndarray) -> list[float]:
    return np.round(values, 9).tolist()


def _bins(bins: list[Bin] | None) -> list[BinPublic] | None:
    return None if bins is None else [BinPublic(**vars(b), gap=b.gap) for b in bins]


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
    after: Annotated[int, Query(ge=-1, le=INT32_MAX, description="The page starts after it.")] = -1,
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
