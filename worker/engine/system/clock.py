"""The run's clock under a system model: who is online when a round starts, how long
each selected client's work takes, and the round's times, traffic and losses.

Model bytes: the global model goes down to each selected client and each kept update
comes up, `4·d` bytes each way (float32 parameters). Traffic counts every selected
client's download and every kept update's upload.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from torch import Tensor

from worker.engine.system.base import SystemModel
from worker.engine.system.timing import PARTIAL, RoundTimes, Work, time_round

BYTES_PER_PARAMETER = 4


@dataclass(frozen=True)
class Rules:
    """How rounds end: `deadline_s` (inf: none), whether clients return partial work,
    and `keep`, the updates an over-committed round keeps (None: every selected)."""

    deadline_s: float
    partial: bool
    keep: int | None


class Clock:
    def __init__(self, model: SystemModel, rules: Rules, dim: int) -> None:
        self.model = model
        self.rules = rules
        self.s_per_sample = model.s_per_sample.numpy()
        self.down_bps, self.up_bps = model.down_bps.numpy(), model.up_bps.numpy()
        self.model_bytes = BYTES_PER_PARAMETER * dim
        self.now = 0.0
        self.bytes_down = 0
        self.bytes_up = 0

    @property
    def pi(self) -> Tensor | None:
        """Each client's long-run share of time online, where the model gives sessions."""
        sessions = self.model.sessions
        return None if sessions is None else sessions.pi

    def available(self, allowed: Tensor) -> Tensor:
        """The clients available as the round starts: `allowed` (the round-based
        model's mask) and online now. With sessions and no such client, the clock
        first moves on to the next time one comes online."""
        sessions = self.model.sessions
        if sessions is None:
            return allowed
        mask = allowed & sessions.online(self.now).to(allowed.device)
        if not bool(mask.any()):
            nxt = sessions.next_online(self.now, allowed.cpu())
            if math.isfinite(nxt):
                self.now = nxt
                mask = allowed & sessions.online(self.now).to(allowed.device)
        return mask

    def work_s(self, samples: np.ndarray) -> np.ndarray:
        """Every client's seconds for a round's whole work, `samples` (N,) the training
        samples its planned steps take: download, compute and upload, with no deadline,
        session or wait (what a deadline is measured against)."""
        compute = samples * self.s_per_sample
        return self.model_bytes / self.down_bps + compute + self.model_bytes / self.up_bps

    def time(self, ids: np.ndarray, steps: np.ndarray, samples: np.ndarray) -> RoundTimes:
        """The round of the clients `ids`, with their planned steps and the training
        samples those steps take."""
        work = Work(
            down_s=self.model_bytes / self.down_bps[ids],
            compute_s=samples * self.s_per_sample[ids],
            up_s=self.model_bytes / self.up_bps[ids],
            steps=steps,
        )
        sessions = self.model.sessions
        if sessions is None:
            session_end = np.full(len(ids), math.inf)
        else:
            session_end = sessions.session_end(ids, self.now)
        keep = len(ids) if self.rules.keep is None else min(self.rules.keep, len(ids))
        return time_round(
            self.now, work, session_end, self.rules.deadline_s, self.rules.partial, keep
        )

    def advance(self, times: RoundTimes, started: float) -> dict[str, float]:
        """Move to the round's end; the round's metrics (`started`: the time the round
        started, before any wait for a client to come online)."""
        kept = times.kept
        n_kept = int(kept.sum())
        self.now = times.round_end
        return {
            "sim_time_s": self.now,
            "round_time_s": self.now - started,
            **self.traffic(len(kept), n_kept),
            "dropped_updates": float(len(kept) - n_kept),
            "partial_updates": float(np.count_nonzero(times.outcome == PARTIAL)),
            "wasted_client_s": times.wasted_s,
        }

    def traffic(self, downloads: int, uploads: int) -> dict[str, float]:
        """Count `downloads` of the model and `uploads` of updates; the traffic metrics."""
        down, up = self.model_bytes * downloads, self.model_bytes * uploads
        self.bytes_down += down
        self.bytes_up += up
        return {
            "bytes_down": float(down),
            "bytes_up": float(up),
            "bytes_down_total": float(self.bytes_down),
            "bytes_up_total": float(self.bytes_up),
        }

    def state_dict(self) -> dict[str, Any]:
        return {"now": self.now, "bytes_down": self.bytes_down, "bytes_up": self.bytes_up}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.now = float(state["now"])
        self.bytes_down, self.bytes_up = int(state["bytes_down"]), int(state["bytes_up"])
