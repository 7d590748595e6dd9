"""MIFA's CIFAR-10 setup (Gu et al.), whose two-classes split FedAR's shares."""

from __future__ import annotations

from typing import Any

from worker.presets.model import preset

# MIFA's and FedAR's CIFAR-10 setting: 100 clients holding two classes each, LeNet-5.
CIFAR10_TWO_CLASSES: dict[str, Any] = {
    "data": {
        "dataset": "cifar10",
        "n_clients": 100,
        "partition": "by_class",
        "by_class": {"classes_per_client": 2},
    },
    "model": {"name": "lenet5"},
}

MIFA_CIFAR10 = preset(
    "mifa-cifar10",
    "MIFA CIFAR-10: 100 clients x 2 classes, Bernoulli by_class p_min 0.1, LeNet-5",
    {
        "rounds": 2000,
        **CIFAR10_TWO_CLASSES,
        "availability": {"kind": "bernoulli", "bernoulli": {"profile": "by_class", "p_min": 0.1}},
        "algorithm": {"name": "mifa", "participation": 100, "weights": "uniform"},
        "client": {"local_steps": 2, "unit": "epochs", "batch_size": 100, "lr": 0.1},
        "eval": {"every": 20, "target_acc": 0.5, "checkpoint_every": 50},
    },
    ("mifa", "fedavg", "fedlaavg", "fedvarp"),
)
