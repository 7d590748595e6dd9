"""Each client's participation over a whole run, from the compact per-round records: the
share of the rounds it was available in; how often its update was kept (it entered
fresh), dropped (the server asked for it and it did not enter: late, gone, or past the
updates over-commitment keeps) or entered stale (a memory's entry of an earlier update);
its share of the aggregate; and, from round 0's facts, its data share and device time.
`contributions` is the part the privacy accountant reads: the rounds each client's update
entered, and the rates it amplified at."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from db import matrices
from db.matrices import fetch_all
from db.models import RoundClients
from db.packing import id_dtype, unpack_facts, unpack_timeline, unpack_weight_arrays
from db.timeline import DROPPED, OUTCOMES


@dataclass(frozen=True)
class Participation:
    """Per client (N,): `available_share` of the `rounds`; `kept`, `dropped` and `stale`
    counts of rounds; `data_share`, α (uniform where the run did not record it:
    `data_known`); `work_s`, its device's seconds for a round's whole work (None: no
    system model). Every aggregation weight, flat: `weight_round` (the index of its row
    in round order), `weight_ids` and `weights`."""

    rounds: int
    available_share: np.ndarray
    kept: np.ndarray
    dropped: np.ndarray
    stale: np.ndarray
    data_share: np.ndarray
    data_known: bool
    work_s: np.ndarray | None
    weight_round: np.ndarray
    weight_ids: np.ndarray
    weights: np.ndarray


def participation(session: Session, run_id: int, n_clients: int) -> Participation:
    """The clients' participation over every recorded round."""
    rounds = matrices.last_recorded(session, run_id) + 1
    r = RoundClients
    rows = fetch_all(
        session,
        select(r.round, r.available, r.selected, r.weights, r.timeline, r.clients)
        .where(r.run_id == run_id)
        .order_by(r.round),
    )
    available = matrices.availability(session, run_id, n_clients, n_clients, 1)
    # the matrix holds shares rounded to 6 decimals: back to whole counts of rounds
    present = np.rint(np.array([row[0] if row else 0.0 for row in available.values]) * rounds)
    width = id_dtype(n_clients)
    selected = [np.frombuffer(row[2], dtype=width).astype(np.int64) for row in rows]
    weighted = [unpack_weight_arrays(row[3], n_clients) for row in rows]
    at = np.repeat(np.arange(len(rows)), [len(w[0]) for w in weighted])
    ids = np.concatenate([w[0] for w in weighted]) if rows else np.zeros(0, np.int64)
    values = np.concatenate([w[1] for w in weighted]) if rows else np.zeros(0)
    chosen = np.concatenate(selected) if rows else np.zeros(0, np.int64)
    fresh = np.isin(
        at * n_clients + ids,
        np.repeat(np.arange(len(rows)), list(map(len, selected))) * n_clients + chosen,
    )
    facts = next((unpack_facts(row[5], n_clients) for row in rows if row[5] is not None), None)
    return Participation(
        rounds=rounds,
        available_share=present / max(rounds, 1),
        kept=np.bincount(chosen, minlength=n_clients).astype(np.int64),
        dropped=_dropped(rows, n_clients),
        stale=np.bincount(ids[~fresh], minlength=n_clients).astype(np.int64),
        data_share=np.full(n_clients, 1 / n_clients) if facts is None else facts.data_share,
        data_known=facts is not None,
        work_s=None if facts is None else facts.work_s,
        weight_round=at,
        weight_ids=ids,
        weights=values.astype(np.float64),
    )


@dataclass(frozen=True)
class Contributions:
    """Per client (N,) the rounds its update entered the model fresh (`counts`: what
    the privacy accountant composes), over the run's `rounds` recorded rounds, and, from
    round 0's facts, the Poisson rates the accountant amplified at (None: it did not, or
    the run was recorded before the rates were kept)."""

    rounds: int
    counts: np.ndarray
    privacy_rate: np.ndarray | None


def contributions(session: Session, run_id: int, n_clients: int) -> Contributions:
    """Each client's contributions over every recorded round: the rounds that selected
    it (a record's `selected`: the updates that entered, with a system model the kept
    ones), which is what the engine's accountant counts."""
    r = RoundClients
    rows = fetch_all(session, select(r.selected).where(r.run_id == run_id))
    chosen = np.frombuffer(b"".join(row[0] for row in rows), dtype=id_dtype(n_clients))
    blob = session.scalar(
        select(r.clients).where(r.run_id == run_id, r.clients.is_not(None)).limit(1)
    )
    return Contributions(
        rounds=matrices.last_recorded(session, run_id) + 1,
        counts=np.bincount(chosen, minlength=n_clients).astype(np.int64),
        privacy_rate=None if blob is None else unpack_facts(blob, n_clients).privacy_rate,
    )


def _dropped(rows: list[Any], n: int) -> np.ndarray:
    """Per client: the selected updates that did not enter (a system model's timelines)."""
    lost = [k for k, v in OUTCOMES.items() if v == DROPPED]
    chosen = [
        t.ids[np.isin(t.outcome, lost)].astype(np.int64)
        for t in (unpack_timeline(row[4], n) for row in rows if row[4] is not None)
    ]
    return np.bincount(np.concatenate(chosen) if chosen else np.zeros(0, np.int64), minlength=n)
