"""The field's benchmarks with a published figure beside them: the setups whose test
accuracy a paper or a reference implementation prints in a table, as close as FedWatch's
config comes to each (`differs` says where it cannot)."""

from __future__ import annotations

from worker.presets.leaf import LEAF_PAPER
from worker.presets.model import Method, preset

NIID_BENCH_PAPER = (
    "Li, Diao, Chen, He: Federated Learning on Non-IID Data Silos: An Experimental Study, "
    "ICDE 2022, arXiv 2102.02079; code: github.com/Xtra-Computing/NIID-Bench"
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
# Its README's "Expected Results" table (run_exp.py --seed 42, one run a method) gives
# CIFAR-10, Dirichlet (0.5): FedAvg 63.4, SCAFFOLD 68.0, FedProx 65.6, FedNova 65.0 (%).
# FedProx's figure is left out here: the README tunes μ over four values and does not
# say which one the table shows.
NIID_BENCH_CIFAR10 = preset(
    "niid-bench-cifar10",
    "CIFAR-10 by Dirichlet(0.5) over 10 clients, every client every round, the paper's "
    "CNN, 10 local epochs of 64 at lr 0.01 with momentum 0.9, 50 rounds: FedAvg, SCAFFOLD, "
    "FedProx, FedNova as Flower's NIID-Bench baseline runs them",
    {
        "rounds": 50,
        "data": {
            "dataset": "cifar10",
            "seed": 42,
            "n_clients": 10,
            "partition": "dirichlet",
            "dirichlet": {"alpha": 0.5},
            "normalization": "unit",
        },
        "model": {"name": "cnn"},
        "availability": {"kind": "always"},
        "algorithm": {"name": "fedavg", "participation": 10, "weights": "size"},
        "client": {
            "local_steps": 10,
            "unit": "epochs",
            "batch_size": 64,
            "lr": 0.01,
            "momentum": 0.9,
            "weight_decay": 1e-5,
        },
        "eval": {"every": 1},
    },
    (
        "fedavg",
        # SCAFFOLD counts local work in steps here: 10 epochs of a client's mean 5 000
        # samples at batch 64 (10 × ⌈5 000 / 64⌉)
        Method("scaffold", {"client.unit": "steps", "client.local_steps": 790}),
        Method("fedprox", {"algorithm.fedprox.mu": 0.01}),
        "fednova",
    ),
    seeds=(42,),
    paper=NIID_BENCH_PAPER,
    published={
        "fedavg": {"accuracy": 63.4},
        "scaffold": {"accuracy": 68.0},
        "fednova": {"accuracy": 65.0},
    },
    source=(
        "github.com/adap/flower, baselines/niid_bench/README.md, 'Expected Results': "
        "CIFAR10, Dirichlet (0.5), one run of seed 42 (the round of the figure is not "
        "stated)"
    ),
    differs=(
        "the Dirichlet draw is FedWatch's (NIID-Bench redraws until every client holds 10 "
        "samples and stops giving a class to clients past 5 000), so the clients' data "
        "differ; no training augmentation (Flower's pads by 4 with reflection, crops 32 "
        "and flips at random); SCAFFOLD trains 790 steps, not 10 epochs of each client's "
        "own size"
    ),
)

# LEAF's FedAvg accuracy baseline on FEMNIST, as Flower's first LEAF reproduction
# (github.com/adap/flower, baselines/flwr_baselines/flwr_baselines/publications/leaf/
# femnist/README.md, "Performance") gives it from the LEAF paper: FedAvg 74.72 % (Reptile
# 80.24 %) with 5 % of the data, 1 000 rounds, 5 clients a round, local lr 1e-3, local
# minibatch SGD of batch 10 for 5 minibatches, each device's data cut 60/20/20 into
# train, validation and test, and evaluation on an unseen set of test devices.
LEAF_FEMNIST_ACCURACY = preset(
    "leaf-femnist-accuracy",
    "LEAF FEMNIST: FedAvg as LEAF's accuracy baseline, one client per writer, LEAF's "
    "CNN, 5 clients a round, 5 local steps of batch 10 at lr 0.001, 1 000 rounds",
    {
        "rounds": 1000,
        "data": {"dataset": "femnist", "n_clients": 3550, "partition": "natural"},
        "model": {"name": "leaf_cnn"},
        "availability": {"kind": "always"},
        "algorithm": {"name": "fedavg", "participation": 5, "weights": "size"},
        "client": {"local_steps": 5, "unit": "steps", "batch_size": 10, "lr": 0.001},
        "eval": {"every": 20},
    },
    ("fedavg",),
    paper=LEAF_PAPER,
    published={"fedavg": {"accuracy": 74.72}},
    source=(
        "the LEAF paper's FedAvg baseline as github.com/adap/flower, "
        "baselines/flwr_baselines/flwr_baselines/publications/leaf/femnist/README.md "
        "('Performance') quotes it: 5 % of the data, 1 000 rounds, 5 clients a round, "
        "lr 1e-3, 5 minibatches of 10"
    ),
    differs=(
        "LEAF evaluates on devices held out of training, each device's data cut 60/20/20 "
        "(train/validation/test); FedWatch evaluates on the test split of every writer in "
        "the files, as LEAF's preprocessing cut it (`-t sample`, 9:1); data.n_clients is "
        "the full set's writers (a run on the 5 % sample sets its number)"
    ),
)

# FedML's FedAvg on LEAF's Shakespeare (github.com/FedML-AI/FedML, fedml_experiments/
# standalone/fedavg/README.md, "Experiment results"): 53.1 %, the test accuracy of the
# last round, from `run_fedavg_standalone_pytorch.sh 0 10 10 10 shakespeare ... rnn hetero
# 100 1 0.8 sgd 0`: 10 clients a round, batch 10, 100 rounds, 1 local epoch, SGD lr 0.8,
# FedML's `rnn` (embedding 8, two LSTM layers of 256); its loader makes every LEAF user a
# client (main_fedavg.py sets client_num_in_total to the users' number) and averages by
# sample counts.
FEDML_SHAKESPEARE = preset(
    "fedml-shakespeare",
    "LEAF Shakespeare: FedAvg as FedML's benchmark runs it, one client per speaking role, "
    "LEAF's LSTM, 10 clients a round, 1 local epoch of batch 10 at lr 0.8, 100 rounds",
    {
        "rounds": 100,
        "data": {"dataset": "shakespeare", "n_clients": 1129, "partition": "natural"},
        "model": {"name": "leaf_lstm"},
        "availability": {"kind": "always"},
        "algorithm": {"name": "fedavg", "participation": 10, "weights": "size"},
        "client": {"local_steps": 1, "unit": "epochs", "batch_size": 10, "lr": 0.8},
        "eval": {"every": 5},
    },
    ("fedavg",),
    paper=(
        "He et al.: FedML: A Research Library and Benchmark for Federated Machine "
        "Learning, arXiv 2007.13518 (2020); code: github.com/FedML-AI/FedML"
    ),
    published={"fedavg": {"accuracy": 53.1}},
    source=(
        "github.com/FedML-AI/FedML, fedml_experiments/standalone/fedavg/readme.md, "
        "'Experiment results': shakespeare (LEAF), rnn, test accuracy of the last round"
    ),
    differs=(
        "the README does not say which LEAF sample (--sf, -k) its files hold: "
        "data.n_clients is the full set's 1 129 roles (set the number on disk)"
    ),
)
