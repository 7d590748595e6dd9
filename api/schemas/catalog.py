"""Presets: named paper setups."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class PresetPublic(BaseModel):
    name: str
    description: str
    compare: list[str]
    seeds: list[int]
    variants: dict[str, list[str]]


class PresetDetail(PresetPublic):
    config: dict[str, Any]
