"""FedLaAvg's MNIST and CIFAR-10 setups (Yan et al.), as its authors' code runs them."""

from __future__ import annotations

from worker.presets.model import Method, preset

# FedLaAvg's MNIST default (E = 100, D = 1), as its authors' code runs it
# (github.com/mikudehuane/FedLaAvg, README "MNIST FedLaAvg", "E=100 D=1": server.py -ds
# mnist -N 1000 -be 0.1 -C 10 -E 100 --alpha 0.1 --num_rounds 10000 --lr_strategy const
# --init_lr 0.01 -nm 0.0 -ns 1.0 -stg number; tests/fidelity/fedlaavg-mnist):
# - utils/partition.py: class c's images split among its 100 clients in shares
#   5 + N(0, 1) clipped to [3, 7]: relative std 0.2 (`sizes` normal clips at 0.1 only);
# - prepare_clients.py, strategy number with alpha 0.1: the clients of D = 1 class are
#   on E = 100 rounds, the other 900 the next 100;
# - -nm 0.0 -ns 1.0: pixels x/255 in [0, 1]; model logistic: one linear layer;
# - client.py: each client's loss is scaled by N·n_i/n, so its latest update enters the
#   average with weight n_i/n (size weights); K = β·N = 100; C = 10 local steps of batch 5
#   (server.py's MNIST default), lr 0.01 constant; the server adds the (averaged) update;
# - server.py logs the test accuracy every 20 rounds (-te default).
# FedAdam is not in the authors' code; their supplement's Figure 8 (Appendix I) runs it
# in this setup without its settings: here Reddi et al.'s Adam with server lr 0.01.
FEDLAAVG_MNIST = preset(
    "fedlaavg-mnist",
    "FedLaAvg MNIST: 1000 one-class clients, K=100, diurnal E=100, D=1, logistic regression",
    {
        "rounds": 10_000,
        "data": {
            "dataset": "mnist",
            "n_clients": 1000,
            "partition": "by_class",
            "by_class": {"classes_per_client": 1, "sizes": "normal", "size_std": 0.2},
            "normalization": "unit",
        },
        "model": {"name": "linear"},
        "availability": {
            "kind": "diurnal",
            "diurnal": {"strategy": "number", "period": 100, "classes_in_group0": 1},
        },
        "algorithm": {"name": "fedlaavg", "participation": 100, "weights": "size"},
        "client": {"local_steps": 10, "batch_size": 5, "lr": 0.01},
        "eval": {"every": 20, "target_acc": 0.85, "checkpoint_every": 200},
    },
    (
        "fedlaavg",
        "fedavg",
        Method("fedadam", {"server.lr": 0.01}),
        "mifa",
        "sgd",
    ),
)

FEDLAAVG_CIFAR10 = preset(
    "fedlaavg-cifar10",
    "FedLaAvg CIFAR-10: 1000 one-class clients, K=100, CNN, diurnal; full vs intermittent",
    {
        "rounds": 20_000,
        "data": {
            "dataset": "cifar10",
            "n_clients": 1000,
            "partition": "by_class",
            "by_class": {"classes_per_client": 1, "sizes": "normal"},
        },
        "model": {"name": "cnn"},
        "availability": {
            "kind": "diurnal",
            "diurnal": {"strategy": "number", "period": 100, "classes_in_group0": 5},
        },
        "algorithm": {"name": "fedlaavg", "participation": 100, "weights": "uniform"},
        "client": {"local_steps": 10, "batch_size": 5, "lr": 0.05},
        "eval": {"every": 100, "target_acc": 0.5, "checkpoint_every": 200},
    },
    ("fedlaavg", "fedavg", "mifa", "sgd"),
    variants={"intermittent": [], "full": ["availability.kind=always"]},
)
