"""Fields that moved, and the one place a config that still holds them is brought up to
date.

The built-in datasets', partitions' and models' own parameters were fields of the `data`
and `model` sections (`data.dimension`, `data.dirichlet_alpha`, `model.hidden`), while a
plug-in's are its sub-object (`data.<name>.<param>`). They are sub-objects now, for
built-ins and plug-ins alike. A
config stored before, or an assignment by the old path (`--set data.dimension=20`),
still validates: `moved` writes each old field's value to where it lives now (over a
value there: the old path was given explicitly) and drops the old field. A null value,
which meant the parameter's default, is dropped. Errors name the new paths.
"""

from __future__ import annotations

import copy
from typing import Any

# old path → the paths it lives at now (a field two datasets share goes to both)
MOVED: dict[str, tuple[str, ...]] = {
    "data.dimension": ("data.synthetic_clustered.dimension",),
    "data.train_per_client": (
        "data.synthetic_clustered.train_per_client",
        "data.mean_estimation.train_per_client",
    ),
    "data.test_per_client": (
        "data.synthetic_clustered.test_per_client",
        "data.mean_estimation.test_per_client",
    ),
    "data.means": ("data.mean_estimation.means",),
    "data.sigma": ("data.mean_estimation.sigma",),
    "data.classes_per_client": ("data.by_class.classes_per_client",),
    "data.sizes": ("data.by_class.sizes",),
    "data.size_std": ("data.by_class.size_std",),
    "data.dirichlet_alpha": ("data.dirichlet.alpha",),
    "data.n_clusters": (
        "data.clusters.n_clusters",
        "data.label_swap.n_clusters",
        "data.incongruent.n_clusters",
    ),
    "data.swap_pairs": ("data.label_swap.swap_pairs", "data.incongruent.swap_pairs"),
    "data.population_g": ("data.incongruent.population_g",),
    "data.population_nu": ("data.incongruent.population_nu",),
    "model.hidden": ("model.mlp.hidden",),
    "model.init": ("model.scalar.init",),
}


def moved(data: Any) -> Any:
    """`data` (a config as given) with the fields of `MOVED` where they live now; a copy
    where any moved, `data` itself where none did (or it is not a mapping)."""
    if not isinstance(data, dict) or not any(_holds(data, old) for old in MOVED):
        return data
    out = copy.copy(data)
    for old, new in MOVED.items():
        section, _, key = old.partition(".")
        if not _holds(out, old):
            continue
        part = dict(out[section])
        value = part.pop(key)
        out[section] = part
        for path in new if value is not None else ():
            _, name, field = path.split(".")
            own = part.get(name)
            part[name] = {**(own if isinstance(own, dict) else {}), field: value}
    return out


def _holds(data: dict[str, Any], path: str) -> bool:
    section, _, key = path.partition(".")
    return isinstance(data.get(section), dict) and key in data[section]


def moved_section(section: str, data: Any) -> Any:
    """`data`, the config's section `section` as given alone, with its moved fields
    where they live now."""
    if not isinstance(data, dict):
        return data
    return moved({section: data})[section]
