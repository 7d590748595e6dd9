"""LEAF's FedAvg baselines (Caldas et al.) on FEMNIST and Shakespeare, as its scripts run them."""

from __future__ import annotations

from typing import Any

from worker.presets.model import preset

LEAF_PAPER = (
    "Caldas et al.: LEAF: A Benchmark for Federated Settings, arXiv 1812.01097 (2018); "
    "code: github.com/TalwalkarLab/leaf, paper_experiments/"
)


def per_user(
    dataset: str,
    n_clients: int,
    model: str,
    *,
    rounds: int,
    clients: int,
    steps: int,
    unit: str,
    lr: float,
    every: int,
    availability: str = "always",
    weights: str = "size",
    client_every: int | None = None,
) -> dict[str, Any]:
    """A FedAvg config on a LEAF dataset's users, one client each (`natural`), as the
    field's LEAF baselines run it: `clients` a round, `steps` local `unit`s of LEAF's
    batch of 10 (its main.py's) at `lr`, evaluated every `every` rounds (and each
    client's accuracy every `client_every`, where given)."""
    schedule = {"every": every} | ({} if client_every is None else {"client_every": client_every})
    return {
        "rounds": rounds,
        "data": {"dataset": dataset, "n_clients": n_clients, "partition": "natural"},
        "model": {"name": model},
        "availability": {"kind": availability},
        "algorithm": {"name": "fedavg", "participation": clients, "weights": weights},
        "client": {"local_steps": steps, "unit": unit, "batch_size": 10, "lr": lr},
        "eval": schedule,
    }


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
    per_user(
        "femnist",
        3550,
        "leaf_cnn",
        rounds=2000,
        clients=3,
        steps=1,
        unit="epochs",
        lr=0.004,
        every=20,
    ),
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
    per_user(
        "shakespeare",
        1129,
        "leaf_lstm",
        rounds=80,
        clients=10,
        steps=1,
        unit="epochs",
        lr=0.8,
        every=5,
    ),
    ("fedavg",),
    variants={"e=1": [], "e=20": ["client.local_steps=20"]},
    paper=LEAF_PAPER,
)
