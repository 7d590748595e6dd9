"""LEAF's FedAvg baselines (Caldas et al.) on FEMNIST and Shakespeare, as its scripts run them."""

from __future__ import annotations

from worker.presets.model import preset

LEAF_PAPER = (
    "Caldas et al.: LEAF: A Benchmark for Federated Settings, arXiv 1812.01097 (2018); "
    "code: github.com/TalwalkarLab/leaf, paper_experiments/"
)

# LEAF's FEMNIST FedAvg baseline as its script runs it (paper_experiments/femnist.sh):
# - data: LEAF's preprocessing `./preprocess.sh -s niid --sf 0.05 -k 100 -t sample` (5 %
#   of the writers, those with at least 100 samples; each writer's samples cut 9:1);
#   one client per writer (`natural`), so data.n_clients is the number of writers on disk
#   (here the full set's 3 550; a run on the 5 % sample names its number to set);
# - model: LEAF's CNN (`leaf_cnn`); every writer available (LEAF has no availability);
# - FedAvg: 3 clients a round, 1 local epoch, batch 10 (main.py's default), lr 0.004,
#   2 000 rounds, the server averaging by sample counts; the script's other two runs
#   are the variants (3 clients × 100 epochs, 35 clients × 1 epoch);
# - evaluation every 20 rounds (chosen here).
# The paper shows these runs as curves only (no table of accuracies), so no published
# figure stands beside the preset: one read off a plot would be a guess (its tabulated
# FedAvg accuracy is `leaf-femnist-accuracy`'s, in baselines.py).
LEAF_FEMNIST = preset(
    "leaf-femnist",
    "LEAF FEMNIST: FedAvg as LEAF's baseline script runs it, one client per writer, LEAF's "
    "CNN, 3 clients a round (or 35), 1 local epoch (or 100), lr 0.004",
    {
        "rounds": 2000,
        "data": {"dataset": "femnist", "n_clients": 3550, "partition": "natural"},
        "model": {"name": "leaf_cnn"},
        "availability": {"kind": "always"},
        "algorithm": {"name": "fedavg", "participation": 3, "weights": "size"},
        "client": {"local_steps": 1, "unit": "epochs", "batch_size": 10, "lr": 0.004},
        "eval": {"every": 20},
    },
    ("fedavg",),
    variants={
        "c=3,e=1": [],
        "c=3,e=100": ["client.local_steps=100"],
        "c=35,e=1": ["algorithm.participation=35"],
    },
    paper=LEAF_PAPER,
)

# LEAF's Shakespeare FedAvg baseline (paper_experiments/shakespeare.sh): data from
# `./preprocess.sh -s niid --sf 0.05 -k 64 -tf 0.9 -t sample`, one client per speaking
# role (data.n_clients here the full set's 1 129; set the number on disk); LEAF's
# stacked LSTM (`leaf_lstm`); 10 clients a round, 1 local epoch (or 20), batch 10, lr 0.8,
# 80 rounds, every role available. McMahan et al. 2017 (AISTATS, arXiv 1602.05629) ran
# FedAvg on their own Shakespeare split and report rounds to a target accuracy, not this
# setup's; LEAF's paper shows its runs as curves only: no figure stands beside it.
LEAF_SHAKESPEARE = preset(
    "leaf-shakespeare",
    "LEAF Shakespeare: FedAvg as LEAF's baseline script runs it, one client per speaking "
    "role, LEAF's LSTM, 10 clients a round, 1 local epoch (or 20), lr 0.8",
    {
        "rounds": 80,
        "data": {"dataset": "shakespeare", "n_clients": 1129, "partition": "natural"},
        "model": {"name": "leaf_lstm"},
        "availability": {"kind": "always"},
        "algorithm": {"name": "fedavg", "participation": 10, "weights": "size"},
        "client": {"local_steps": 1, "unit": "epochs", "batch_size": 10, "lr": 0.8},
        "eval": {"every": 5},
    },
    ("fedavg",),
    variants={"e=1": [], "e=20": ["client.local_steps=20"]},
    paper=LEAF_PAPER,
)
