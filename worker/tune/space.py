"""A tune's search space: `key=log:LOW:HIGH`, `key=linear:LOW:HIGH`, `key=int:LOW:HIGH`
or `key=choice:A,B,...` for any numeric or categorical config key."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import optuna

from worker.engine import ConfigError

Kind = Literal["log", "linear", "int", "choice"]
KINDS: tuple[Kind, ...] = ("log", "linear", "int", "choice")


@dataclass(frozen=True)
class Dimension:
    """One searched key: a range (`low` ≤ `high`, `low` > 0 on a log scale) or `choices`."""

    key: str
    kind: Kind
    low: float = 0.0
    high: float = 0.0
    choices: tuple[Any, ...] = ()

    def suggest(self, trial: optuna.Trial) -> Any:
        if self.kind == "choice":
            return trial.suggest_categorical(self.key, list(self.choices))
        if self.kind == "int":
            return trial.suggest_int(self.key, int(self.low), int(self.high))
        return trial.suggest_float(self.key, self.low, self.high, log=self.kind == "log")

    def grid(self, points: int) -> list[Any]:
        """The values a grid search tries: the choices, every integer (at most `points`,
        evenly spread), or `points` values spaced evenly (geometrically on a log scale)."""
        if self.kind == "choice":
            return list(self.choices)
        if self.kind == "int":
            span = int(self.high) - int(self.low) + 1
            spread = np.linspace(self.low, self.high, min(span, points))
            return sorted({int(v) for v in np.rint(spread)})
        spaced = np.geomspace if self.kind == "log" else np.linspace
        return [float(v) for v in spaced(self.low, self.high, points)]

    def describe(self) -> str:
        """As the caption states it: "client.lr log [0.001, 1]"."""
        if self.kind == "choice":
            return f"{self.key} ∈ {{{', '.join(str(c) for c in self.choices)}}}"
        return f"{self.key} {self.kind} [{self.low:g}, {self.high:g}]"


def parse_dimension(text: str) -> Dimension:
    """`key=kind:...`; ConfigError naming the key for a bad kind, bound or range."""
    key, eq, spec = text.partition("=")
    key = key.strip()
    if not eq or not key:
        raise ConfigError(f"--param {text!r}: expected KEY=KIND:..., e.g. client.lr=log:1e-3:1")
    kind, _, rest = spec.partition(":")
    if kind not in KINDS:
        raise ConfigError(f"{key}: unknown range kind {kind!r} (known: {', '.join(KINDS)})")
    if kind == "choice":
        choices = tuple(_value(v) for v in rest.split(",") if v.strip())
        if not choices:
            raise ConfigError(f"{key}: choice needs at least one value")
        return Dimension(key, "choice", choices=choices)
    bounds = rest.split(":")
    if len(bounds) != 2:
        raise ConfigError(f"{key}: expected {kind}:LOW:HIGH, got {spec!r}")
    low, high = (_number(key, b, kind == "int") for b in bounds)
    if not low < high:
        raise ConfigError(f"{key}: empty or inverted range [{low:g}, {high:g}]")
    if kind == "log" and low <= 0:
        raise ConfigError(f"{key}: a log range needs LOW > 0, got {low:g}")
    return Dimension(key, kind, low, high)


def _number(key: str, text: str, integral: bool) -> float:
    try:
        value = int(text) if integral else float(text)
    except ValueError:
        kind = "an integer" if integral else "a number"
        raise ConfigError(f"{key}: {text!r} is not {kind}") from None
    if not math.isfinite(value):
        raise ConfigError(f"{key}: {text!r} is not finite")
    return float(value)


def _value(text: str) -> Any:
    """A choice as JSON where it parses (numbers, true/false), else the bare string."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text.strip()


def assignments(params: dict[str, Any]) -> list[str]:
    """A trial's values as `--set` assignments (JSON values)."""
    return [f"{key}={json.dumps(value)}" for key, value in params.items()]
