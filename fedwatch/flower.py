"""Flower integration: a wrapper around any strategy of Flower's Message API
(`flwr.serverapp.strategy`) that records the run in FedWatch. One line in a ServerApp:

    strategy = track(FedAvg(fraction_train=0.5), "http://127.0.0.1:8000", name="cifar")

Every round it records the nodes sampled for training (selected), the nodes that
answered (a sampled node that failed or did not answer in time is unavailable that
round; the other connected nodes are available), each reply's aggregation weight (its
share of the examples, the strategy's `weighted_by_key`), the aggregated train and
evaluation metrics, and the server-side evaluation (`evaluate_fn`'s "accuracy" and
"loss" become `test_acc` and `test_loss`). Flower node ids map to client indices
0..N−1 in ascending order of the nodes connected at the first round (the run is created
then, once the strategy's sampling has waited for them); nodes that join later are not
recorded.

Needs `pip install 'fedwatch-client[flower]'`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from flwr.app import ArrayRecord, ConfigRecord, Message, MetricRecord
from flwr.serverapp import Grid
from flwr.serverapp.strategy import Result, Strategy

from fedwatch.client import FedWatch, Run

# Server-side evaluation keys that name FedWatch's standard curves.
SERVER_METRICS = {"accuracy": "test_acc", "acc": "test_acc", "loss": "test_loss"}
EvaluateFn = Callable[[int, ArrayRecord], MetricRecord | None]


def _scalars(record: Mapping[str, Any] | None, names: Mapping[str, str]) -> dict[str, float]:
    """The record's numbers (lists left out), renamed by `names`."""
    if not record:
        return {}
    return {
        names.get(key, key): float(value)
        for key, value in record.items()
        if isinstance(value, int | float) and not isinstance(value, bool)
    }


@dataclass
class RoundLog:
    """What one round told us so far (Flower rounds count from 1, FedWatch's from 0)."""

    connected: list[int] = field(default_factory=list)
    sampled: list[int] = field(default_factory=list)
    failed: set[int] = field(default_factory=set)
    weights: dict[int, float] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)


class FedWatchStrategy(Strategy):
    """Runs `strategy` unchanged and records each round in FedWatch."""

    def __init__(
        self,
        strategy: Strategy,
        fedwatch: FedWatch,
        name: str,
        config: Mapping[str, Any] | None = None,
        experiment: str | None = None,
    ) -> None:
        self.strategy = strategy
        self.fedwatch = fedwatch
        self.name = name
        self.config = dict(config or {})
        self.experiment = experiment
        self.index: dict[int, int] = {}
        self.num_rounds = 0
        self.round = RoundLog()
        self.run: Run | None = None  # started at the first round, once the nodes are there

    def __getattr__(self, name: str) -> Any:
        """The wrapped strategy's attributes (e.g. `weighted_by_key`)."""
        return getattr(self.__dict__["strategy"], name)

    def start(
        self,
        grid: Grid,
        initial_arrays: ArrayRecord,
        num_rounds: int = 3,
        timeout: float = 3600,
        train_config: ConfigRecord | None = None,
        evaluate_config: ConfigRecord | None = None,
        evaluate_fn: EvaluateFn | None = None,
    ) -> Result:
        """Flower's round loop, recorded; the run ends failed if the loop raises."""
        self.num_rounds = num_rounds
        try:
            result = super().start(
                grid,
                initial_arrays,
                num_rounds,
                timeout,
                train_config,
                evaluate_config,
                self._recording(evaluate_fn),
            )
        except BaseException as err:
            if self.run is not None:
                self.run.finish("failed", f"{type(err).__name__}: {err}")
            raise
        if self.run is not None:
            self.run.finish()
        return result

    def summary(self) -> None:
        self.strategy.summary()

    def configure_train(
        self, server_round: int, arrays: ArrayRecord, config: ConfigRecord, grid: Grid
    ) -> Iterable[Message]:
        messages = list(self.strategy.configure_train(server_round, arrays, config, grid))
        if self.run is None:  # the strategy's sampling has waited for the nodes to connect
            self._start_run(grid)
        self.round = RoundLog(
            connected=list(grid.get_node_ids()),
            sampled=[m.metadata.dst_node_id for m in messages],
        )
        return messages

    def aggregate_train(
        self, server_round: int, replies: Iterable[Message]
    ) -> tuple[ArrayRecord | None, MetricRecord | None]:
        replies = list(replies)
        answered = {m.metadata.src_node_id: m for m in replies if not m.has_error()}
        self.round.failed = set(self.round.sampled) - set(answered)
        key = getattr(self.strategy, "weighted_by_key", "num-examples")
        examples = {node: _examples(m, key) for node, m in answered.items()}
        total = sum(examples.values())
        if total > 0:
            self.round.weights = {node: n / total for node, n in examples.items()}
        arrays, metrics = self.strategy.aggregate_train(server_round, replies)
        self.round.metrics |= _scalars(metrics, {})
        return arrays, metrics

    def configure_evaluate(
        self, server_round: int, arrays: ArrayRecord, config: ConfigRecord, grid: Grid
    ) -> Iterable[Message]:
        return self.strategy.configure_evaluate(server_round, arrays, config, grid)

    def aggregate_evaluate(
        self, server_round: int, replies: Iterable[Message]
    ) -> MetricRecord | None:
        metrics = self.strategy.aggregate_evaluate(server_round, list(replies))
        self.round.metrics |= _scalars(metrics, {})
        return metrics

    def _start_run(self, grid: Grid) -> None:
        nodes = sorted(grid.get_node_ids())
        self.index = {node: k for k, node in enumerate(nodes)}
        config = {"strategy": type(self.strategy).__name__, "num_rounds": self.num_rounds}
        self.run = self.fedwatch.start_run(
            self.name, config | self.config, len(nodes), self.experiment, self.num_rounds
        )

    def _recording(self, evaluate_fn: EvaluateFn | None) -> EvaluateFn:
        """`evaluate_fn`, which Flower calls last in every round, logging the round."""

        def evaluate(server_round: int, arrays: ArrayRecord) -> MetricRecord | None:
            result = evaluate_fn(server_round, arrays) if evaluate_fn else None
            if server_round > 0 and self.run is not None:  # 0: the initial model
                self._log(server_round - 1, _scalars(result, SERVER_METRICS))
            return result

        return evaluate

    def _log(self, t: int, server_metrics: dict[str, float]) -> None:
        assert self.run is not None
        known = self.index
        failed = self.round.failed
        self.run.log_round(
            t,
            self.round.metrics | server_metrics,
            available=[known[n] for n in self.round.connected if n in known and n not in failed],
            selected=[known[n] for n in self.round.sampled if n in known],
            weights={known[n]: w for n, w in self.round.weights.items() if n in known},
        )


def _examples(reply: Message, key: str) -> float:
    """The reply's example count: `key` in its metric record (0 if it has none)."""
    for record in reply.content.metric_records.values():
        value = record.get(key)
        if isinstance(value, int | float):
            return float(value)
    return 0.0


def track(
    strategy: Strategy,
    url: str,
    name: str,
    *,
    token: str | None = None,
    spool_dir: str | None = None,
    config: Mapping[str, Any] | None = None,
    experiment: str | None = None,
) -> FedWatchStrategy:
    """`strategy`, recorded in the FedWatch server at `url` as the run `name`."""
    return FedWatchStrategy(strategy, FedWatch(url, token, spool_dir), name, config, experiment)
