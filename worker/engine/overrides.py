"""Dotted-path edits of a config (`--set algorithm.name=mifa`, sweep grids)."""

from __future__ import annotations

import copy
import json
from typing import Any

from pydantic import ValidationError

from worker.engine.components import current
from worker.engine.config import RunConfig, run_config_for
from worker.engine.errors import ConfigError


def parse_value(text: str) -> Any:
    """JSON where it parses (numbers, booleans, null, lists, objects), else the raw
    string; NaN and Infinity are no JSON numbers, so they stay text."""
    try:
        return json.loads(text, parse_constant=_no_constant)
    except ValueError:  # JSONDecodeError is one
        return text


def _no_constant(name: str) -> Any:
    raise ValueError(name)


def set_path(config: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of `config` with the dotted `path` set to `value`: a missing or null
    section on the way is created; any other value on the way is an error.
    `tests/cases/dotted_paths.json` holds the rules, for this and `frontend/js/paths.js`."""
    out = copy.deepcopy(config)
    keys = path.split(".")
    node = out
    for i, key in enumerate(keys[:-1]):
        if node.get(key) is None:
            node[key] = {}
        if not isinstance(node[key], dict):
            raise ConfigError(f"{'.'.join(keys[: i + 1])}: is a value, not a section")
        node = node[key]
    node[keys[-1]] = value
    return out


def parse_assignment(text: str) -> tuple[str, Any]:
    """`dotted.key=value`: the key (no empty part) and the parsed value, both trimmed."""
    key, sep, value = text.partition("=")
    if not sep or "" in key.strip().split("."):
        raise ConfigError(f"{json.dumps(text, ensure_ascii=False)}: expected dotted.key=value")
    return key.strip(), parse_value(value.strip())


def apply_assignments(config: dict[str, Any], assignments: list[str]) -> dict[str, Any]:
    """A copy of `config` with the `dotted.key=value` assignments applied in order."""
    data = config
    for text in assignments:
        key, value = parse_assignment(text)
        data = set_path(data, key, value)
    return data


def format_validation_error(err: ValidationError) -> str:
    parts = []
    for e in err.errors():
        loc = ".".join(str(p) for p in e["loc"])
        msg = e["msg"].removeprefix("Value error, ")
        parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts)


def build_config(base: dict[str, Any], assignments: list[str] | None = None) -> RunConfig:
    """Validate `base` with the `key=value` assignments applied."""
    data = apply_assignments(base, assignments or [])
    try:
        return run_config_for(current()).model_validate(data)
    except ValidationError as err:
        raise ConfigError(format_validation_error(err)) from None
