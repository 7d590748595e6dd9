"""What a preset is: a config, its comparison set of `Method`s, the figures its paper
publishes and the reference lines of its charts."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from worker.engine import LEAF_DATASETS, RunConfig, build_config, check_dataset
from worker.engine.data import leaf
from worker.engine.data.vision import EXPECTED_FILES, needs, require_files
from worker.reproduction.figures import LABELS


@dataclass(frozen=True)
class Method:
    """One entry of a comparison set: `algorithm` with the dotted settings `set` (the
    values its paper's code used for it), on top of the preset's config; `label` names
    it where a set holds one algorithm twice (`name`: the label, or the algorithm)."""

    algorithm: str
    set: dict[str, Any] = field(default_factory=dict)
    label: str = ""

    @property
    def name(self) -> str:
        return self.label or self.algorithm

    def assignments(self) -> dict[str, Any]:
        """Every dotted key this method sets, its algorithm included."""
        return {"algorithm.name": self.algorithm, **self.set}

    def as_overrides(self) -> list[str]:
        """The assignments as `--set key=value` strings (JSON values)."""
        return [f"{k}={json.dumps(v)}" for k, v in self.assignments().items()]


@dataclass(frozen=True)
class Reference:
    """A value a metric's chart marks with a dashed line: a limit the paper derives, an
    optimum."""

    value: float
    label: str


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    config: dict[str, Any]
    compare: tuple[Method, ...]
    seeds: tuple[int, ...] = (0,)
    variants: dict[str, list[str]] = field(default_factory=dict)
    paper: str = ""  # the publication the preset reproduces
    # figures the paper publishes: algorithm -> figure (`worker.reproduction.figures`) -> %
    published: dict[str, dict[str, float]] = field(default_factory=dict)
    # where `published` is printed (a repository's file, a paper's table) and how it was
    # measured, where that is not `paper` itself
    source: str = ""
    # what of the source's setup the preset's config cannot express ("" where nothing)
    differs: str = ""
    # round metric -> the values its chart marks; they follow from the preset's data and
    # availability, so a run with both unchanged gets them (`references_for`)
    references: dict[str, tuple[Reference, ...]] = field(default_factory=dict)
    # the summary values its comparison is about: the first, default columns of its tables
    headline: tuple[str, ...] = ()

    def run_config(self, assignments: list[str] | None = None) -> RunConfig:
        return build_config({"name": self.name, **self.config}, assignments)

    def published_text(self) -> str:
        """The published figures in a line ("" where none): each method's figures, in %."""
        return "; ".join(
            f"{algorithm} " + ", ".join(f"{LABELS[f]} {v} %" for f, v in figures.items())
            for algorithm, figures in self.published.items()
        )

    @property
    def method_names(self) -> list[str]:
        return [m.name for m in self.compare]

    def needs(self, download_allowed: bool = True) -> str | None:
        """What data the preset needs and where it must lie, for a dataset read from
        `data.root` (None: the data is generated or bundled); a download is named only
        where one is allowed."""
        data = self.run_config().data
        if data.dataset in LEAF_DATASETS:
            return leaf.needs(data.dataset, data.root)
        if data.dataset not in EXPECTED_FILES:
            return None
        return needs(data.dataset, data.root, download_allowed)

    def check_data(self, assignments: list[str] | None = None) -> None:
        """Raise DatasetMissing (naming files and place) before any run would."""
        data = self.run_config(assignments).data
        if data.dataset in EXPECTED_FILES:
            require_files(data.dataset, data.root, data.download)
        check_dataset(data)


def preset(
    name: str,
    description: str,
    config: dict[str, Any],
    compare: tuple[str | Method, ...],
    seeds: tuple[int, ...] = (0,),
    variants: dict[str, list[str]] | None = None,
    paper: str = "",
    published: dict[str, dict[str, float]] | None = None,
    references: dict[str, tuple[Reference, ...]] | None = None,
    headline: tuple[str, ...] = (),
    source: str = "",
    differs: str = "",
) -> Preset:
    methods = tuple(m if isinstance(m, Method) else Method(m) for m in compare)
    return Preset(
        name,
        description,
        config,
        methods,
        seeds,
        variants or {},
        paper,
        published or {},
        source,
        differs,
        references or {},
        headline,
    )
