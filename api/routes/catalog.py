"""What can be run and measured: the run-config JSON Schema, the paper presets and the
metric catalogue."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException

from api.schemas.catalog import MetricSpecPublic, PresetDetail, PresetPublic
from api.schemas.errors import NOT_FOUND
from worker.engine import RunConfig, metrics
from worker.engine.presets import PRESETS, Preset

router = APIRouter(prefix="/api", tags=["catalog"])


def public(preset: Preset) -> dict[str, Any]:
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
        "needs": preset.needs(),
        "references": {
            metric: [{"value": r.value, "label": r.label} for r in lines]
            for metric, lines in preset.references.items()
        },
    }


@router.get("/schema/run-config")
def run_config_schema() -> dict[str, Any]:
    return RunConfig.model_json_schema()


@router.get("/presets")
def list_presets() -> list[PresetPublic]:
    return [PresetPublic(**public(p)) for p in PRESETS.values()]


@router.get("/presets/{name}", responses=NOT_FOUND)
def read_preset(name: str) -> PresetDetail:
    preset = PRESETS.get(name)
    if preset is None:
        raise HTTPException(404, f"preset {name!r} not found")
    config = preset.run_config().model_dump(mode="json")
    return PresetDetail(**public(preset), config=config)


@router.get("/metrics/catalog")
def metric_catalog() -> list[MetricSpecPublic]:
    """Every metric, in catalogue order: name, label, unit, chart panel, better direction,
    and membership of the summary, the comparison tables and the rankings."""
    return [MetricSpecPublic(**spec.to_json()) for spec in metrics.catalogue()]
