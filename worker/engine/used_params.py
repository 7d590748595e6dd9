"""A stored config as its run used it: every section that selects a component
(`algorithm.name`, `availability.kind`, ...) keeps the sub-object of the component it
selected and drops those of the others, which the run never read (a FedAvg run's config
holds every registered algorithm's parameters, at their defaults or not)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from worker.engine.components import Components


def used_params(config: Mapping[str, Any], components: Components) -> dict[str, Any]:
    """`config` without the sub-objects of the components `components` registers that
    it did not select; anything else (an external run's own keys) as it is."""
    out = dict(config)
    for registry in components.registries:  # `data` selects twice: dataset, partition
        section = out.get(registry.section)
        if not isinstance(section, Mapping):
            continue
        chosen = section.get(registry.selector)
        if chosen == "auto" and section.get("dataset") in components.datasets:
            chosen = components.datasets.get(section["dataset"]).facts.auto  # stored before
        out[registry.section] = {
            k: v for k, v in section.items() if k == chosen or k not in registry
        }
    return out
