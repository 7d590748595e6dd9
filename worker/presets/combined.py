"""Setups no paper ran together, chosen here: label skew and natural clients under the
availability models of the papers."""

from __future__ import annotations

from worker.presets.leaf import per_user
from worker.presets.model import preset

# CIFAR-10 split by Dirichlet(α) (Hsu et al. 2019) under FedAR's Bernoulli availability
# (p_k ~ U[0.1, 1]): the availability-aware methods against FedAvg at three degrees of
# label skew. Chosen here, as no paper ran this set together: 100 clients, LeNet-5, FedAR's
# local training (5 steps of 64, lr 0.1, weight decay 1e-3), K = 10 clients a round
# (FedLaAvg's K longest absent; FedAvg a uniform sample; MIFA, FedAR and FedVARP as their
# own rules take the available ones), uniform weights, 2 000 rounds, 3 seeds. No published
# figure: none of the methods' papers reports this split.
CIFAR10_DIRICHLET = preset(
    "cifar10-dirichlet",
    "CIFAR-10 split by Dirichlet(α), α = 0.5 (or 0.1, 1), 100 clients, Bernoulli uniform "
    "p_min 0.1, LeNet-5: FedAvg, MIFA, FedLaAvg, FedAR, FedVARP",
    {
        "rounds": 2000,
        "data": {
            "dataset": "cifar10",
            "n_clients": 100,
            "partition": "dirichlet",
            "dirichlet": {"alpha": 0.5},
        },
        "model": {"name": "lenet5"},
        "availability": {"kind": "bernoulli", "bernoulli": {"profile": "uniform", "p_min": 0.1}},
        "algorithm": {"name": "fedavg", "participation": 10, "weights": "uniform"},
        "client": {"local_steps": 5, "batch_size": 64, "lr": 0.1, "weight_decay": 1e-3},
        "eval": {"every": 20, "client_every": 100, "target_acc": 0.5, "checkpoint_every": 50},
    },
    ("fedavg", "mifa", "fedlaavg", "fedar", "fedvarp"),
    seeds=(0, 1, 2),
    variants={
        "alpha=0.5": [],
        "alpha=0.1": ["data.dirichlet.alpha=0.1"],
        "alpha=1": ["data.dirichlet.alpha=1.0"],
    },
)

# FEMNIST's writers as clients whose presence follows CA-Fed's Markov population (half
# more available, π = 0.9, half less, π = 0.1; a share of each correlated, λ = 0.9): the
# seeds' methods on natural clients of very different sizes. Chosen here: LEAF's CNN,
# 10 clients a round where a method samples, 1 local epoch of batch 10 at lr 0.004
# (LEAF's FedAvg), uniform target weights, 1 000 rounds, 3 seeds; data.n_clients the full
# set's writers (set the number on disk). No published figure: no paper ran this setup.
FEMNIST_MARKOV = preset(
    "femnist-markov",
    "FEMNIST writers under Markov availability: FedAvg, FedLaAvg, MIFA, FedAR, FedVARP, "
    "CA-Fed, F3AST on one client per writer, LEAF's CNN",
    per_user(
        "femnist",
        3550,
        "leaf_cnn",
        rounds=1000,
        clients=10,
        steps=1,
        unit="epochs",
        lr=0.004,
        every=20,
        availability="markov",
        weights="uniform",
        client_every=100,
    ),
    ("fedavg", "fedlaavg", "mifa", "fedar", "fedvarp", "cafed", "f3ast"),
    seeds=(0, 1, 2),
)
