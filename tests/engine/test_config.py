import inspect
import math
import re
from typing import Any

import pytest

from worker.engine import ConfigError, ListSink, build_config, run_config_for, simulate
from worker.engine.components import current
from worker.engine.sections import DataSection, ModelSection, RoundConfig, SystemSection
from worker.presets import PRESETS, get_preset


@pytest.mark.parametrize(
    ("assignment", "field"),
    [
        ("algorithm.participation=30", "algorithm.participation"),
        # a moved key still loads; the error names where it lives now
        ("data.classes_per_client=11", "data.by_class.classes_per_client"),
        ("data.by_class.classes_per_client=11", "data.by_class.classes_per_client"),
        ("algorithm.name=fedmagic", "algorithm.name"),
        ("client.lr=-0.1", "client.lr"),
        ("data.n_clients=0", "data.n_clients"),
        ("algorithm.participation=2.5", "algorithm.participation"),
        ("model.name=scalar", "model.name"),
    ],
)
def test_impossible_configs_name_the_field(assignment: str, field: str) -> None:
    base = {"data": {"dataset": "digits", "n_clients": 20, "partition": "by_class"}}

    with pytest.raises(ConfigError) as err:
        build_config(base, [assignment])

    assert field in str(err.value)


@pytest.mark.parametrize(
    ("section", "value"),
    [("algorithm", {"participation": math.inf}), ("client", {"lr": math.nan})],
)
def test_non_finite_numbers_are_rejected(section: str, value: dict[str, float]) -> None:
    # JSON has no NaN or Infinity: such a config would not survive being stored.
    base: dict[str, Any] = {"data": {"dataset": "mean_estimation", "n_clients": 2}, section: value}
    with pytest.raises(ConfigError, match=r"finite number"):
        build_config(base)
    with pytest.raises(ConfigError, match=r"finite number"):
        build_config({**base, section: {}, "data": {**base["data"], "means": [1, -math.inf]}})


@pytest.mark.parametrize("assignment", ["client.lr=Infinity", "client.lr=NaN"])
def test_an_assignment_gives_no_non_finite_number(assignment: str) -> None:
    # As in the browser (tests/cases/dotted_paths.json): NaN and Infinity are text there.
    with pytest.raises(ConfigError, match=r"client\.lr: expected a number, not a string"):
        build_config({"data": {"dataset": "mean_estimation", "n_clients": 2}}, [assignment])


def test_image_model_needs_image_data() -> None:
    with pytest.raises(ConfigError, match=r"model\.name"):
        build_config({"data": {"dataset": "synthetic_clustered"}}, ["model.name=cnn"])


def test_unknown_key_is_rejected() -> None:
    with pytest.raises(ConfigError, match=r"client\.lrr"):
        build_config({}, ["client.lrr=0.1"])


def test_set_parses_json_values_and_strings() -> None:
    cfg = build_config({}, ["rounds=7", "algorithm.name=mifa", "eval.target_acc=0.5"])

    assert (cfg.rounds, cfg.algorithm.name, cfg.eval.target_acc) == (7, "mifa", 0.5)


def test_participation_fraction_and_count() -> None:
    assert (
        build_config({"data": {"n_clients": 24}}, ["algorithm.participation=0.25"]).n_selected()
        == 6
    )
    assert (
        build_config({"data": {"n_clients": 24}}, ["algorithm.participation=4"]).n_selected() == 4
    )


def test_schema_exposes_every_algorithm_parameter() -> None:
    schema = run_config_for(current()).model_json_schema()

    assert set(schema["properties"]) == {
        "name",
        "seed",
        "rounds",
        "device",
        "backend",
        "data",
        "model",
        "availability",
        "system",
        "algorithm",
        "client",
        "round",
        "server",
        "eval",
        "privacy",
    }
    assert "wait_for_all" in schema["$defs"]["FedAvgParams"]["properties"]
    assert "init" in schema["$defs"]["MifaParams"]["properties"]


def test_config_round_trips_through_json() -> None:
    cfg = get_preset("example1").run_config()

    assert run_config_for(current()).model_validate_json(cfg.model_dump_json()) == cfg


IMAGE_PRESETS = [
    name for name, p in PRESETS.items() if p.config["data"]["dataset"] in ("mnist", "cifar10")
]


