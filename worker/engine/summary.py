"""A run's summary from its round metrics: the one computation, streamed by the engine as
rounds finish (`SummaryTracker`) or run over a stored series (`summarise`).

It yields every summary value of the catalogue (`metrics.catalogue()`, kind `summary`),
None where the run recorded nothing to compute it from.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

from worker.engine import metrics
from worker.engine.scaled import scaled_mean, scaled_std

SummaryValue = float | int | None

# Summary values that are the last recorded value of a round metric.
LAST_VALUES: dict[str, str] = {
    "final_test_loss": "test_loss",
    "final_val_acc": "val_acc",
    "final_val_loss": "val_loss",
    "final_client_acc_mean": "client_acc_mean",
    "final_client_acc_var": "client_acc_var",
    "final_client_acc_worst10": "client_acc_worst10",
    "final_client_acc_best10": "client_acc_best10",
    "final_param": "param",
    "final_opt_gap": "opt_gap",
    "final_epsilon_assumed": "epsilon_assumed",
    "final_epsilon_client_max": "epsilon_client_max",
    "final_epsilon_client_median": "epsilon_client_median",
    "sim_time_total_s": "sim_time_s",
}
TRAFFIC = ("bytes_down_total", "bytes_up_total")
# The round metrics the tracker reads by name (`observe`, `summary`).
READ = ("test_acc", "initial_test_acc", "n_selected", "param", "sim_time_s", *TRAFFIC)


def summary_inputs() -> tuple[str, ...]:
    """Every round metric a summary is computed from: those read by name, each last
    value's, and each round metric the catalogue averages (`<name>_avg`). A stored
    series given to `summarise` needs no other."""
    averaged = (s.name for s in metrics.catalogue() if s.kind == "round" and s.summary)
    return tuple(dict.fromkeys((*READ, *LAST_VALUES.values(), *averaged)))


class SummaryTracker:
    """Streams round metrics in and computes the summary of the rounds seen so far.

    `time_avg_test_acc` is the mean of every evaluation, the initial model's
    (`initial_test_acc`) included where it was evaluated, and `time_avg_points` their
    number; `rounds_to_target` counts rounds up to the first evaluation that reached the
    target accuracy, and `time_to_target_s` is that round's `sim_time_s`; `total_bytes`
    adds the last cumulative traffic down and up; `std_test_acc_second_half` is the
    std of the second half (`std_second_half`, over the rounds done so far);
    `client_updates_per_s` is Σ `n_selected` over the wall time; `<name>_avg` averages
    a round metric over the rounds that recorded it; `period_avg_param` is the mean of
    `param` over the last `period` rounds (those after `last round − period`), once the
    rounds that recorded it reach back a whole period (`period`: the availability
    model's, None when it has none).
    """

    def __init__(self, target_acc: float | None, period: int | None = None) -> None:
        self.target = target_acc
        self.period = period
        self.window: deque[tuple[int, float]] = deque()  # (round, param), the last period
        self.first_param: int | None = None
        self.acc: list[tuple[int, float]] = []
        self.acc_time: dict[int, float] = {}  # sim_time_s of the evaluated rounds
        self.initial: float | None = None
        self.last: dict[str, float] = {}
        self.sums: dict[str, float] = {}
        self.counts: dict[str, int] = {}
        self.updates = 0.0

    def observe(self, t: int, values: Mapping[str, float]) -> None:
        """Take in the metrics recorded in round `t` (rounds in increasing order)."""
        if "initial_test_acc" in values:
            self.initial = float(values["initial_test_acc"])
        if "test_acc" in values:
            self.acc.append((t, float(values["test_acc"])))
            if "sim_time_s" in values:
                self.acc_time[t] = float(values["sim_time_s"])
        self.updates += float(values.get("n_selected", 0.0))
        if "param" in values and self.period:
            self.window.append((t, float(values["param"])))
            while self.window[0][0] <= t - self.period:
                self.window.popleft()
            self.first_param = t if self.first_param is None else self.first_param
        for name, value in values.items():
            v = float(value)
            self.last[name] = v
            self.sums[name] = self.sums.get(name, 0.0) + v
            self.counts[name] = self.counts.get(name, 0) + 1

    def summary(
        self,
        rounds_done: int,
        wall_s: float,
        startup_s: float | None = None,
        bias: Mapping[str, SummaryValue] | None = None,
    ) -> dict[str, SummaryValue]:
        """Every summary value of the catalogue, in catalogue order; `bias`, the
        participation-bias values, come from the clients' weights and availability
        (`worker.engine.bias`), not the series."""
        computed: dict[str, SummaryValue] = {
            **(bias or {}),
            **self._accuracy(rounds_done),
            **{key: self.last.get(name) for key, name in LAST_VALUES.items()},
            "rounds_done": rounds_done,
            "wall_s": wall_s,
            "startup_s": startup_s,
            "client_updates_per_s": self.updates / wall_s if wall_s > 0 else 0.0,
            "period_avg_param": self._period_average(),
            "total_bytes": self._traffic(),
        }
        for spec in metrics.catalogue():
            if spec.kind == "round" and spec.summary and self.counts.get(spec.name):
                average = self.sums[spec.name] / self.counts[spec.name]
                computed[metrics.summary_name(spec.name)] = average
        return {
            s.name: _finite(computed.get(s.name))
            for s in metrics.catalogue()
            if s.kind == "summary"
        }

    def _traffic(self) -> float | None:
        if any(name not in self.last for name in TRAFFIC):
            return None
        return sum(self.last[name] for name in TRAFFIC)  # past the float range: inf

    def _period_average(self) -> float | None:
        if not self.period or not self.window or self.first_param is None:
            return None
        last = self.window[-1][0]
        if last - self.first_param + 1 < self.period:  # not a whole period recorded yet
            return None
        return scaled_mean([v for _, v in self.window])

    def _accuracy(self, rounds_done: int) -> dict[str, SummaryValue]:
        if not self.acc:
            return {}
        values = [a for _, a in self.acc]
        points = values if self.initial is None else [self.initial, *values]
        target = self.target
        first = next((r for r, a in self.acc if a >= target), None) if target is not None else None
        return {
            "best_test_acc": max(points),
            "final_test_acc": values[-1],
            "time_avg_test_acc": scaled_mean(points),
            "time_avg_points": len(points),
            "std_test_acc_second_half": std_second_half(
                ((r + 1, a) for r, a in self.acc), rounds_done
            ),
            "rounds_to_target": None if first is None else first + 1,
            "time_to_target_s": None if first is None else self.acc_time.get(first),
        }

    def state_dict(self) -> dict[str, Any]:
        return {
            "acc": list(self.acc),
            "acc_time": dict(self.acc_time),
            "initial": self.initial,
            "last_values": dict(self.last),
            "sums": dict(self.sums),
            "counts": dict(self.counts),
            "updates": self.updates,
            "param_window": list(self.window),
            "first_param": self.first_param,
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.acc = [(int(t), float(a)) for t, a in state["acc"]]
        self.acc_time = {int(t): float(v) for t, v in state["acc_time"].items()}
        self.initial = state["initial"]
        self.updates = float(state["updates"])
        self.window = deque((int(t), float(v)) for t, v in state["param_window"])
        self.first_param = state["first_param"]
        self.last = dict(state["last_values"])
        self.sums, self.counts = dict(state["sums"]), dict(state["counts"])


def std_second_half(points: Iterable[tuple[int, float]], rounds: int) -> float | None:
    """CA-Fed's "std 2nd half" (its paper's Table I): the population std of the
    accuracies evaluated after at least half of a run's `rounds`, each point as (rounds
    completed, accuracy): for 150 rounds, those at rounds completed ≥ 75. None when
    there is no such point. The one definition: run summaries and reproduction reports
    read it."""
    second = [acc for completed, acc in points if 2 * completed >= rounds]
    return scaled_std(second) if second else None


def _finite(value: SummaryValue) -> SummaryValue:
    """A summary value past the float range is not a value (JSON holds no infinity): the
    average of a metric whose running sum overflowed, a rate over a near-zero time."""
    return value if value is None or math.isfinite(value) else None


def summarise(
    rounds: Iterable[tuple[int, Mapping[str, float]]],
    rounds_done: int,
    wall_s: float,
    target_acc: float | None,
    startup_s: float | None = None,
    period: int | None = None,
    bias: Mapping[str, SummaryValue] | None = None,
) -> dict[str, SummaryValue]:
    """The summary of a stored series: `(round, metrics)` in increasing round order."""
    tracker = SummaryTracker(target_acc, period)
    for t, values in rounds:
        tracker.observe(t, values)
    return tracker.summary(rounds_done, wall_s, startup_s, bias)
