"""The presets with a published figure beside them: each loads with the setup its source
states (hand-written from the source's files), its figures name a known figure and a
source, and `fedwatch presets` lists them with both."""

from __future__ import annotations

import argparse

import pytest

from fedwatch.cli import presets_cmd
from worker.engine.components import current
from worker.engine.registry import selected
from worker.presets import PRESETS, get_preset
from worker.reproduction.figures import LABELS

BASELINES = (
    "niid-bench-cifar10",
    "niid-bench-cifar10-100",
    "leaf-femnist-accuracy",
    "fedml-shakespeare",
)


def test_niid_bench_cifar10_is_flowers_niid_bench_config() -> None:
    preset = get_preset("niid-bench-cifar10")
    config = preset.run_config()
    data, client = config.data, config.client

    alpha = selected(data, current().partitions)[1].alpha
    assert (data.dataset, data.n_clients, data.partition, alpha, data.seed) == (
        "cifar10",
        10,
        "dirichlet",
        0.5,
        42,
    )
    assert (data.normalization, config.model.name, config.availability.kind) == (
        "unit",
        "cnn",
        "always",
    )
    assert (config.algorithm.name, config.n_selected(), config.rounds) == ("fedavg", 10, 50)
    assert (client.unit, client.local_steps, client.batch_size, client.lr) == (
        "epochs",
        10,
        64,
        0.01,
    )
    assert (client.momentum, client.weight_decay, client.momentum_state) == (0.9, 1e-5, "reset")
    assert preset.method_names == ["fedavg", "scaffold", "fedprox", "fednova"]
    assert preset.published == {
        "fedavg": {"max": 62.47},
        "scaffold": {"max": 68.08},
        "fednova": {"max": 63.89},
    }
    assert "baselines/niid_bench/README.md (commit 5252f67)" in preset.source
    assert "best accuracy across all rounds" in preset.source
    assert preset.seeds == (42,) and config.eval.every == 1  # max over every round


def test_niid_bench_methods_carry_their_configs_settings() -> None:
    preset = get_preset("niid-bench-cifar10")
    by_name = {m.name: preset.run_config(m.as_overrides()) for m in preset.compare}

    scaffold = by_name["scaffold"].client
    assert (scaffold.unit, scaffold.local_steps) == ("steps", 10 * 79)  # 10 × ⌈5000/64⌉
    fedprox = selected(by_name["fedprox"].algorithm, current().algorithms)[1]
    assert fedprox.mu == 0.01
    assert by_name["fednova"].client.unit == "epochs"


def test_niid_bench_cifar10_100_is_the_leader_boards_100_party_run() -> None:
    preset = get_preset("niid-bench-cifar10-100")
    config = preset.run_config()
    data, client = config.data, config.client

    alpha = selected(data, current().partitions)[1].alpha
    assert (data.dataset, data.n_clients, alpha, data.seed, config.model.name) == (
        "cifar10",
        100,
        0.5,
        0,
        "cnn",
    )
    assert (config.availability.kind, config.n_selected(), config.rounds) == ("always", 10, 500)
    assert (client.unit, client.local_steps, client.batch_size, client.lr, client.momentum) == (
        "epochs",
        10,
        64,
        0.01,
        0.9,
    )
    methods = {m.name: preset.run_config(m.as_overrides()) for m in preset.compare}
    assert selected(methods["fedprox"].algorithm, current().algorithms)[1].mu == 0.001
    assert methods["scaffold"].client.local_steps == 10 * 8  # 10 × ⌈500 / 64⌉
    assert preset.published == {
        "fedavg": {"accuracy": 59.4},
        "scaffold": {"accuracy": 10.0},
        "fedprox": {"accuracy": 58.8},
        "fednova": {"accuracy": 60.0},
    }
    assert preset.seeds == (0, 1, 2)  # the leader board averages three runs
    assert "Xtra-Computing/NIID-Bench, README.md (commit 61b901a)" in preset.source


def test_leaf_femnist_accuracy_is_leafs_fedavg_baseline() -> None:
    preset = get_preset("leaf-femnist-accuracy")
    config = preset.run_config()
    client = config.client

    assert (config.data.dataset, config.data.partition, config.model.name) == (
        "femnist",
        "natural",
        "leaf_cnn",
    )
    assert (config.n_selected(), config.rounds, config.algorithm.weights) == (5, 1000, "size")
    assert (client.unit, client.local_steps, client.batch_size, client.lr) == (
        "steps",
        5,
        10,
        0.001,
    )
    assert preset.published == {"fedavg": {"accuracy": 74.72}}
    assert "leaf/femnist/README.md at commit 930c131" in preset.source
    assert "Table 2" in preset.source and "1812.01097" in preset.paper
    assert "held out" in preset.differs


def test_fedml_shakespeare_is_fedmls_benchmark_command() -> None:
    preset = get_preset("fedml-shakespeare")
    config = preset.run_config()
    client = config.client

    assert (config.data.dataset, config.data.partition, config.model.name) == (
        "shakespeare",
        "natural",
        "leaf_lstm",
    )
    assert (config.data.n_clients, config.n_selected(), config.rounds) == (143, 10, 100)
    assert (client.unit, client.local_steps, client.batch_size, client.lr) == (
        "epochs",
        1,
        10,
        0.8,
    )
    assert preset.published == {"fedavg": {"accuracy": 53.1}}
    assert "fedml_experiments/standalone/fedavg/readme.md (commit 1746039)" in preset.source
    assert "last round" in preset.source and "wandb" in preset.differs


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_published_figure_is_a_known_figure_of_a_method_in_the_set(name: str) -> None:
    preset = PRESETS[name]

    for algorithm, figures in preset.published.items():
        assert algorithm in preset.method_names
        assert set(figures) <= set(LABELS)
        assert all(0.0 <= v <= 100.0 for v in figures.values())
    assert not preset.published or preset.source or preset.paper


def test_published_text_names_each_method_and_figure() -> None:
    text = get_preset("niid-bench-cifar10").published_text()

    assert text == "fedavg max 62.47 %; scaffold max 68.08 %; fednova max 63.89 %"
    assert get_preset("fedml-shakespeare").published_text() == "fedavg test accuracy 53.1 %"
    assert get_preset("cifar10-dirichlet").published_text() == ""


def test_fedwatch_presets_shows_the_baselines_with_their_sources(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert presets_cmd.run(argparse.Namespace()) == 0

    lines = capsys.readouterr().out.splitlines()
    for name in BASELINES:
        start = next(i for i, line in enumerate(lines) if line.startswith(f"{name} "))
        block = "\n".join(lines[start : start + 5])
        assert f"published: {PRESETS[name].published_text()}" in block
        assert f"source: {PRESETS[name].source}" in block
        assert f"differs: {PRESETS[name].differs}" in block
