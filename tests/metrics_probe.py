"""Round metrics added as a plug-in adds them: an algorithm that declares them, taken
into the installed components for a block."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from worker.engine.components import Components, installed, using
from worker.engine.metrics import MetricSpec
from worker.engine.registry import ALGORITHM, declare


class MetricsProbe:
    """An algorithm's declaration needs no more than its metric specs (it never runs)."""

    metric_specs: tuple[MetricSpec, ...] = ()


@contextmanager
def metrics_added(*specs: MetricSpec) -> Iterator[Components]:
    """The installed components and an algorithm `metrics_probe` declaring `specs`,
    installed for the block."""
    probe = type("Probe", (MetricsProbe,), {"metric_specs": specs})
    with using(installed().include(declare(ALGORITHM, "metrics_probe", probe))) as c:
        yield c
