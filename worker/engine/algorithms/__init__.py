"""Server algorithms, one file each, declared by their `@algorithm` decorator.

`components.builtin()` imports every module of this package (discovery, no list to
edit), so adding a built-in algorithm touches its own file only.
"""

from __future__ import annotations

from worker.engine.algorithms.base import (
    Algorithm,
    AlgorithmContext,
    Footprint,
    Plan,
    Step,
    Summed,
)

__all__ = ["Algorithm", "AlgorithmContext", "Footprint", "Plan", "Step", "Summed"]
