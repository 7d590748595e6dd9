"""The field's benchmarks with a published figure beside them: the setups whose test
accuracy a paper or a reference implementation prints in a table, as close as FedWatch's
config comes to each (`differs` says where it cannot)."""

from __future__ import annotations

import math
from typing import Any

from worker.presets.leaf import LEAF_PAPER, per_user
from worker.presets.model import Method, preset

NIID_BENCH_PAPER = (
    "Li, Diao, Chen, He: Federated Learning on Non-IID Data Silos: An Experimental Study, "
    "ICDE 2022, arXiv 2102.02079; code: github.com/Xtra-Computing/NIID-Bench"
)


def niid_bench(n_clients: int, per_round: int, rounds: int, seed: int) -> dict[str, Any]:
    """NIID-Bench's CIFAR-10 setup: Dirichlet(0.5) over `n_clients` (data seed `seed`),
    `per_round` of them a round, the simple CNN, 10 local epochs of 64 at lr 0.01 with
    momentum 0.9 and weight decay 1e-5, pixels in [0, 1], evaluated every round."""
    return {
        "rounds": rounds,
        "data": {
            "dataset": "cifar10",
            "seed": seed,
            "n_clients": n_clients,
            "partition": "dirichlet",
            "dirichlet": {"alpha": 0.5},
            "normalization": "unit",
        },
        "model": {"name": "cnn"},
        "availability": {"kind": "always"},
        "algorithm": {"name": "fedavg", "participation": per_round, "weights": "size"},
        "client": {
            "local_steps": 10,
            "unit": "epochs",
            "batch_size": 64,
            "lr": 0.01,
            "momentum": 0.9,
            "weight_decay": 1e-5,
        },
        "eval": {"every": 1},
    }


def scaffold_steps(n_clients: int) -> Method:
    """SCAFFOLD counts local work in steps here: 10 epochs of a client's mean share of
    CIFAR-10's 50 000 images at batch 64 (10 × ⌈50 000 / n_clients / 64⌉)."""
    return Method(
        "scaffold",
        {"client.unit": "steps", "client.local_steps": 10 * math.ceil(50_000 / n_clients / 64)},
    )


NIID_BENCH_DIFFERS = (
    "the Dirichlet draw is FedWatch's (NIID-Bench redraws until every client holds 10 "
    "samples and gives no class to a client past its equal share), so the clients' data "
    "differ; no training augmentation (NIID-Bench pads by 4 with reflection, crops 32 and "
    "flips at random); SCAFFOLD trains a fixed number of steps (10 epochs of the mean "
    "client), not 10 epochs of each client's own size"
)

# Flower's reproduction of NIID-Bench (github.com/adap/flower, baselines/niid_bench), as
# its configs run it (niid_bench/conf/{fedavg,scaffold,fedprox,fednova}_base.yaml):
# - data: CIFAR-10's 50 000 training images over 10 clients by Dirichlet(0.5) per class
#   (dataset_seed 42), pixels in [0, 1] (ToTensor, no normalisation); the server
#   evaluates on the 10 000 test images;
# - model: the paper's CNN, two unpadded 5×5 convolutions of 6 and 16 channels, each with
#   ReLU and 2×2 max-pooling, then 400 → 120 → 84 → 10 (`cnn` on 32×32 inputs);
# - every client trains every round (10 of 10), 10 local epochs of batch 64, SGD lr 0.01,
#   momentum 0.9 (a fresh optimiser each round), weight decay 1e-5; 50 rounds; the
#   server averages by sample counts (Flower's FedAvg);
# - FedProx μ = 0.01 (its default; run_exp.py also runs 0.001, 0.1 and 1).
# Its README's "Expected Results" table (as merged, commit 5252f67, PR #2428) gives for
# CIFAR-10, Dirichlet (0.5) "the best accuracies across all rounds", mean ± std over its
# runs (how many is not stated): FedAvg 62.47 ± 0.43, SCAFFOLD 68.08 ± 0.96, FedProx
# 65.63 ± 0.08, FedNova 63.89 ± 1.40 (%). FedProx's figure is left out here: the README
# tunes μ over four values and does not say which one the table shows.
NIID_BENCH_CIFAR10 = preset(
    "niid-bench-cifar10",
    "CIFAR-10 by Dirichlet(0.5) over 10 clients, every client every round, the paper's "
    "CNN, 10 local epochs of 64 at lr 0.01 with momentum 0.9, 50 rounds: FedAvg, SCAFFOLD, "
    "FedProx, FedNova as Flower's NIID-Bench baseline runs them",
    niid_bench(n_clients=10, per_round=10, rounds=50, seed=42),
    (
        "fedavg",
        scaffold_steps(10),
        Method("fedprox", {"algorithm.fedprox.mu": 0.01}),
        "fednova",
    ),
    seeds=(42,),
    paper=NIID_BENCH_PAPER,
    published={
        "fedavg": {"max": 62.47},
        "scaffold": {"max": 68.08},
        "fednova": {"max": 63.89},
    },
    source=(
        "github.com/adap/flower, baselines/niid_bench/README.md (commit 5252f67), "
        "'Expected Results': CIFAR10, Dirichlet (0.5), the best accuracy across all "
        "rounds, mean of its runs (± 0.43, 0.96, 1.40)"
    ),
    differs=NIID_BENCH_DIFFERS,
)

