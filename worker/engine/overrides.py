"""Dotted-path edits of a config (`--set algorithm.name=mifa`, sweep grids)."""

from __future__ import annotations

import copy
import json
from typing import Any

from pydantic import ValidationError

from worker.engine.config import RunConfig
from worker.engine.errors import ConfigError


def parse_value(text: str) -> Any:
    """JSON where it parses (numbers, booleans, null, lists), else the raw string."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def set_path(config: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of `config` with the dotted `path` set to `value`."""
    out = copy.deepcopy(config)
    keys = path.split(".")
    node = out
    for i, key in enumerate(keys[:-1]):
        child = node.setdefault(key, {})
        if not isinstance(child, dict):
            raise ConfigError(f"{'.'.join(keys[: i + 1])}: is a value, not a section")
        node = child
    node[keys[-1]] = value
    return out


def parse_assignment(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"--set {text!r}: expected dotted.key=value")
    return key.strip(), parse_value(value.strip())


def format_validation_error(err: ValidationError) -> str:
    parts = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"])
        msg = e["msg"].removeprefix("Value error, ")
        parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts)


def build_config(base: dict[str, Any], assignments: list[str] | None = None) -> RunConfig:
    """Validate `base` with the `key=value` assignments applied."""
    data = base
    for text in assignments or []:
        key, value = parse_assignment(text)
        data = set_path(data, key, value)
    try:
        return RunConfig.model_validate(data)
    except ValidationError as err:
        raise ConfigError(format_validation_error(err)) from None
