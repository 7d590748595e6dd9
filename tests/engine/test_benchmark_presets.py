"""The field's benchmark presets (LEAF FEMNIST and Shakespeare, CIFAR-10 by Dirichlet(α),
FEMNIST under Markov availability): each method and variant builds, `fedwatch presets`
lists them, and a tiny run of each method records its rounds."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from fedwatch.cli import presets_cmd
from tests.engine.test_leaf import tiny_femnist, tiny_shakespeare
from worker.engine import ListSink, simulate
from worker.engine.components import current
from worker.engine.registry import selected
from worker.presets import PRESETS, get_preset

NAMES = (
    "leaf-femnist",
    "leaf-shakespeare",
    "cifar10-dirichlet",
    "femnist-markov",
    "leaf-femnist-accuracy",
    "fedml-shakespeare",
    "niid-bench-cifar10",
    "niid-bench-cifar10-100",
)
CIFAR10 = ("cifar10-dirichlet", "niid-bench-cifar10", "niid-bench-cifar10-100")
ROUNDS = 2


def test_leaf_femnist_is_leafs_baseline_script() -> None:
    preset = get_preset("leaf-femnist")

    config = preset.run_config()
    wide = preset.run_config(preset.variants["c=35,e=1"])
    long = preset.run_config(preset.variants["c=3,e=100"])

    assert (config.data.dataset, config.data.partition, config.model.name) == (
        "femnist",
        "natural",
        "leaf_cnn",
    )
    assert (config.algorithm.name, config.n_selected(), config.rounds) == ("fedavg", 3, 2000)
    client = config.client
    assert (client.unit, client.local_steps, client.batch_size, client.lr) == (
        "epochs",
        1,
        10,
        0.004,
    )
    assert (wide.n_selected(), long.client.local_steps) == (35, 100)
    assert "1812.01097" in preset.paper and preset.published == {}


def test_leaf_shakespeare_is_leafs_baseline_script() -> None:
    preset = get_preset("leaf-shakespeare")

    config = preset.run_config()

    assert (config.data.dataset, config.model.name) == ("shakespeare", "leaf_lstm")
    assert (config.n_selected(), config.rounds, config.client.lr) == (10, 80, 0.8)
    assert preset.run_config(preset.variants["e=20"]).client.local_steps == 20
    assert preset.published == {}


def test_cifar10_dirichlet_varies_alpha_under_bernoulli_availability() -> None:
    preset = get_preset("cifar10-dirichlet")

    alphas = {
        name: selected(preset.run_config(v).data, current().partitions)[1].alpha
        for name, v in preset.variants.items()
    }

    assert alphas == {"alpha=0.5": 0.5, "alpha=0.1": 0.1, "alpha=1": 1.0}
    assert preset.run_config().availability.kind == "bernoulli"
    assert preset.method_names == ["fedavg", "mifa", "fedlaavg", "fedar", "fedvarp"]


def test_femnist_markov_runs_the_seeds_methods_on_natural_clients() -> None:
    preset = get_preset("femnist-markov")

    config = preset.run_config()

    assert (config.data.partition, config.availability.kind) == ("natural", "markov")
    assert {"fedavg", "fedlaavg", "mifa", "fedar", "fedvarp", "cafed"} <= set(preset.method_names)


@pytest.mark.parametrize("name", NAMES)
def test_every_method_and_variant_builds(name: str) -> None:
    preset = PRESETS[name]

    configs = [preset.run_config(m.as_overrides()) for m in preset.compare]
    configs += [preset.run_config(v) for v in preset.variants.values()]

    assert all(c.name == name for c in configs)


def test_fedwatch_presets_lists_them_with_what_they_need(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert presets_cmd.run(argparse.Namespace()) == 0

    out = capsys.readouterr().out
    for name in NAMES:
        assert f"\n{name} " in out
    assert "needs femnist: LEAF's JSON under" in out
    assert "needs shakespeare: LEAF's JSON under" in out


def tiny_overrides(name: str, root: Path) -> list[str]:
    """A tiny run of the preset: 2 rounds on the test's LEAF files (2 users each), or
    for CIFAR-10 the bundled digits standing in (the dataset the preset names as its
    offline substitute) over 10 clients."""
    small = [f"rounds={ROUNDS}", "eval.every=1", "eval.client_every=0", "client.local_steps=1"]
    if name in CIFAR10:
        return [*small, "data.dataset=digits", "data.n_clients=10"]
    return [*small, f"data.root={root}", "data.n_clients=2", "algorithm.participation=2"]


@pytest.mark.parametrize(
    ("name", "method"),
    [(p, m.name) for p in NAMES for m in PRESETS[p].compare],
)
def test_a_tiny_run_of_each_method_records_its_rounds(
    tmp_path: Path, name: str, method: str
) -> None:
    tiny_femnist(tmp_path)
    tiny_shakespeare(tmp_path)
    preset = PRESETS[name]
    chosen = next(m for m in preset.compare if m.name == method)
    config = preset.run_config([*chosen.as_overrides(), *tiny_overrides(name, tmp_path)])
    sink = ListSink()

    simulate(config, sink)

    assert [r.round for r in sink.records] == list(range(ROUNDS))
    assert "test_acc" in sink.records[-1].metrics
