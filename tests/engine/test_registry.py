"""Declaration and registration: what a component declares, the errors that name its
file:line, and the components objects that take declarations in."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
import torch
from pydantic import BaseModel, Field
from torch import Tensor

from worker.engine import (
    ConfigError,
    ListSink,
    build_config,
    metrics,
    registry,
    run_config_for,
    simulate,
)
from worker.engine.algorithms.base import Algorithm, Plan, Step
from worker.engine.algorithms.memory import MEMORY_FILLED
from worker.engine.components import Components, builtin, current, using
from worker.engine.config import RunConfig
from worker.engine.masks import Available
from worker.engine.metrics import MetricSpec
from worker.engine.params import Params
from worker.engine.registry import (
    ALGORITHM,
    AVAILABILITY,
    DATASET,
    MODEL,
    PARTITION,
    SCHEDULE,
    SYSTEM,
    Declaration,
    Kind,
    RegistrationError,
    algorithm,
    selected,
)
from worker.engine.sections import ModelSection

HERE = __file__


def last() -> Declaration:
    """The declaration made last (by the decorator the test just applied)."""
    return registry.declared()[-1]


def builtin_declaration(kind: Kind, name: str) -> Declaration:
    (found,) = [
        d
        for d in registry.declared()
        if d.kind is kind and d.name == name and d.module.startswith("worker.engine.")
    ]
    return found


class Noop(Algorithm):
    def select(self, t: int, w: Tensor, available: Available, gen: torch.Generator) -> Plan:
        return Plan(available.ids)

    def aggregate(self, t: int, w: Tensor, plan: Plan, deltas: Tensor, lr: float) -> Step:
        return Step(None, torch.zeros(self.facts.n))


def line_below() -> int:
    """The line after the caller's: where the decorator under test sits."""
    return sys._getframe(1).f_lineno + 1


def test_a_duplicate_name_names_both_registrations() -> None:
    line = line_below()
    algorithm("fedavg")(Noop)
    duplicate = last()
    with pytest.raises(RegistrationError) as err:
        builtin().add(duplicate)

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
    assert not [d for d in registry.declared() if d.name in ("plain", "required")]


def test_a_metric_already_in_the_catalogue_is_refused_all_or_nothing() -> None:
    own = MetricSpec("clash_own", "own", panel="algorithm")
    taken = MetricSpec("test_acc", "mine", panel="algorithm")

    class Clashing(Noop):
        metric_specs = (own, taken)

    with pytest.raises(RegistrationError) as err:
        line = line_below()
        algorithm("clashing")(Clashing)

    assert str(err.value).startswith(f"{HERE}:{line}: algorithm 'clashing': metric 'test_acc'")
    assert not [d for d in registry.declared() if d.name == "clashing"]
    assert "clash_own" not in metrics.by_name()


def test_a_metric_name_must_fit_the_stored_series() -> None:
    class Long(Noop):
        metric_specs = (MetricSpec("m" * 65, "too long", panel="algorithm"),)

    with pytest.raises(RegistrationError, match=r"at most 64 characters"):
        algorithm("long")(Long)


def test_names_are_config_keys_and_not_the_sections_own_fields() -> None:
    with pytest.raises(RegistrationError, match=r"Python identifier"):
        algorithm("my-algo")(Noop)
    with pytest.raises(RegistrationError, match=r"a field of algorithm"):
        algorithm("participation", params=Damping)(Noop)  # algorithm.participation: both
    # Without params there is no sub-object to clash with: eval.schedule = every
    assert current().schedules.get("every").params is None


def test_the_memory_methods_share_one_metric_and_algorithms_add_theirs() -> None:
    catalogue = metrics.by_name()
    owners = [e.name for e in current().algorithms if MEMORY_FILLED in e.component.metric_specs]

    assert sorted(owners) == ["fedar", "fedlaavg", "fedvarp", "mifa"]
    assert [s.name for s in metrics.catalogue()].count("memory_filled") == 1
    for name in ("cafed_excluded", "fedar_n_t", "fedar_psi_mean", "memory_filled"):
        assert catalogue[name].panel == "algorithm"
        assert catalogue[name].kind == "round"