# NIID-Bench's own leader board (github.com/Xtra-Computing/NIID-Bench, README.md at
# commit 61b901a, "Distribution-based label imbalance"): "Cifar-10, 100 parties, sample
# rate = 0.1, batch size = 64, learning rate = 0.01", `noniid-labeldir` with beta=0.5,
# simple-cnn, 500 rounds: FedNova 60.0, FedAvg 59.4, FedProx (mu=0.001) 58.8, SCAFFOLD
# 10.0 (%), "the average of three experiments" (the round is not stated). The run is
# scripts/100-parties.sh: --epochs=10 --rho=0.9 (momentum) --n_parties=100 --sample=0.1
# --comm_round=500 --init_seed=0, experiments.py's defaults --reg=1e-5 and SGD; each
# round a uniform sample of 10 parties without replacement, averaged by their sizes; the
# global model tested on CIFAR-10's test set. The same setup as Flower's above, over 100
# clients with 10 a round: the published counterpart nearest `cifar10-dirichlet`.
NIID_BENCH_CIFAR10_100 = preset(
    "niid-bench-cifar10-100",
    "CIFAR-10 by Dirichlet(0.5) over 100 clients, 10 a round, the paper's CNN, 10 local "
    "epochs of 64 at lr 0.01 with momentum 0.9, 500 rounds: FedAvg, SCAFFOLD, FedProx, "
    "FedNova as NIID-Bench's leader board runs them",
    niid_bench(n_clients=100, per_round=10, rounds=500, seed=0),
    (
        "fedavg",
        scaffold_steps(100),
        Method("fedprox", {"algorithm.fedprox.mu": 0.001}),
        "fednova",
    ),
    seeds=(0, 1, 2),
    paper=NIID_BENCH_PAPER,
    published={
        "fedavg": {"accuracy": 59.4},
        "scaffold": {"accuracy": 10.0},
        "fedprox": {"accuracy": 58.8},
        "fednova": {"accuracy": 60.0},
    },
    source=(
        "github.com/Xtra-Computing/NIID-Bench, README.md (commit 61b901a), leader board, "
        "'Distribution-based label imbalance': Cifar-10, 100 parties, sample rate 0.1, "
        "noniid-labeldir beta=0.5, simple-cnn, 500 rounds; the average of three runs "
        "(the round is not stated)"
    ),
    differs=NIID_BENCH_DIFFERS,
)

