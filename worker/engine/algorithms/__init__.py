"""Server algorithms, one file each: `build_algorithm(ctx)` picks by `algorithm.name`."""

from __future__ import annotations

from worker.engine.algorithms.base import Algorithm, Context, Step
from worker.engine.algorithms.fedavg import FedAvg
from worker.engine.algorithms.fedlaavg import FedLaAvg
from worker.engine.algorithms.fedvarp import FedVarp
from worker.engine.algorithms.mifa import Mifa
from worker.engine.algorithms.sgd import CentralSgd

ALGORITHMS: dict[str, type[Algorithm]] = {
    "fedavg": FedAvg,
    "fedlaavg": FedLaAvg,
    "mifa": Mifa,
    "fedvarp": FedVarp,
    "sgd": CentralSgd,
}

__all__ = ["ALGORITHMS", "Algorithm", "Context", "Step", "build_algorithm"]


def build_algorithm(ctx: Context) -> Algorithm:
    name = ctx.config.algorithm.name
    if name not in ALGORITHMS:
        raise ConfigError(f"algorithm.name: {name!r} is not implemented yet")
    return ALGORITHMS[name](ctx)
