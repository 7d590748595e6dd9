"""CA-Fed's synthetic and MNIST setups (Rodio et al.), as its authors' code runs them, with
the figures its repository publishes."""

from __future__ import annotations

from worker.presets.model import Method, preset

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

CAFED_SYNTHETIC = preset(
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
CAFED_MNIST = preset(
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
