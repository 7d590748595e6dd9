"""Paper setups: one name reproduces a published configuration and its comparison set.

A comparison set lists `Method`s: an algorithm and the settings its paper's code ran it
with (CA-Fed's scripts tune the learning rates per method). `fedwatch compare`, the
form's Compare button and experiments all expand a preset through `Preset.methods`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from worker.engine import data as datasets
from worker.engine.components import current
from worker.engine.config import RunConfig
from worker.engine.data import leaf
from worker.engine.data.leaf_datasets import LEAF_DATASETS
from worker.engine.data.vision import EXPECTED_FILES, needs, require_files
from worker.engine.moved import moved
from worker.engine.overrides import ConfigError, build_config
from worker.engine.used_params import used_params


@dataclass(frozen=True)
class Method:
    """One entry of a comparison set: `algorithm` with the dotted settings `set` (the
    values its paper's code used for it), on top of the preset's config; `label` names
    it where a set holds one algorithm twice (`name`: the label, or the algorithm)."""

    algorithm: str
    set: dict[str, Any] = field(default_factory=dict)
    label: str = ""

    @property
    def name(self) -> str:
        return self.label or self.algorithm

    def assignments(self) -> dict[str, Any]:
        """Every dotted key this method sets, its algorithm included."""
        return {"algorithm.name": self.algorithm, **self.set}

    def as_overrides(self) -> list[str]:
        """The assignments as `--set key=value` strings (JSON values)."""
        return [f"{k}={json.dumps(v)}" for k, v in self.assignments().items()]


@dataclass(frozen=True)
class Reference:
    """A value a metric's chart marks with a dashed line: a limit the paper derives, an
    optimum."""

    value: float
    label: str


@dataclass(frozen=True)
class Preset:
    name: str
    description: str
    config: dict[str, Any]
    compare: tuple[Method, ...]
    seeds: tuple[int, ...] = (0,)
    variants: dict[str, list[str]] = field(default_factory=dict)
    paper: str = ""  # the publication the preset reproduces
    # figures the paper publishes: algorithm -> figure (`worker.reproduction.figures`) -> %
    published: dict[str, dict[str, float]] = field(default_factory=dict)
    # round metric -> the values its chart marks; they follow from the preset's data and
    # availability, so a run with both unchanged gets them (`references_for`)
    references: dict[str, tuple[Reference, ...]] = field(default_factory=dict)
    # the summary values its comparison is about: the first, default columns of its tables
    headline: tuple[str, ...] = ()

    def run_config(self, assignments: list[str] | None = None) -> RunConfig:
        return build_config({"name": self.name, **self.config}, assignments)

    @property
    def method_names(self) -> list[str]:
        return [m.name for m in self.compare]

    def needs(self, download_allowed: bool = True) -> str | None:
        """What data the preset needs and where it must lie, for a dataset read from
        `data.root` (None: the data is generated or bundled); a download is named only
        where one is allowed."""
        data = self.run_config().data
        if data.dataset in LEAF_DATASETS:
            return leaf.needs(data.dataset, data.root)
        if data.dataset not in EXPECTED_FILES:
            return None
        return needs(data.dataset, data.root, download_allowed)

    def check_data(self, assignments: list[str] | None = None) -> None:
        """Raise DatasetMissing (naming files and place) before any run would."""
        data = self.run_config(assignments).data
        if data.dataset in EXPECTED_FILES:
            require_files(data.dataset, data.root, data.download)
        datasets.check_dataset(data)


def _preset(
    name: str,
    description: str,
    config: dict[str, Any],
    compare: tuple[str | Method, ...],
    seeds: tuple[int, ...] = (0,),
    variants: dict[str, list[str]] | None = None,
    paper: str = "",
    published: dict[str, dict[str, float]] | None = None,
    references: dict[str, tuple[Reference, ...]] | None = None,
    headline: tuple[str, ...] = (),
) -> Preset:
    methods = tuple(m if isinstance(m, Method) else Method(m) for m in compare)
    return Preset(
        name,
        description,
        config,
        methods,
        seeds,
        variants or {},
        paper,
        published or {},
        references or {},
        headline,
    )


EXAMPLE1 = _preset(
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
FEDLAAVG_MNIST = _preset(
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

FEDLAAVG_CIFAR10 = _preset(
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

MIFA_CIFAR10 = _preset(
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

# FedAR's setup (Jiang et al.), the same on its CIFAR-10 and MNIST: what differs between
# the two is the data, the model, the rounds and the evaluation. "The paper's" marks the
# settings its experiments state; the others are chosen here and say so.
# - availability: client k available each round with p_k ~ U[p_min, 1], p_min 0.1, or 0.5
#   as the second variant (the paper's two settings);
# - algorithm: every available client trains (participation = all 100), uniform target
#   weights; FedAR with ρ = 0.1 (the paper's) and the sqrt cut-off g(t) of its non-convex
#   analysis, with FedWatch's defaults c = 5, t0 = 10 (chosen here);
# - client: 5 local SGD steps of batch 64, lr 0.1, weight decay 1e-3 (the paper's);
# - comparison set: the paper's baselines, FedVARP, MIFA, FedAvg-IS, FedAvg, SCAFFOLD;
#   5 seeds (its figures are means over runs; the count is chosen here).
FEDAR_SETUP: dict[str, Any] = {
    "availability": {"kind": "bernoulli", "bernoulli": {"profile": "uniform", "p_min": 0.1}},
    "algorithm": {
        "name": "fedar",
        "participation": 100,
        "weights": "uniform",
        "fedar": {"rho": 0.1, "cutoff": "sqrt"},
    },
    "client": {"local_steps": 5, "batch_size": 64, "lr": 0.1, "weight_decay": 1e-3},
}
FEDAR_METHODS = ("fedar", "fedvarp", "mifa", "fedavg_is", "fedavg", "scaffold")
FEDAR_SEEDS = (0, 1, 2, 3, 4)
FEDAR_VARIANTS = {"p_min=0.1": [], "p_min=0.5": ["availability.bernoulli.p_min=0.5"]}


def _fedar(name: str, description: str, config: dict[str, Any]) -> Preset:
    """A FedAR preset: FEDAR_SETUP under `config` (data, model, rounds, evaluation)."""
    return _preset(
        name,
        description,
        {**FEDAR_SETUP, **config},
        FEDAR_METHODS,
        seeds=FEDAR_SEEDS,
        variants=FEDAR_VARIANTS,
    )


FEDAR_CIFAR10 = _fedar(
    "fedar-cifar10",
    "FedAR CIFAR-10: 100 clients x 2 classes, Bernoulli uniform p_min 0.1 or 0.5, LeNet-5",
    {
        "rounds": 2000,
        **CIFAR10_TWO_CLASSES,
        "eval": {"every": 20, "client_every": 100, "target_acc": 0.5, "checkpoint_every": 50},
    },
)

# FedAR's MNIST: FEDAR_SETUP on the real MNIST (`data.root` holding `MNIST/raw/`):
# - data: MNIST's 60 000 train images over 100 clients holding two classes each
#   (`by_class`, 2; the number of clients as in its CIFAR-10 setting: chosen here, the
#   paper's MNIST count not checked), each client's test rows a share of the test images
#   of its two classes (per-client accuracy, FedAR's fairness statistics); pixels as
#   FedWatch's image pools hold them, in [−1, 1] (chosen here);
# - model: logistic (softmax) regression, nn.Linear(784, 10) (the paper's);
# - rounds and evaluation (chosen here): 500 rounds, by which every method has settled
#   (the mean accuracy of rounds 400-499 within 0.4 pp of rounds 300-399, seed 0,
#   p_min 0.1); test accuracy every 10 rounds, per-client accuracy every 50 and after
#   the last round (the final client mean and variance are the last one's); rounds to
#   80 % test accuracy (chosen here).
FEDAR_MNIST = _fedar(
    "fedar-mnist",
    "FedAR MNIST: the real MNIST over 100 clients x 2 classes, Bernoulli uniform p_min 0.1 "
    "or 0.5, logistic regression",
    {
        "rounds": 500,
        "data": {
            "dataset": "mnist",
            "n_clients": 100,
            "partition": "by_class",
            "by_class": {"classes_per_client": 2},
        },
        "model": {"name": "linear"},
        "eval": {"every": 10, "client_every": 50, "target_acc": 0.8, "checkpoint_every": 50},
    },
)

CAFED_PAPER = (
    "Rodio, Faticanti, Marfoq, Neglia, Leonardi: Federated Learning under Heterogeneous "
    "and Correlated Client Availability, IEEE INFOCOM 2023; code: github.com/arodio/CA-Fed"
)

# The results table of the authors' repository README (mean of three runs, %): maximum,
# time-average, std over the second half.
CAFED_PUBLISHED: dict[str, dict[str, dict[str, float]]] = {
    "synthetic": {
        "unbiased": {"max": 78.94, "time_avg": 75.33, "std_second_half": 0.48},
        "f3ast": {"max": 78.97, "time_avg": 75.33, "std_second_half": 0.40},
        "adafed": {"max": 78.69, "time_avg": 74.81, "std_second_half": 0.59},
        "cafed": {"max": 79.03, "time_avg": 76.22, "std_second_half": 0.28},
    },
    "mnist": {
        "unbiased": {"max": 64.87, "time_avg": 61.39, "std_second_half": 1.09},
        "f3ast": {"max": 64.91, "time_avg": 61.52, "std_second_half": 0.94},
        "adafed": {"max": 63.77, "time_avg": 60.48, "std_second_half": 1.37},
        "cafed": {"max": 64.94, "time_avg": 62.76, "std_second_half": 0.61},
    },
}

CAFED_SYNTHETIC = _preset(
    "cafed-synthetic",
    "CA-Fed synthetic as its authors' code runs it: 24 clients in 2 clusters (data seed 42), "
    "Markov availability of the generator's population, one-logit logistic regression",
    {
        "rounds": 150,
        "data": {
            "dataset": "synthetic_clustered",
            "seed": 42,
            "n_clients": 24,
            "partition": "clusters",
            "clusters": {"n_clusters": 2},
            "synthetic_clustered": {
                "dimension": 10,
                "train_per_client": 50,
                "test_per_client": 150,
            },
        },
        "model": {"name": "logistic"},
        "availability": {"kind": "markov", "markov": {"population": "dataset"}},
        "algorithm": {
            "name": "cafed",
            "participation": 12,
            "cafed": {
                "estimator": "oracle",
                "beta": 0.001,
                "tau": 0.0,
                "loss_probe": "test_split",
                "optimum": "local_solver",
                "accept_ties": True,
            },
            "unbiased": {"estimator": "oracle"},
            "adafed": {"estimator": "oracle"},
            "f3ast": {"pi_estimate": "oracle_smoothed"},
        },
        "client": {
            "local_steps": 2,
            "unit": "epochs",
            "batch_size": 32,
            "lr": 0.01,
            "momentum": 0.9,
            "weight_decay": 1e-2,
            "momentum_state": "keep",
        },
        "server": {"lr": 0.3, "momentum": 0.9, "weight_decay": 1e-2},
        "eval": {
            "schedule": "cafed_log",
            "client_every": 10,
            "checkpoint_every": 25,
            "target_acc": 0.7,
            "batch_size": 1024,
        },
    },
    (
        Method("cafed", {"client.lr": 0.01, "server.lr": 0.3}),
        Method("unbiased", {"client.lr": 0.03, "server.lr": 0.03}),
        Method("adafed", {"client.lr": 0.001, "server.lr": 1.0}),
        Method("f3ast", {"client.lr": 0.03, "server.lr": 0.03}),
    ),
    seeds=(12, 123, 1234),
    paper=CAFED_PAPER,
    published=CAFED_PUBLISHED["synthetic"],
)

# CA-Fed MNIST as its authors' code runs it (paper_experiments/mnist/run.sh and the
# generator step of multiple_seeds.sh), setting by setting:
# - data: the real MNIST; its 60 000 train and 10 000 test images joined, permuted and
#   cut over 24 clients in 2 clusters that each swap 2 label pairs (`data/incongruent.py`,
#   the generator's --incongruent_split with --seed 42); a client's rows from MNIST's
#   train split train, the others test; pixels standardised with MNIST's mean 0.1307 and
#   std 0.3081 (its loader's ToTensor and Normalize); the population's π = ½ ± 0.4 and
#   λ of the stable clients 0.9 (--availability_parameters 0.4 0.4,
#   --stability_parameters 0.9 0.9), drawn with the split;
# - model: softmax regression, nn.Linear(784, 10) (its LinearLayer);
# - availability: the Markov chain of that population (its activity simulator);
# - every method: 2 local epochs (--local_steps 2: its client runs fit_epochs), train
#   batch 64, test batch 2048, local SGD lr 0.001 and server SGD lr 0.1 on the
#   pseudo-gradient, both with momentum 0.9 and weight decay 1e-2 (utils/optim.py), the
#   client's optimiser kept from round to round (one per client), the oracle estimator
#   (its default), logs at the `cafed_log` rounds (--log_freq 10), 150 rounds;
# - CA-Fed: --smoothness_param 0.0 --tolerance_param 0.0 (β = τ = 0), each available
#   client's loss on its test split, F̂* = 0 (its scikit-learn solver rejects images);
#   AdaFed: --adafed_full_participation; F3AST: 12 clients per round, π smoothed with
#   1/150 (--smoothness_param 0.001 is not what its sampler reads).
CAFED_MNIST = _preset(
    "cafed-mnist",
    "CA-Fed MNIST as its authors' code runs it: the real MNIST (train and test joined) "
    "split over 24 clients in 2 label-swapped clusters (data seed 42), Markov availability "
    "of the generator's population, softmax regression",
    {
        "rounds": 150,
        "data": {
            "dataset": "mnist",
            "seed": 42,
            "n_clients": 24,
            "partition": "incongruent",
            "incongruent": {
                "n_clusters": 2,
                "swap_pairs": 2,
                "population_g": 0.4,
                "population_nu": 0.9,
            },
            "normalization": "standard",
        },
        "model": {"name": "linear"},
        "availability": {"kind": "markov", "markov": {"population": "dataset"}},
        "algorithm": {
            "name": "cafed",
            "participation": 12,
            "cafed": {
                "estimator": "oracle",
                "beta": 0.0,
                "tau": 0.0,
                "loss_probe": "test_split",
                "optimum": "zero",
                "accept_ties": True,
            },
            "unbiased": {"estimator": "oracle"},
            "adafed": {"estimator": "oracle"},
            "f3ast": {"pi_estimate": "oracle_smoothed"},
        },
        "client": {
            "local_steps": 2,
            "unit": "epochs",
            "batch_size": 64,
            "lr": 0.001,
            "momentum": 0.9,
            "weight_decay": 1e-2,
            "momentum_state": "keep",
        },
        "server": {"lr": 0.1, "momentum": 0.9, "weight_decay": 1e-2},
        "eval": {
            "schedule": "cafed_log",
            "client_every": 10,
            "checkpoint_every": 25,
            "target_acc": 0.6,
            "batch_size": 2048,
        },
    },
    ("cafed", "unbiased", "adafed", "f3ast"),
    seeds=(12, 123, 1234),
    paper=CAFED_PAPER,
    published=CAFED_PUBLISHED["mnist"],
)

# Rounds in simulated time: 100 clients of the digits (Dirichlet 0.5), 10 per round,
# 10 local steps of 16 samples. Plain FedAvg waits for its slowest client; with a
# deadline of DEADLINE_S and 30 % over-commitment it keeps the first 10 updates in time;
# FedNova keeps what each client finished by the deadline, normalised by its steps.
DEADLINE_S = 1.5
TIMED: dict[str, Any] = {
    "rounds": 150,
    "data": {"dataset": "digits", "n_clients": 100, "partition": "dirichlet"},
    "model": {"name": "mlp"},
    "algorithm": {"name": "fedavg", "participation": 10},
    "client": {"local_steps": 10, "batch_size": 16, "lr": 0.05},
    "eval": {"every": 5, "target_acc": 0.9},
}


def timed_methods(deadline_s: float) -> tuple[Method, ...]:
    return (
        Method("fedavg"),
        Method(
            "fedavg",
            {"round.deadline_s": deadline_s, "round.over_commit": 0.3},
            label="fedavg-deadline",
        ),
        Method(
            "fednova",
            {"round.deadline_s": deadline_s, "client.partial_work": "keep"},
            label="fednova-partial",
        ),
    )


STRAGGLERS = _preset(
    "stragglers",
    "Stragglers: FedAvg vs FedAvg with a deadline and over-commitment vs FedNova with partial "
    "work, devices of lognormal speed (σ = 1); compare simulated time to 90 % accuracy",
    {**TIMED, "system": {"kind": "profiles", "profiles": {"compute_spread": 1.0}}},
    timed_methods(DEADLINE_S),
    seeds=(0, 1, 2),
    headline=("time_to_target_s", "dropped_updates_avg"),
)

FEDSCALE_TRACE = _preset(
    "fedscale-trace",
    "The stragglers comparison on FedScale-format device files: speeds and online sessions "
    "in seconds (the shipped synthetic pair; yours with system.fedscale.device_file and "
    "trace_file under the data root)",
    {**TIMED, "system": {"kind": "fedscale"}},
    timed_methods(8.0),
    seeds=(0, 1, 2),
    headline=("time_to_target_s", "dropped_updates_avg"),
)

# Asynchronous against synchronous on the stragglers' devices and 100 clients of the
# digits holding 2 classes each, in two groups by their smallest label, available in
# turns (diurnal): labels 0-4 for 10 rounds, the others for 5. A turn lasts that many
# rounds of FedAvg or FedBuff (10 updates each) and 10 times more of FedAsync (one update
# each), so that about as many updates arrive in a turn; 20 clients train at once in the
# async methods, whose 3600 arrivals take about the simulated time of FedAvg's 150 rounds.
ASYNC_VS_SYNC = _preset(
    "async-vs-sync",
    "Asynchronous vs synchronous FL: FedAvg with a deadline and over-commitment vs FedBuff "
    "vs FedAsync, devices of lognormal speed (σ = 1), diurnal availability; compare "
    "simulated time to 90 % accuracy and participation bias",
    {
        **TIMED,
        "data": {
            "dataset": "digits",
            "n_clients": 100,
            "partition": "by_class",
            "by_class": {"classes_per_client": 2},
        },
        "availability": {
            "kind": "diurnal",
            "diurnal": {"strategy": "ratio", "period": 10, "ratio": 0.5},
        },
        "system": {"kind": "profiles", "profiles": {"compute_spread": 1.0}},
    },
    (
        Method(
            "fedavg",
            {"round.deadline_s": DEADLINE_S, "round.over_commit": 0.3},
            label="fedavg-deadline",
        ),
        Method(
            "fedbuff",
            {"algorithm.fedbuff.concurrency": 20, "algorithm.fedbuff.buffer": 10, "rounds": 360},
        ),
        Method(
            "fedasync",
            {
                "algorithm.fedasync.concurrency": 20,
                "rounds": 3600,
                "availability.diurnal.period": 100,
                "eval.every": 50,
            },
        ),
    ),
    seeds=(0, 1, 2),
    headline=("time_to_target_s", "update_staleness_mean_avg"),
)

# DP-FedAvg (central DP, McMahan et al. 2018) at one σ under three availability models of
# the same mean availability ½; K = N/2, so about every available client trains. Under
# Bernoulli each client joins each round independently at about K/N, which is what the
# assumed ε takes; under diurnal and Markov availability a client joins in runs of
# rounds, and its own ε (composed over the rounds it joined) leaves the assumed one
# behind (docs/concepts/privacy.md).
DP_AVAILABILITY = _preset(
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
# figure stands beside the preset: one read off a plot would be a guess.
LEAF_FEMNIST = _preset(
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
LEAF_SHAKESPEARE = _preset(
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

# CIFAR-10 split by Dirichlet(α) (Hsu et al. 2019) under FedAR's Bernoulli availability
# (p_k ~ U[0.1, 1]): the availability-aware methods against FedAvg at three degrees of
# label skew. Chosen here, as no paper ran this set together: 100 clients, LeNet-5, FedAR's
# local training (5 steps of 64, lr 0.1, weight decay 1e-3), K = 10 clients a round
# (FedLaAvg's K longest absent; FedAvg a uniform sample; MIFA, FedAR and FedVARP as their
# own rules take the available ones), uniform weights, 2 000 rounds, 3 seeds. No published
# figure: none of the methods' papers reports this split.
CIFAR10_DIRICHLET = _preset(
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
FEMNIST_MARKOV = _preset(
    "femnist-markov",
    "FEMNIST writers under Markov availability: FedAvg, FedLaAvg, MIFA, FedAR, FedVARP, "
    "CA-Fed, F3AST on one client per writer, LEAF's CNN",
    {
        "rounds": 1000,
        "data": {"dataset": "femnist", "n_clients": 3550, "partition": "natural"},
        "model": {"name": "leaf_cnn"},
        "availability": {"kind": "markov"},
        "algorithm": {"name": "fedavg", "participation": 10, "weights": "uniform"},
        "client": {"local_steps": 1, "unit": "epochs", "batch_size": 10, "lr": 0.004},
        "eval": {"every": 20, "client_every": 100},
    },
    ("fedavg", "fedlaavg", "mifa", "fedar", "fedvarp", "cafed", "f3ast"),
    seeds=(0, 1, 2),
)

PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        EXAMPLE1,
        FEDLAAVG_MNIST,
        FEDLAAVG_CIFAR10,
        MIFA_CIFAR10,
        FEDAR_CIFAR10,
        FEDAR_MNIST,
        CAFED_SYNTHETIC,
        CAFED_MNIST,
        STRAGGLERS,
        FEDSCALE_TRACE,
        ASYNC_VS_SYNC,
        DP_AVAILABILITY,
        LEAF_FEMNIST,
        LEAF_SHAKESPEARE,
        CIFAR10_DIRICHLET,
        FEMNIST_MARKOV,
    )
}


@functools.cache
def _problem(name: str) -> tuple[Any, Any]:
    return _used(PRESETS[name].run_config().model_dump(mode="json"))


def _used(config: Mapping[str, Any]) -> tuple[Any, Any]:
    """A config's data and availability sections as its run used them: moved fields
    where they live now, only the selected components' own parameters (a component
    registered since, or a stored config from before a field moved, is no difference)."""
    used = used_params(moved(dict(config)), current())
    return used.get("data"), used.get("availability")


def references_for(config: Mapping[str, Any]) -> dict[str, tuple[Reference, ...]]:
    """The reference lines of the preset whose data and availability sections a run's
    stored config has unchanged (its algorithm, rounds, seed or name may differ), {} if
    none has."""
    problem = _used(config)
    for preset in PRESETS.values():
        if preset.references and problem == _used(
            {"data": _problem(preset.name)[0], "availability": _problem(preset.name)[1]}
        ):
            return preset.references
    return {}


def get_preset(name: str) -> Preset:
    try:
        return PRESETS[name]
    except KeyError:
        known = ", ".join(PRESETS)
        raise ConfigError(f"unknown preset {name!r} (known: {known})") from None
