"""DP-FedAvg under three availability models: the ε a paper assumes against each client's."""

from __future__ import annotations

from worker.presets.model import Method, preset

# DP-FedAvg (central DP, McMahan et al. 2018) at one σ under three availability models of
# the same mean availability ½; K = N/2, so about every available client trains. Under
# Bernoulli each client joins each round independently at about K/N, which is what the
# assumed ε takes; under diurnal and Markov availability a client joins in runs of
# rounds, and its own ε (composed over the rounds it joined) leaves the assumed one
# behind (docs/concepts/privacy.md).
DP_AVAILABILITY = preset(
    "dp-availability",
    "DP-FedAvg at σ = 1 under Bernoulli, diurnal and Markov availability: the ε a paper "
    "assumes against each client's own",
    {
        "rounds": 100,
        "data": {
            "dataset": "digits",
            "n_clients": 50,
            "partition": "by_class",
            "classes_per_client": 2,
        },
        "model": {"name": "linear"},
        "availability": {"kind": "bernoulli", "bernoulli": {"p": 0.5}},
        "algorithm": {"name": "fedavg", "participation": 25, "weights": "uniform"},
        "client": {"local_steps": 5, "batch_size": 16, "lr": 0.1},
        "privacy": {"kind": "central", "central": {"noise_multiplier": 1.0, "clip_norm": 0.5}},
        "eval": {"every": 5},
    },
    (
        Method("fedavg", {"availability.kind": "bernoulli"}, label="bernoulli"),
        Method(
            "fedavg",
            {
                "availability.kind": "diurnal",
                "availability.diurnal.period": 10,
                "availability.diurnal.classes_in_group0": 5,
            },
            label="diurnal",
        ),
        Method("fedavg", {"availability.kind": "markov"}, label="markov"),
    ),
    headline=(
        "final_test_acc",
        "final_epsilon_assumed",
        "final_epsilon_client_max",
        "final_epsilon_client_median",
    ),
)
