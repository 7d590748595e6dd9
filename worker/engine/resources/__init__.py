"""What a run needs, estimated from its config alone: memory, itemised by the config
field that drives each part, and work in floating-point operations.

`estimate(config)` takes milliseconds and allocates none of the run's tensors: the
model is profiled on the `meta` device (`model_profile.py`). Every term bounds what it
stands for from above. Some are held throughout, others only in a phase (loading the
data, a round's local training, an evaluation); the peak counts the largest phase in
full, and of the others what the allocator may keep of their freed blocks for reuse
(`allocator.py`: at most its trim threshold). `bench/estimate.py` compares estimates
with the measured peaks of real runs.
"""

from __future__ import annotations

from worker.engine.config import RunConfig
from worker.engine.resources.memory import memory_terms
from worker.engine.resources.sizes import run_sizes
from worker.engine.resources.terms import Estimate, Term, format_bytes, format_flops, largest
from worker.engine.resources.work import work_terms

__all__ = ["Estimate", "Term", "estimate", "format_bytes", "format_flops", "largest"]


def estimate(config: RunConfig, *, held_rounds: int = 1, held_states: int = 1) -> Estimate:
    """Memory and work of `config`, with the sink keeping `held_rounds` records and
    `held_states` copies of a checkpoint at once."""
    run = run_sizes(config)
    memory = memory_terms(run, held_rounds, held_states)
    return Estimate(memory, work_terms(run), run.d, config.device == "cuda")
