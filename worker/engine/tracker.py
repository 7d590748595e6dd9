"""Per-round client metrics (staleness, effective importance, bias); the run summary is
`worker.engine.summary`'s."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch
from torch import Tensor

from worker.engine.records import Summary
from worker.engine.stats import participation_bias
from worker.engine.summary import SummaryTracker


class Tracker:
    """Staleness of client k at round t = t − (last round its update entered the model);
    a client never heard from counts t + 1. With a clock, also in seconds: the round's
    end minus the end of that round (the run's start for a client never heard from).

    It also counts, per client, the rounds it was available in and those its update
    entered, for the run's `participation_bias`."""

    def __init__(self, alpha: Tensor, target_acc: float | None, period: int | None = None) -> None:
        n = len(alpha)
        self.alpha = alpha.detach().cpu().double()
        self.last = torch.full((n,), -1, dtype=torch.long)
        self.last_s = torch.zeros(n, dtype=torch.float64)
        self.p_sum = torch.zeros(n, dtype=torch.float64)
        self.p_rounds = 0
        self.available = torch.zeros(n, dtype=torch.long)
        self.entered = torch.zeros(n, dtype=torch.long)
        self.rounds = 0
        self.summary_tracker = SummaryTracker(target_acc, period)

    def client_metrics(
        self,
        t: int,
        available: Tensor,
        selected: Tensor,
        weights: Tensor,
        now: float | None = None,
    ) -> dict[str, float]:
        """The round's client metrics; `available`: the (N,) mask of the round's
        available clients; `now`: the round's end in simulated seconds (None: no clock)."""
        self.rounds += 1
        self.available += available.cpu()
        self.entered[selected.unique()] += 1
        self.last[selected] = t
        out = _spread("staleness", (t - self.last).double())
        if now is not None:
            self.last_s[selected] = now
            out.update(_spread("staleness_s", now - self.last_s))
        w = weights.detach().cpu().double().abs()
        if float(w.sum()) > 0:
            p = w / w.sum()
            self.p_sum += p
            self.p_rounds += 1
            out["tv_bias"] = 0.5 * float((self.alpha - p).abs().sum())
            out["tv_bias_avg"] = 0.5 * float((self.alpha - self.p_sum / self.p_rounds).abs().sum())
        return out

    def observe(self, t: int, metrics: Mapping[str, float]) -> None:
        """All the metrics of round `t`, once the round is complete."""
        self.summary_tracker.observe(t, metrics)

    def summary(
        self, rounds: int, wall_s: float, stopped: bool, startup_s: float | None = None
    ) -> Summary:
        bias = None
        if self.rounds:
            share = (self.available.double() / self.rounds).numpy()
            bias = participation_bias(share, self.entered.numpy())
        return Summary(self.summary_tracker.summary(rounds, wall_s, startup_s, bias), stopped)

    def state_dict(self) -> dict[str, Any]:
        return {
            "last": self.last.clone(),
            "last_s": self.last_s.clone(),
            "p_sum": self.p_sum.clone(),
            "p_rounds": self.p_rounds,
            "available": self.available.clone(),
            "entered": self.entered.clone(),
            "rounds": self.rounds,
            "summary": self.summary_tracker.state_dict(),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.last, self.p_sum = state["last"].clone(), state["p_sum"].clone()
        self.last_s = state["last_s"].clone()
        self.p_rounds = state["p_rounds"]
        self.available = state["available"].clone()
        self.entered = state["entered"].clone()
        self.rounds = int(state["rounds"])
        self.summary_tracker.load_state_dict(state["summary"])


def _spread(prefix: str, stale: Tensor) -> dict[str, float]:
    """Mean, median, p90 and max of the clients' staleness, as `<prefix>_mean` etc."""
    q = torch.quantile(stale, torch.tensor([0.5, 0.9], dtype=torch.float64))
    return {
        f"{prefix}_mean": float(stale.mean()),
        f"{prefix}_p50": float(q[0]),
        f"{prefix}_p90": float(q[1]),
        f"{prefix}_max": float(stale.max()),
    }
