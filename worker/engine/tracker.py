"""Per-round client metrics (staleness, effective importance, bias) and the run summary."""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from worker.engine.records import Summary


class Tracker:
    """Staleness of client k at round t = t − (last round its update entered the model);
    a client never heard from counts t + 1."""

    def __init__(self, alpha: Tensor, target_acc: float | None) -> None:
        n = len(alpha)
        self.alpha = alpha.detach().cpu().double()
        self.target = target_acc
        self.last = torch.full((n,), -1, dtype=torch.long)
        self.p_sum = torch.zeros(n, dtype=torch.float64)
        self.p_rounds = 0
        self.acc: list[tuple[int, float]] = []
        self.last_loss: float | None = None
        self.updates = 0

    def client_metrics(self, t: int, selected: Tensor, weights: Tensor) -> dict[str, float]:
        self.last[selected] = t
        self.updates += len(selected)
        stale = (t - self.last).double()
        q = torch.quantile(stale, torch.tensor([0.5, 0.9], dtype=torch.float64))
        out = {
            "staleness_mean": float(stale.mean()),
            "staleness_p50": float(q[0]),
            "staleness_p90": float(q[1]),
            "staleness_max": float(stale.max()),
        }
        w = weights.detach().cpu().double().abs()
        if float(w.sum()) > 0:
            p = w / w.sum()
            self.p_sum += p
            self.p_rounds += 1
            out["tv_bias"] = 0.5 * float((self.alpha - p).abs().sum())
            out["tv_bias_avg"] = 0.5 * float((self.alpha - self.p_sum / self.p_rounds).abs().sum())
        return out

    def observe_acc(self, t: int, acc: float) -> None:
        self.acc.append((t, acc))

    def observe_loss(self, loss: float) -> None:
        self.last_loss = loss

    def summary(self, rounds: int, wall_s: float, stopped: bool) -> Summary:
        s = Summary(rounds_done=rounds, wall_s=wall_s, stopped=stopped)
        s.client_updates_per_s = self.updates / wall_s if wall_s > 0 else 0.0
        s.final_test_loss = self.last_loss
        if not self.acc:
            return s
        values = torch.tensor([a for _, a in self.acc], dtype=torch.float64)
        s.best_test_acc = float(values.max())
        s.final_test_acc = float(values[-1])
        s.time_avg_test_acc = float(values.mean())
        second = torch.tensor([a for r, a in self.acc if r >= rounds // 2], dtype=torch.float64)
        s.std_test_acc_second_half = float(second.std(unbiased=False)) if len(second) else None
        if self.target is not None:
            s.rounds_to_target = next((r + 1 for r, a in self.acc if a >= self.target), None)
        return s

    def state_dict(self) -> dict[str, Any]:
        return {
            "last": self.last.clone(),
            "p_sum": self.p_sum.clone(),
            "p_rounds": self.p_rounds,
            "acc": list(self.acc),
            "last_loss": self.last_loss,
            "updates": self.updates,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.last, self.p_sum = state["last"].clone(), state["p_sum"].clone()
        self.p_rounds, self.acc = state["p_rounds"], list(state["acc"])
        self.last_loss = state["last_loss"]
        self.updates = state["updates"]
