"""FedAR's presets: `fedar-mnist` built as the paper states its MNIST setup, sharing
FedAR's setup with `fedar-cifar10`, and the availability each p_min variant draws."""

from __future__ import annotations

import pytest
import torch

from worker.engine.availability.bernoulli import bernoulli_probabilities
from worker.engine.components import current
from worker.engine.config import RunConfig
from worker.engine.registry import selected
from worker.presets import get_preset

NAMES = ("fedar-mnist", "fedar-cifar10")


def test_fedar_mnist_is_the_papers_mnist_setup() -> None:
    preset = get_preset("fedar-mnist")

    config = preset.run_config()

    assert (config.data.dataset, config.data.n_clients) == ("mnist", 100)
    by_class = selected(config.data, current().partitions)[1]
    assert (config.data.partition, by_class.classes_per_client) == ("by_class", 2)
    assert config.model.name == "linear"  # logistic (softmax) regression
    bernoulli = selected(config.availability, current().availability)[1]
    assert (config.availability.kind, bernoulli.profile, bernoulli.p_min) == (
        "bernoulli",
        "uniform",
        0.1,
    )
    assert (config.algorithm.name, config.n_selected()) == ("fedar", 100)
    fedar = selected(config.algorithm, current().algorithms)[1]
    assert (fedar.rho, fedar.cutoff) == (0.1, "sqrt")
    client = config.client
    assert (client.unit, client.local_steps, client.batch_size) == ("steps", 5, 64)
    assert (client.lr, client.weight_decay, client.momentum) == (0.1, 1e-3, 0.0)
    assert config.eval.client_every > 0  # per-client accuracy: the variance claim
    assert preset.method_names == ["fedar", "fedvarp", "mifa", "fedavg_is", "fedavg", "scaffold"]


def test_both_fedar_presets_share_the_setup_and_differ_in_data_and_model() -> None:
    mnist, cifar = (get_preset(n) for n in NAMES)
    a, b = (p.run_config().model_dump(mode="json") for p in (mnist, cifar))

    for section in ("availability", "algorithm", "client", "server"):
        assert a[section] == b[section], section
    assert (a["data"]["dataset"], b["data"]["dataset"]) == ("mnist", "cifar10")
    assert (a["model"]["name"], b["model"]["name"]) == ("linear", "lenet5")
    assert (mnist.compare, mnist.seeds, mnist.variants) == (
        cifar.compare,
        cifar.seeds,
        cifar.variants,
    )


def probabilities(config: RunConfig) -> torch.Tensor:
    """p_k of the config's 100 clients (`uniform` does not read their classes)."""
    classes = torch.zeros(config.data.n_clients, dtype=torch.long)
    params = selected(config.availability, current().availability)[1]
    return bernoulli_probabilities(params, classes, 10, config.seed)


@pytest.mark.parametrize(("variant", "p_min"), [("p_min=0.1", 0.1), ("p_min=0.5", 0.5)])
def test_each_variant_draws_p_k_uniform_in_p_min_to_1(variant: str, p_min: float) -> None:
    preset = get_preset("fedar-mnist")
    config = preset.run_config(preset.variants[variant])

    pi = probabilities(config)

    assert selected(config.availability, current().availability)[1].p_min == p_min
    assert len(pi) == 100
    assert bool(((pi >= p_min) & (pi <= 1)).all())
    # U[p_min, 1] over 100 clients: mean (1 + p_min)/2, its std (1 − p_min)/√12/10 ≤ 0.026
    assert float(pi.mean()) == pytest.approx((1 + p_min) / 2, abs=0.08)
    assert float(pi.min()) < p_min + 0.1 and float(pi.max()) > 0.9
    # the same draw, shifted and scaled: one uniform vector per seed for both variants
    other = 0.5 if p_min == 0.1 else 0.1
    u = (probabilities(preset.run_config([f"availability.bernoulli.p_min={other}"])) - other) / (
        1 - other
    )
    torch.testing.assert_close(pi, p_min + (1 - p_min) * u)
