"""FedLaAvg's Example 1 (Yan et al.): two clients that FedAvg provably leaves biased."""

from __future__ import annotations

from worker.presets.model import Reference, preset

EXAMPLE1 = preset(
    "example1",
    "FedLaAvg Example 1: two clients, means ±1, 30 rounds on / 10 off; FedAvg is biased to 0.5",
    {
        "seed": 0,
        "rounds": 4000,
        "data": {
            "dataset": "mean_estimation",
            "n_clients": 2,
            "partition": "iid",
            "mean_estimation": {
                "means": [1.0, -1.0],
                "sigma": 0.0,
                "train_per_client": 10,
                "test_per_client": 10,
            },
        },
        "model": {"name": "scalar", "scalar": {"init": 0.0}},
        "availability": {
            "kind": "diurnal",
            "diurnal": {"strategy": "ratio", "period": 30, "ratio": 1 / 3},
        },
        "algorithm": {"name": "fedlaavg", "participation": 2, "weights": "uniform"},
        "client": {"local_steps": 1, "batch_size": 1, "lr": 0.01},
        "server": {"lr": 1.0},
        "eval": {"every": 1, "checkpoint_every": 100},
    },
    ("fedavg", "fedlaavg", "mifa"),
    # FedAvg follows whichever client is available: over a period x averages
    # (30·1 + 10·(−1)) / 40 = 0.5; the optimum is the clients' mean, 0.
    references={
        "param": (Reference(0.5, "FedAvg's limit 0.5"), Reference(0.0, "optimum x* = 0")),
    },
)
