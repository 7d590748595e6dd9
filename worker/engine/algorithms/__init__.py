"""Server algorithms, one file each: `build_algorithm(ctx)` picks by `algorithm.name`."""

from __future__ import annotations

from worker.engine.algorithms.adafed import AdaFed
from worker.engine.algorithms.base import Algorithm, Context, Step
from worker.engine.algorithms.cafed import CaFed
from worker.engine.algorithms.f3ast import F3ast
from worker.engine.algorithms.fedadam import FedAdam
from worker.engine.algorithms.fedar import FedAr
from worker.engine.algorithms.fedavg import FedAvg
from worker.engine.algorithms.fedavg_is import FedAvgIs
from worker.engine.algorithms.fedlaavg import FedLaAvg
from worker.engine.algorithms.fedprox import FedProx
from worker.engine.algorithms.fedvarp import FedVarp
from worker.engine.algorithms.mifa import Mifa
from worker.engine.algorithms.scaffold import Scaffold
from worker.engine.algorithms.sgd import CentralSgd
from worker.engine.algorithms.unbiased import Unbiased
from worker.engine.errors import ConfigError

ALGORITHMS: dict[str, type[Algorithm]] = {
    "fedavg": FedAvg,
    "fedlaavg": FedLaAvg,
    "mifa": Mifa,
    "fedvarp": FedVarp,
    "sgd": CentralSgd,
    "fedavg_is": FedAvgIs,
    "fedar": FedAr,
    "cafed": CaFed,
    "unbiased": Unbiased,
    "adafed": AdaFed,
    "f3ast": F3ast,
    "scaffold": Scaffold,
    "fedadam": FedAdam,
    "fedprox": FedProx,
}

__all__ = ["ALGORITHMS", "Algorithm", "Context", "Step", "build_algorithm"]


def build_algorithm(ctx: Context) -> Algorithm:
    name = ctx.config.algorithm.name
    if name not in ALGORITHMS:
        raise ConfigError(f"algorithm.name: {name!r} is not implemented yet")
    return ALGORITHMS[name](ctx)