def test_an_algorithms_metrics_are_in_the_catalogue_while_its_components_are_installed() -> None:
    class Counting(Noop):
        metric_specs = (MetricSpec("counting_calls", "calls", panel="algorithm"),)

    algorithm("counting")(Counting)
    assert "counting_calls" not in metrics.by_name()  # declared, not taken in

    with using(builtin().include(Counting)) as parts:
        assert "counting_calls" in metrics.by_name()
        assert parts.algorithms.get("counting").added_metrics == ("counting_calls",)

    assert "counting_calls" not in metrics.by_name()

    class Recounting(Noop):  # another metric under the same name
        metric_specs = (MetricSpec("counting_calls", "calls again", panel="algorithm"),)

    algorithm("recounting")(Recounting)
    with pytest.raises(RegistrationError, match=r"metric 'counting_calls' is already"):
        builtin().include(Counting, Recounting)


class Damping(Params):
    damping: float = Field(0.5, gt=0, le=1, description="Share of the step applied.")

    def check_run(self, run: Any) -> None:
        if self.damping < 1 and run.k > 4:
            raise ValueError("algorithm.damped.damping: below 1 only with K <= 4")


def test_a_registered_component_is_in_a_rebuilt_run_config() -> None:
    algorithm("damped", params=Damping)(Noop)
    damped = last()
    run_config = run_config_for(builtin().include(damped))

    schema = run_config.model_json_schema()
    section = schema["$defs"]["AlgorithmConfig"]["properties"]
    config = run_config.model_validate(
        {"algorithm": {"name": "damped", "participation": 4, "damped": {"damping": 0.8}}}
    )

    assert "damped" in section["name"]["enum"]
    assert section["damped"]["$ref"] == "#/$defs/Damping"
    assert selected(config.algorithm, config.components.algorithms)[1].damping == 0.8
    with pytest.raises(ValueError, match=r"algorithm\.damped\.damping"):
        run_config.model_validate({"algorithm": {"name": "damped", "damped": {"damping": 2}}})
    with pytest.raises(ValueError, match=r"algorithm\.damped\.damping: below 1 only with K <= 4"):
        run_config.model_validate({"algorithm": {"name": "damped", "participation": 5}})


def test_check_run_of_a_built_in_names_its_field() -> None:
    with pytest.raises(ConfigError, match=r"^client\.unit: scaffold"):
        build_config({}, ["algorithm.name=scaffold", "client.unit=epochs"])
    with pytest.raises(ConfigError, match=r"^availability\.trace\.csv: a trace needs"):
        build_config({}, ["availability.kind=trace"])


def test_components_of_exactly_the_ones_a_test_wants() -> None:
    parts = Components.of(
        *(
            builtin_declaration(kind, name)
            for kind, name in (
                (ALGORITHM, "fedavg"),
                (AVAILABILITY, "always"),
                (SYSTEM, "none"),
                (DATASET, "synthetic_clustered"),
                (PARTITION, "clusters"),
                (MODEL, "linear"),
                (SCHEDULE, "every"),
            )
        )
    )
    run_config = run_config_for(parts)
    config = run_config.model_validate(
        {"rounds": 2, "data": {"n_clients": 4}, "algorithm": {"participation": 2}}
    )
    sink = ListSink()

    simulate(config, sink)

    assert isinstance(config, RunConfig) and type(config).components is parts
    assert [r.round for r in sink.records] == [0, 1]
    schema = run_config.model_json_schema()["$defs"]
    assert schema["AlgorithmConfig"]["properties"]["name"]["enum"] == ["fedavg"]
    with pytest.raises(ValueError, match=r"algorithm\.name"):
        run_config.model_validate({"algorithm": {"name": "cafed"}})


def test_the_typed_class_validates_nothing_by_itself() -> None:
    """`RunConfig` is the class mypy sees and every config is an instance of; data is
    validated by the class built from components."""
    with pytest.raises(TypeError, match=r"config\.run_config_for\(current\(\)\)"):
        RunConfig.model_validate({})
    with pytest.raises(TypeError, match=r"config\.section_class\(current\(\), ModelSection\)"):
        ModelSection(name="linear")


def test_importing_the_entry_points_builds_nothing() -> None:
    """Importing the engine, the API app and the commands loads no plug-in, installs no
    components and builds no config class: their start-up does."""
    script = (
        "import sys, worker.engine.config, worker.engine.loop, api.main, fedwatch.cli.commands\n"
        "from worker.engine import components, metrics\n"
        "assert components._current == [], components._current\n"
        "assert 'fedau' not in sys.modules\n"
        "print(len(metrics._registered))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0"


def test_an_entry_says_whether_the_loop_runs_it_in_async_mode() -> None:
    components = current()
    assert sorted(e.name for e in components.algorithms if e.runs_async) == ["fedasync", "fedbuff"]
    assert not components.availability.get("markov").runs_async  # no other kind does