# LEAF's FedAvg accuracy baseline on FEMNIST (the paper's Table 2), as Flower's LEAF
# reproduction quoted it while it was written (github.com/adap/flower, commit 930c131 of
# PR #1655, baselines/flwr_baselines/publications/leaf/femnist/README.md, "Performance"):
# FedAvg 74.72 % (Reptile 80.24 %) with 5 % of the data, 1 000 rounds, 5 clients a round,
# local lr 1e-3, local minibatch SGD of batch 10 for 5 minibatches, each device's data cut
# 60/20/20 into train, validation and test, evaluation on an unseen set of test devices.
# The merged README drops the number and keeps the setup as the config
# `table2_leaf_paper` (conf/training: 1 000 rounds, 5 clients, lr 0.001, 5 batches a
# round; conf/dataset: fraction 0.05, batch 10, fractions 0.6/0.2/0.2).
LEAF_FEMNIST_ACCURACY = preset(
    "leaf-femnist-accuracy",
    "LEAF FEMNIST: FedAvg as LEAF's accuracy baseline, one client per writer, LEAF's "
    "CNN, 5 clients a round, 5 local steps of batch 10 at lr 0.001, 1 000 rounds",
    per_user(
        "femnist",
        3550,
        "leaf_cnn",
        rounds=1000,
        clients=5,
        steps=5,
        unit="steps",
        lr=0.001,
        every=20,
    ),
    ("fedavg",),
    paper=LEAF_PAPER,
    published={"fedavg": {"accuracy": 74.72}},
    source=(
        "the LEAF paper's Table 2 as github.com/adap/flower quotes it in "
        "baselines/flwr_baselines/publications/leaf/femnist/README.md at commit 930c131 "
        "(PR #1655; 'Performance'): 5 % of the data, 1 000 rounds, 5 clients a round, "
        "lr 1e-3, 5 minibatches of 10 (the round of the figure is not stated)"
    ),
    differs=(
        "LEAF evaluates on devices held out of training, each device's data cut 60/20/20 "
        "(train/validation/test); FedWatch evaluates on the test split of every writer in "
        "the files, as LEAF's preprocessing cut it (`-t sample`, 9:1); data.n_clients is "
        "the full set's writers (a run on the 5 % sample sets its number)"
    ),
)

# FedML's FedAvg on LEAF's Shakespeare (github.com/FedML-AI/FedML, commit 1746039,
# fedml_experiments/standalone/fedavg/readme.md, "Experiment results"): 53.1 %, "the test
# accuracy of the last communication round", from the command
# `run_fedavg_standalone_pytorch.sh 0 10 10 10 shakespeare ... rnn hetero 100 1 0.8 sgd 0`
# (gpu, clients, clients a round, batch, dataset, path, model, partition, rounds, epochs,
# lr, optimiser, ci): 10 clients a round, batch 10, 100 rounds, 1 local epoch, SGD lr 0.8;
# `rnn` is RNN_OriginalFedAvg (embedding 8, two LSTM layers of 256). Its data are
# FedProx's LEAF files (data/shakespeare: all_data_niid_2_keep_0_{train,test}_8.json,
# 143 users, 413 629 training and 103 477 test samples), one client per user
# (main_fedavg.py sets client_num_in_total to their number); FedAvg averages by samples.
FEDML_SHAKESPEARE = preset(
    "fedml-shakespeare",
    "LEAF Shakespeare (FedProx's 143 roles): FedAvg as FedML's benchmark runs it, one "
    "client per role, LEAF's LSTM, 10 clients a round, 1 local epoch of batch 10 at lr "
    "0.8, 100 rounds",
    per_user(
        "shakespeare",
        143,
        "leaf_lstm",
        rounds=100,
        clients=10,
        steps=1,
        unit="epochs",
        lr=0.8,
        every=5,
    ),
    ("fedavg",),
    paper=(
        "He et al.: FedML: A Research Library and Benchmark for Federated Machine "
        "Learning, arXiv 2007.13518 (2020); code: github.com/FedML-AI/FedML"
    ),
    published={"fedavg": {"accuracy": 53.1}},
    source=(
        "github.com/FedML-AI/FedML, fedml_experiments/standalone/fedavg/readme.md "
        "(commit 1746039), 'Experiment results': shakespeare (LEAF), rnn, the test "
        "accuracy of the last round, on FedProx's LEAF files (143 users)"
    ),
    differs=(
        "FedML encodes characters with TFF's 86-letter vocabulary (90 outputs with its "
        "padding, out-of-vocabulary and boundary ids), FedWatch with LEAF's 80; the "
        "epochs and lr are the README's command as written, but the script of that "
        "commit reads arguments past the ninth as $10, $11 (bash's ${1}0), so what the "
        "run used is on its wandb page, not in the repository"
    ),
)
