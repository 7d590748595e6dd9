"""What can be run and measured: the run-config JSON Schema, the paper presets, the
datasets on this server, the metric catalogue and its panels, and the run statuses."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query
from fastapi.exceptions import RequestValidationError

from api.deps import SettingsDep
from api.schemas.catalog import (
    ChoicePublic,
    DatasetStatusPublic,
    MetaPublic,
    MetricSpecPublic,
    PanelPublic,
    PresetDetail,
    PresetPublic,
    StatusPublic,
    TimelineStatePublic,
    XAxisPublic,
)
from api.schemas.errors import NOT_FOUND
from api.storable import NO_NUL
from db import status
from db.timeline import STATE_COLOURS
from worker.data_root import DEFAULT_ROOT, data_status
from worker.engine import MAX_PATH_CHARS, ConfigError, current, metrics, run_config_for
from worker.presets import PRESETS, Preset
from worker.results.curves import X_AXES
from worker.results.figures import BAND_CHOICES, FIGURE_CHOICES
from worker.results.grouping import GROUP_BY_CHOICES
from worker.results.stats import DEFAULT_ALPHA
from worker.results.table import FILE_CHOICES

router = APIRouter(prefix="/api", tags=["catalog"])


def public(preset: Preset, download_allowed: bool) -> dict[str, Any]:
    return {
        "name": preset.name,
        "description": preset.description,
        "compare": preset.method_names,
        "methods": [
            {"algorithm": m.algorithm, "set": m.set, "label": m.name} for m in preset.compare
        ],
        "seeds": list(preset.seeds),
        "variants": preset.variants,
        "paper": preset.paper,
        "published": preset.published,
        "published_text": preset.published_text(),
        "source": preset.source,
        "differs": preset.differs,
        "needs": preset.needs(download_allowed),
        "headline": list(preset.headline),
        "references": {
            metric: [{"value": r.value, "label": r.label} for r in lines]
            for metric, lines in preset.references.items()
        },
    }


@router.get("/schema/run-config")
def run_config_schema() -> dict[str, Any]:
    return run_config_for(current()).model_json_schema()


@router.get("/presets")
def list_presets(settings: SettingsDep) -> list[PresetPublic]:
    return [PresetPublic(**public(p, settings.allow_download)) for p in PRESETS.values()]


@router.get("/presets/{name}", responses=NOT_FOUND)
def read_preset(name: str, settings: SettingsDep) -> PresetDetail:
    preset = PRESETS.get(name)
    if preset is None:
        raise HTTPException(404, f"preset {name!r} not found")
    config = preset.run_config().model_dump(mode="json")
    return PresetDetail(**public(preset, settings.allow_download), config=config)


@router.get("/datasets/{name}", responses=NOT_FOUND)
def read_dataset(
    name: str,
    settings: SettingsDep,
    root: Annotated[
        str, Query(pattern=NO_NUL, max_length=MAX_PATH_CHARS, description="`data.root` of the run.")
    ] = DEFAULT_ROOT,
) -> DatasetStatusPublic:
    """Whether the dataset's files are on this server, where they must go, and what to
    do where they are not (only what this server accepts)."""
    if name not in current().datasets:
        raise HTTPException(404, f"dataset {name!r} not found")
    try:
        status = data_status(name, root, settings)
    except ConfigError as err:
        msg = str(err).removeprefix("data.root: ")
        raise RequestValidationError(
            [{"loc": ["query", "root"], "msg": msg, "type": "value_error"}]
        ) from None
    return DatasetStatusPublic(**vars(status), present=status.present)


@router.get("/metrics/catalog")
def metric_catalog() -> list[MetricSpecPublic]:
    """Every metric, in catalogue order: name, label, unit, chart panel, better direction,
    and membership of the summary, the comparison tables and the rankings."""
    return [MetricSpecPublic(**spec.to_json()) for spec in metrics.catalogue()]


@router.get("/metrics/panels")
def metric_panels() -> list[PanelPublic]:
    """The run page's charts in display order: each panel's title and y axis; a round
    metric names its panel (`panel` in `/api/metrics/catalog`)."""
    return [PanelPublic(**panel.to_json()) for panel in metrics.panels()]


@router.get("/meta")
def meta() -> MetaPublic:
    """What the pages read once, each defined here and spelled nowhere in the browser: the
    run statuses with their flags (active, final, resumable), in lifecycle order; the x
    axes and their address words; the default α; the groupings, bands and file formats a
    comparison offers; the client timeline's states and colours; each dataset's first
    metric."""
    return MetaPublic(
        statuses=[StatusPublic(**s) for s in status.table()],
        x_axes=[XAxisPublic(**asdict(a)) for a in X_AXES],
        alpha=DEFAULT_ALPHA,
        group_by=[ChoicePublic(**asdict(c)) for c in GROUP_BY_CHOICES],
        bands=[ChoicePublic(**asdict(c)) for c in BAND_CHOICES],
        table_formats=[ChoicePublic(**asdict(c)) for c in FILE_CHOICES],
        figure_formats=[ChoicePublic(**asdict(c)) for c in FIGURE_CHOICES],
        timeline_states=[TimelineStatePublic(name=n, colour=c) for n, c in STATE_COLOURS],
        default_metrics={e.name: e.facts.default_metric for e in current().datasets},
    )
