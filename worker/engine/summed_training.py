"""Whether a run's clients train into their round's weighted sum (`Algorithm.summed`)
instead of into (K, d) deltas: the loop trains them so where this says, and the run's
estimate counts what that way holds (`resources/memory.py`)."""

from __future__ import annotations

from worker.engine.config import RunConfig
from worker.engine.registry import selected


def trains_into_sum(config: RunConfig) -> bool:
    """The algorithm's step is a sum known before training for its params
    (`Algorithm.trains_into_sum`), and no privacy mechanism clips each delta. A
    centralised round (`Plan.central`) still returns its one row."""
    entry, params = selected(config.algorithm, config.components.algorithms)
    return config.privacy.kind == "none" and entry.component.trains_into_sum(params)
