"""What can be run: the run-config JSON Schema and the paper presets."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException

from api.schemas.catalog import PresetDetail, PresetPublic
from api.schemas.errors import NOT_FOUND
from worker.engine import RunConfig
from worker.engine.presets import PRESETS, Preset

router = APIRouter(prefix="/api", tags=["catalog"])


def public(preset: Preset) -> dict[str, Any]:
    return {
        "name": preset.name,
        "description": preset.description,
        "compare": list(preset.compare),
        "seeds": list(preset.seeds),
        "variants": preset.variants,
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