@pytest.mark.parametrize("name", IMAGE_PRESETS)
def test_image_presets_switch_to_offline_digits(name: str) -> None:
    preset = get_preset(name)
    # at most 200 clients: the digits' 1 437 samples leave none without data
    n_clients = min(200, preset.config["data"]["n_clients"])
    cfg = preset.run_config(["data.dataset=digits", f"data.n_clients={n_clients}", "rounds=2"])
    sink = ListSink()

    summary = simulate(cfg, sink)

    assert cfg.algorithm.name in [m.algorithm for m in preset.compare]
    assert [r.round for r in sink.records] == [0, 1]
    assert summary["final_test_acc"] is not None


def test_a_preset_serves_as_a_base_for_another_dataset() -> None:
    """example1's two `data.mean_estimation.means` belong to mean_estimation: with another
    dataset they are kept, unused, and do not count against its 100 clients."""
    config = get_preset("example1").run_config(
        ["data.dataset=digits", "data.n_clients=100", "model.name=linear"]
    )

    assert (config.data.dataset, config.data.n_clients) == ("digits", 100)
    with pytest.raises(
        ConfigError, match=r"data\.mean_estimation\.means: 2 values given for 3 clients"
    ):
        get_preset("example1").run_config(["data.n_clients=3"])


@pytest.mark.parametrize("field", ["eval.client_every", "eval.batch_size", "eval.target_acc"])
def test_true_and_false_are_no_numbers(field: str) -> None:
    """pydantic would read false as 0 (Schemathesis found eval.client_every=false accepted)."""
    with pytest.raises(ConfigError, match=rf"{re.escape(field)}: expected a number"):
        build_config({}, [f"{field}=false"])


def test_a_switch_takes_only_true_or_false() -> None:
    with pytest.raises(
        ConfigError, match=r"algorithm\.fedavg\.wait_for_all: expected true or false"
    ):
        build_config({"algorithm": {"fedavg": {"wait_for_all": 0}}})
    config = build_config({}, ["algorithm.fedavg.wait_for_all=true"])
    assert config.model_dump()["algorithm"]["fedavg"]["wait_for_all"] is True


def test_a_list_of_numbers_takes_no_true_or_false() -> None:
    with pytest.raises(ConfigError, match=r"data\.mean_estimation\.means: expected numbers"):
        build_config({"data": {"mean_estimation": {"means": [1.0, True]}}})


@pytest.mark.parametrize(
    ("config", "field"),
    [
        ({"rounds": "100"}, "rounds"),
        ({"seed": "1"}, "seed"),
        ({"client": {"lr": "0.1"}}, "client.lr"),
        ({"data": {"mean_estimation": {"means": [1.0, "-1"]}}}, "data.mean_estimation.means"),
    ],
)
def test_strings_are_no_numbers(config: dict[str, object], field: str) -> None:
    """pydantic would read "100" as 100: a config sent as JSON has numbers as numbers."""
    with pytest.raises(ConfigError, match=rf"{re.escape(field)}: expected (a number|numbers)"):
        build_config(config)


def test_a_pool_split_among_more_clients_than_samples_is_refused() -> None:
    """Known before any data is read: digits holds 1437 training samples (before, the run
    was accepted and failed at its start with this message)."""
    digits = ["data.dataset=digits", "model.name=linear"]
    with pytest.raises(
        ConfigError,
        match=r"^data\.n_clients: 100000 clients leave some without data \(1437 samples\)",
    ):
        get_preset("example1").run_config([*digits, "data.n_clients=100000"])
    with pytest.raises(ConfigError, match=r"^data\.n_clients: 101 clients .* \(100 samples\)"):
        get_preset("example1").run_config(
            [*digits, "data.n_clients=101", "data.max_train_samples=100"]
        )
    assert get_preset("example1").run_config([*digits, "data.n_clients=1437"]).data.n_clients


def section_schema(key: str) -> dict[str, Any]:
    schema = run_config_for(current()).model_json_schema()
    definition: dict[str, Any] = schema["$defs"][schema["properties"][key]["$ref"].split("/")[-1]]
    return definition


@pytest.mark.parametrize(
    ("key", "section"),
    [
        ("data", DataSection),
        ("model", ModelSection),
        ("system", SystemSection),
        ("round", RoundConfig),
    ],
)
def test_a_sections_docstring_is_its_schema_description(key: str, section: type) -> None:
    assert section.__doc__  # the form shows it under the section's title
    assert section_schema(key)["description"] == inspect.cleandoc(section.__doc__)


def test_the_description_is_the_sections_own_docstring() -> None:
    expected = "`round`: how a round ends in simulated time (with a system model)."
    assert section_schema("round")["description"] == expected
    assert "description" not in section_schema("availability")  # none: not Built's
