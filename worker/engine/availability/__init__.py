"""Availability models: `build_availability(config, data, seed)`."""

from __future__ import annotations

from worker.engine.availability.base import Always, Availability
from worker.engine.availability.bernoulli import Bernoulli, bernoulli_probabilities
from worker.engine.availability.diurnal import Diurnal, diurnal_from_config
from worker.engine.availability.markov import Markov, cafed_population
from worker.engine.availability.trace import Trace, parse_trace
from worker.engine.config import AvailabilityConfig
from worker.engine.data.federated import FederatedData
from worker.engine.errors import ConfigError

__all__ = [
    "Always",
    "Availability",
    "Bernoulli",
    "Diurnal",
    "Markov",
    "Trace",
    "build_availability",
]


def build_availability(cfg: AvailabilityConfig, data: FederatedData, seed: int) -> Availability:
    n = data.n_clients
    if cfg.kind == "always":
        return Always(n)
    if cfg.kind == "bernoulli":
        p = bernoulli_probabilities(cfg.bernoulli, data.client_class, data.n_classes, seed)
        return Bernoulli(p, seed)
    if cfg.kind == "diurnal":
        return diurnal_from_config(cfg.diurnal, data.client_class, data.n_classes)
    if cfg.kind == "markov":
        pi, lam = cafed_population(cfg.markov, n)
        return Markov(pi, lam, seed)
    if cfg.kind == "trace":
        return Trace(parse_trace(cfg.trace.csv), n)
    raise ConfigError(f"availability.kind: {cfg.kind!r} is not available yet")
