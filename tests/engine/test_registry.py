"""Registration: what a component declares, and the errors that name its file:line."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest
import torch
from pydantic import BaseModel, Field
from torch import Tensor

from worker.engine import ConfigError, build_config, metrics, registry
from worker.engine.algorithms.base import Algorithm, Plan, Step
from worker.engine.algorithms.memory import MEMORY_FILLED
from worker.engine.config import build_run_config
from worker.engine.masks import Available
from worker.engine.metrics import MetricSpec
from worker.engine.params import Params
from worker.engine.registry import ALGORITHMS, SCHEDULES, RegistrationError, algorithm, selected

HERE = __file__


@pytest.fixture(autouse=True)
def restore_registries() -> Iterator[None]:
    before = registry.snapshot()
    yield
    registry.rollback(before)


class Noop(Algorithm):
    def select(self, t: int, w: Tensor, available: Available, gen: torch.Generator) -> Plan:
        return Plan(available.ids)

    def aggregate(self, t: int, w: Tensor, plan: Plan, deltas: Tensor, lr: float) -> Step:
        return Step(None, torch.zeros(self.facts.n))


def line_below() -> int:
    """The line after the caller's: where the decorator under test sits."""
    return sys._getframe(1).f_lineno + 1


def test_a_duplicate_name_names_both_registrations() -> None:
    with pytest.raises(RegistrationError) as err:
        line = line_below()
        algorithm("fedavg")(Noop)

    message = str(err.value)
    assert message.startswith(f"{HERE}:{line}: algorithm 'fedavg': ")
    assert "already registered by " in message and "algorithms/fedavg.py:" in message


def test_a_params_model_must_be_params_with_defaults() -> None:
    class Plain(BaseModel):
        x: float = 1.0

    class Required(Params):
        x: float = Field(description="no default")

    with pytest.raises(RegistrationError, match=r"params must be a subclass of Params"):
        algorithm("plain", params=Plain)(Noop)  # type: ignore[arg-type]
    with pytest.raises(RegistrationError) as err:
        line = line_below()
        algorithm("required", params=Required)(Noop)

    assert str(err.value) == (
        f"{HERE}:{line}: algorithm 'required': params field 'x' has no default "
        "(every parameter needs one)"
    )
    assert "plain" not in ALGORITHMS and "required" not in ALGORITHMS


def test_a_metric_already_in_the_catalogue_is_refused_all_or_nothing() -> None:
    own = MetricSpec("clash_own", "own", panel="algorithm")
    taken = MetricSpec("test_acc", "mine", panel="algorithm")

    class Clashing(Noop):
        metrics = (own, taken)

    with pytest.raises(RegistrationError) as err:
        line = line_below()
        algorithm("clashing")(Clashing)

    assert str(err.value).startswith(f"{HERE}:{line}: algorithm 'clashing': metric 'test_acc'")
    assert "clashing" not in ALGORITHMS
    assert "clash_own" not in metrics.by_name()


def test_a_metric_name_must_fit_the_stored_series() -> None:
    class Long(Noop):
        metrics = (MetricSpec("m" * 65, "too long", panel="algorithm"),)

    with pytest.raises(RegistrationError, match=r"at most 64 characters"):
        algorithm("long")(Long)


def test_names_are_config_keys_and_not_the_sections_own_fields() -> None:
    with pytest.raises(RegistrationError, match=r"Python identifier"):
        algorithm("my-algo")(Noop)
    with pytest.raises(RegistrationError, match=r"a field of algorithm"):
        algorithm("participation", params=Damping)(Noop)  # algorithm.participation: both
    # Without params there is no sub-object to clash with: eval.schedule = every
    assert SCHEDULES.get("every").params is None


def test_the_memory_methods_share_one_metric_and_algorithms_add_theirs() -> None:
    catalogue = metrics.by_name()
    owners = [e.name for e in ALGORITHMS if MEMORY_FILLED in e.component.metrics]

    assert sorted(owners) == ["fedar", "fedlaavg", "fedvarp", "mifa"]
    assert [s.name for s in metrics.catalogue()].count("memory_filled") == 1
    for name in ("cafed_excluded", "fedar_n_t", "fedar_psi_mean", "memory_filled"):
        assert catalogue[name].panel == "algorithm"
        assert catalogue[name].kind == "round"


def test_removing_an_entry_removes_the_metrics_it_added() -> None:
    class Counting(Noop):
        metrics = (MetricSpec("counting_calls", "calls", panel="algorithm"),)

    algorithm("counting")(Counting)
    assert "counting_calls" in metrics.by_name()

    ALGORITHMS.remove("counting")

    assert "counting_calls" not in metrics.by_name()


class Damping(Params):
    damping: float = Field(0.5, gt=0, le=1, description="Share of the step applied.")

    def check_run(self, run: Any) -> None:
        if self.damping < 1 and run.k > 4:
            raise ValueError("algorithm.damped.damping: below 1 only with K <= 4")


def test_a_registered_component_is_in_a_rebuilt_run_config() -> None:
    algorithm("damped", params=Damping)(Noop)
    run_config = build_run_config()

    schema = run_config.model_json_schema()
    section = schema["$defs"]["AlgorithmConfig"]["properties"]
    config = run_config.model_validate(
        {"algorithm": {"name": "damped", "participation": 4, "damped": {"damping": 0.8}}}
    )

    assert "damped" in section["name"]["enum"]
    assert section["damped"]["$ref"] == "#/$defs/Damping"
    assert selected(config.algorithm, ALGORITHMS)[1].damping == 0.8
    with pytest.raises(ValueError, match=r"algorithm\.damped\.damping"):
        run_config.model_validate({"algorithm": {"name": "damped", "damped": {"damping": 2}}})
    with pytest.raises(ValueError, match=r"algorithm\.damped\.damping: below 1 only with K <= 4"):
        run_config.model_validate({"algorithm": {"name": "damped", "participation": 5}})


def test_check_run_of_a_built_in_names_its_field() -> None:
    with pytest.raises(ConfigError, match=r"^client\.unit: scaffold"):
        build_config({}, ["algorithm.name=scaffold", "client.unit=epochs"])
    with pytest.raises(ConfigError, match=r"^availability\.trace\.csv: a trace needs"):
        build_config({}, ["availability.kind=trace"])
