"""Per-round client metrics (staleness, effective importance, bias); the run summary is
`worker.engine.summary`'s."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from torch import Tensor

from worker.engine import bias
from worker.engine.masks import Available
from worker.engine.records import ClientWeights, Summary
from worker.engine.summary import SummaryTracker


class Tracker:
    """Staleness of client k at round t = t − (last round its update entered the model);
    a client never heard from counts t + 1. With a clock, also in seconds: the round's
    end minus the end of that round (the run's start for a client never heard from).
    The staleness in rounds is summarised from `by_last`, the number of clients whose
    last round is each round (index last + 1), updated by the round's K clients, and
    the bias from the clients weighted so far: no pass over the N clients but adding
    the round's availability mask, a byte a client (`Tally`), to the counts of the
    rounds each was available in (for the run's bias split by availability,
    `worker.engine.bias`); at 10⁶ clients the quantiles' sort alone took 11 ms a
    round. `work_s`: each client's device time for a round's whole work (a system
    model's runs), for the split by device speed."""

    def __init__(
        self,
        alpha: Tensor,
        target_acc: float | None,
        period: int | None = None,
        work_s: np.ndarray | None = None,
    ) -> None:
        n = len(alpha)
        self.alpha = alpha.detach().cpu().double()
        self.last = torch.full((n,), -1, dtype=torch.long)
        self.by_last = np.array([n], dtype=np.int64)
        self.last_s = torch.zeros(n, dtype=torch.float64)
        self.alpha_total = float(self.alpha.sum())
        self.weighted = Weighted(self.alpha.numpy())
        self.p_rounds = 0
        self.available = Tally(n)
        self.work_s = work_s
        self.rounds = 0
        self.summary_tracker = SummaryTracker(target_acc, period)

    def client_metrics(
        self,
        t: int,
        available: Available,
        selected: Tensor,
        weights: ClientWeights,
        now: float | None = None,
    ) -> dict[str, float]:
        """The round's client metrics; `available`: the round's available clients;
        `weights`: the clients whose update entered, with their weights (the round's
        record); `now`: the round's end in simulated seconds (None: no clock)."""
        self.rounds += 1
        self.available.add(available.mask)
        self._count(t, selected)
        out = _spread_counts("staleness", self.by_last[t + 1 :: -1], len(self.last))
        if now is not None:
            self.last_s[selected] = now
            out.update(_spread("staleness_s", now - self.last_s))
        support = torch.from_numpy(weights.ids)
        w = torch.from_numpy(weights.values).double().abs()
        if float(w.sum()) > 0:
            p = w / w.sum()
            self.weighted.add(weights.ids, p.numpy())
            self.p_rounds += 1
            out["tv_bias"] = 0.5 * self._distance(self.alpha[support], p)
            alpha, sums = self.weighted.alphas_and_sums()
            out["tv_bias_avg"] = 0.5 * self._distance(alpha, sums / self.p_rounds)
        return out

    def _distance(self, alpha: Tensor, p: Tensor) -> float:
        """Σ_k |α_k − p_k| for p zero outside the clients `alpha` holds the weights of:
        over them, and α's sum elsewhere."""
        return self.alpha_total - float(alpha.sum()) + float((alpha - p).abs().sum())

    def _count(self, t: int, selected: Tensor) -> None:
        """Move the round's clients to round t in `last` and `by_last`."""
        if len(self.by_last) < t + 2:
            grown = np.zeros(max(t + 2, 2 * len(self.by_last)), dtype=np.int64)
            grown[: len(self.by_last)] = self.by_last
            self.by_last = grown
        ids = torch.unique(selected.cpu())
        np.subtract.at(self.by_last, (self.last[ids] + 1).numpy(), 1)
        self.by_last[t + 1] += len(ids)
        self.last[ids] = t

    def observe(self, t: int, metrics: Mapping[str, float]) -> None:
        """All the metrics of round `t`, once the round is complete."""
        self.summary_tracker.observe(t, metrics)

    def summary(
        self, rounds: int, wall_s: float, stopped: bool, startup_s: float | None = None
    ) -> Summary:
        values = self.summary_tracker.summary(rounds, wall_s, startup_s, self.bias())
        return Summary(values, stopped)

    def bias(self) -> dict[str, float | None]:
        """The run's bias summary values (`worker.engine.bias`): the clients' shares of the
        aggregate so far, p̄ = the sums of their normalised weights over the rounds that
        aggregated, against α."""
        share = None
        if self.p_rounds:
            share = self.weighted.sums_by_client().numpy() / self.p_rounds
        available = self.available.counts().double().numpy() / max(self.rounds, 1)
        return bias.summary_values(self.alpha.numpy(), share, available, self.work_s)

    def state_dict(self) -> dict[str, Any]:
        return {
            "last": self.last.clone(),
            "last_s": self.last_s.clone(),
            "p_sum": self.weighted.sums_by_client(),
            "seen_ids": self.weighted.ids_in_order(),  # the sums' order
            "p_rounds": self.p_rounds,
            "available": self.available.counts(),
            "rounds": self.rounds,
            "summary": self.summary_tracker.state_dict(),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.last = state["last"].clone()
        self.by_last = np.bincount((self.last + 1).numpy()).astype(np.int64)
        self.weighted = Weighted.of(self.alpha.numpy(), state["seen_ids"], state["p_sum"])
        self.last_s = state["last_s"].clone()
        self.p_rounds = state["p_rounds"]
        self.available = Tally.of(state["available"])
        self.rounds = int(state["rounds"])
        self.summary_tracker.load_state_dict(state["summary"])


class Weighted:
    """The clients weighted so far, in the order they first were: their target weights
    and the sums of their shares side by side in arrays of their own, so that the
    average bias reads two contiguous arrays as long as those clients, where gathering
    them from the N clients' (and copying their ids a round) took 2.3 ms a round at
    10⁶ clients by round 400."""

    def __init__(self, alpha: np.ndarray) -> None:
        self.alpha = alpha  # (N,) float64
        self.place = np.full(len(alpha), -1, dtype=np.int64)  # index in the arrays, or -1
        self.ids = np.empty(16, dtype=np.int64)
        self.alphas = np.empty(16)
        self.sums = np.empty(16)
        self.count = 0

    @classmethod
    def of(cls, alpha: np.ndarray, ids: Tensor, sums: Tensor) -> Weighted:
        """The clients `ids` weighted so far, in that order, their sums read from the
        (N,) `sums`."""
        out = cls(alpha)
        order = ids.numpy()
        out.add(order, np.zeros(len(order)))
        out.sums[: out.count] = sums.double().numpy()[order]
        return out

    def add(self, ids: np.ndarray, p: np.ndarray) -> None:
        """Add a round's shares `p` of the clients `ids` (distinct, ascending)."""
        new = ids[self.place[ids] < 0]
        if len(new):
            end = self.count + len(new)
            if end > len(self.ids):
                size = max(end, 2 * len(self.ids))
                self.ids = np.resize(self.ids, size)
                self.alphas, self.sums = np.resize(self.alphas, size), np.resize(self.sums, size)
            at = np.arange(self.count, end)
            self.place[new] = at
            self.ids[at], self.alphas[at], self.sums[at] = new, self.alpha[new], 0.0
            self.count = end
        self.sums[self.place[ids]] += p

    def alphas_and_sums(self) -> tuple[Tensor, Tensor]:
        """Their target weights and sums, in their order (views)."""
        n = self.count
        return torch.from_numpy(self.alphas[:n]), torch.from_numpy(self.sums[:n])

    def ids_in_order(self) -> Tensor:
        return torch.from_numpy(self.ids[: self.count].copy())

    def sums_by_client(self) -> Tensor:
        """The sums as an (N,) tensor, 0 for the clients never weighted."""
        out = np.zeros(len(self.alpha))
        out[self.ids[: self.count]] = self.sums[: self.count]
        return torch.from_numpy(out)


class Tally:
    """Per-client counts of the rounds a mask held each client, added a round at a
    time: into one byte a client, carried into int64 counts every 255 rounds, so that
    a round reads and writes N bytes rather than N int64s."""

    BYTE_ROUNDS = 255

    def __init__(self, n: int) -> None:
        self.carried = torch.zeros(n, dtype=torch.long)
        self.recent = np.zeros(n, dtype=np.uint8)
        self.rounds = 0  # added into `recent`

    @classmethod
    def of(cls, counts: Tensor) -> Tally:
        """A tally that holds `counts` (int64, (N,))."""
        tally = cls(len(counts))
        tally.carried = counts.clone()
        return tally

    def add(self, mask: Tensor) -> None:
        """One more round, holding the clients of the (N,) bool `mask`."""
        if self.rounds == self.BYTE_ROUNDS:
            self.carried += torch.from_numpy(self.recent)
            self.recent[:] = 0
            self.rounds = 0
        np.add(self.recent, mask.cpu().numpy().view(np.uint8), out=self.recent)
        self.rounds += 1

    def counts(self) -> Tensor:
        """Each client's count (int64, (N,)), a new tensor."""
        return self.carried + torch.from_numpy(self.recent)


def _spread_counts(prefix: str, counts: np.ndarray, n: int) -> dict[str, float]:
    """`_spread` of n values given as `counts[s]` values equal to s: the same figures
    (quantiles interpolated as `torch.quantile`, linearly, with `torch.lerp`'s form)."""
    cum = np.cumsum(counts)
    values = np.arange(len(counts), dtype=np.float64)

    def ranked(r: int) -> float:  # the r-th smallest value (0-based)
        return float(np.searchsorted(cum, r, side="right"))

    def quantile(q: float) -> float:
        rank = q * (n - 1)
        below = int(rank)
        low, high, w = ranked(below), ranked(min(below + 1, n - 1)), rank - below
        return low + w * (high - low) if w < 0.5 else high - (high - low) * (1 - w)

    return {
        f"{prefix}_mean": float(counts @ values) / n,
        f"{prefix}_p50": quantile(0.5),
        f"{prefix}_p90": quantile(0.9),
        f"{prefix}_max": float(np.flatnonzero(counts)[-1]),
    }


def _spread(prefix: str, stale: Tensor) -> dict[str, float]:
    """Mean, median, p90 and max of the clients' staleness, as `<prefix>_mean` etc."""
    q = torch.quantile(stale, torch.tensor([0.5, 0.9], dtype=torch.float64))
    return {
        f"{prefix}_mean": float(stale.mean()),
        f"{prefix}_p50": float(q[0]),
        f"{prefix}_p90": float(q[1]),
        f"{prefix}_max": float(stale.max()),
    }
