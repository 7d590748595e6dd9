"""Each client's participation over a whole run: the share of the rounds it was
available in, and the rounds its update entered, from the compact per-round records."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sqlalchemy.orm import Session

from db import matrices


@dataclass(frozen=True)
class Participation:
    rounds: int
    available_share: np.ndarray  # (N,) float64
    updates: np.ndarray  # (N,) int64: rounds in which the client's update entered


def participation(session: Session, run_id: int, n_clients: int) -> Participation:
    """The clients' participation over every recorded round (one bucket of rounds)."""
    rounds = matrices.last_recorded(session, run_id) + 1
    if rounds == 0:
        zeros = np.zeros(n_clients)
        return Participation(0, zeros, zeros.astype(np.int64))
    available = matrices.availability(session, run_id, n_clients, n_clients, 1)
    selected = matrices.selection(session, run_id, n_clients, n_clients, 1)
    # the matrices hold shares rounded to 6 decimals: back to whole counts of rounds
    present = np.rint(np.array([row[0] if row else 0.0 for row in available.values]) * rounds)
    counts = np.rint(np.array([row[0] for row in selected.values]) * rounds).astype(np.int64)
    return Participation(rounds, present / rounds, counts)
