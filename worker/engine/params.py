"""`Params`: the pydantic base of every component's parameters, and `RunShape`, what a
component may check its parameters against.

A component (algorithm, availability model, dataset, model) declares its parameters as
a `Params` subclass beside its code; every field has a default, so a run that does not
use the component never has to fill them in. `check_run` validates the parameters
against the rest of the run and raises `ValueError` with a message that starts with
the field's dotted path (`algorithm.fedau.cutoff: ...`).
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator

if TYPE_CHECKING:
    from worker.engine.facts import DatasetFacts


class Params(BaseModel):
    """Parameters of one component (or one section of the run config)."""

    # NaN and ±Infinity are no parameter values, and would not survive a JSON round trip.
    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    @field_validator("*", mode="before")
    @classmethod
    def _numbers_are_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        """true/false and strings are no values of a number field, and a number none of a
        switch (pydantic would take true as 1, "100" as 100, and 0 or "yes" as a
        boolean)."""
        name = info.field_name
        if name is None:
            return value
        annotation = cls.model_fields[name].annotation
        if isinstance(value, bool | str) and _numeric(annotation):
            raise ValueError(f"expected a number, not {_kind(value)}")
        if isinstance(value, list) and _numbers(annotation):
            # a string that is no number gets pydantic's error at its item
            other = next((v for v in value if isinstance(v, bool) or _numeral(v)), None)
            if other is not None:
                raise ValueError(f"expected numbers, not {_kind(other)}")
        if annotation is bool and not isinstance(value, bool):
            raise ValueError("expected true or false")
        return value

    def check_run(self, run: RunShape) -> None:
        """Raise ValueError(`<dotted.path>: <problem>`) if these parameters cannot run
        with the rest of `run`; called only for the components the run selects."""
        del run


def applies(field: str, *values: str) -> dict[str, Any]:
    """Schema extra of a field that belongs to some values of another (`x-applies`):
    the form shows it only while `field` holds one of `values`."""
    return {"x-applies": {field: list(values)}}


def _numeral(value: Any) -> bool:
    """A string that pydantic would take for a number ("5", "1e3")."""
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return isinstance(value, str)


def _kind(value: bool | str) -> str:
    return "true/false" if isinstance(value, bool) else "a string"


def _numeric(annotation: Any) -> bool:
    """Whether a field takes numbers and not booleans (int, float, optionally None)."""
    if get_origin(annotation) in (Union, types.UnionType):
        return any(_numeric(a) for a in get_args(annotation) if a is not type(None))
    return annotation in (int, float)


def _numbers(annotation: Any) -> bool:
    """Whether a field takes a list of numbers (optionally None)."""
    if get_origin(annotation) in (Union, types.UnionType):
        return any(_numbers(a) for a in get_args(annotation) if a is not type(None))
    return get_origin(annotation) is list and all(_numeric(a) for a in get_args(annotation))


@dataclass(frozen=True)
class RunShape:
    """The run as a component's `check_run` sees it: sizes and the selected names."""

    n_clients: int
    k: int  # clients that train per round
    rounds: int
    algorithm: str
    availability: str
    dataset: str
    data: DatasetFacts  # the selected dataset's facts
    partition: str
    model: str
    local_steps: int
    local_unit: str  # "steps" or "epochs"
    system: str = "none"  # `system.kind`
