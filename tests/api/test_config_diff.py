"""What differs between compared runs' configs (`api.comparison.config_diff`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from api.comparison import RunData, config_diff, flatten


def run(run_id: int, seed: int, config: dict[str, Any]) -> RunData:
    empty = np.array([])
    return RunData(run_id, f"run {run_id}", "", empty, empty, empty, seed=seed, config=config)


def test_flatten_keeps_lists_and_empty_objects_as_leaves() -> None:
    config = {"a": {"b": 1, "c": {"d": "x"}}, "means": [1, -1], "e": {}}
    assert flatten(config) == {"a.b": 1, "a.c.d": "x", "means": [1, -1], "e": {}}


def test_only_fields_that_differ_between_runs_name_and_seed_aside() -> None:
    def config(name: str, seed: int, lr: float, algorithm: str) -> dict[str, Any]:
        return {
            "name": name,
            "seed": seed,
            "rounds": 100,
            "algorithm": {"name": algorithm, "k": 2},
            "client": {"lr": lr, "momentum": 0.0},
        }

    groups = {
        "fedavg": [
            run(1, 0, config("a", 0, 0.01, "fedavg")),
            run(2, 1, config("b", 1, 0.1, "fedavg")),
        ],
        "mifa": [run(3, 0, config("c", 0, 0.01, "mifa")), run(4, 1, config("d", 1, 0.01, "mifa"))],
    }
    diff = config_diff(groups)
    assert diff.keys == ["algorithm.name", "client.lr"]  # config order
    assert diff.partial == []
    assert diff.values == {
        "fedavg": {"algorithm.name": ["fedavg"], "client.lr": [0.01, 0.1]},
        "mifa": {"algorithm.name": ["mifa"], "client.lr": [0.01]},
    }


def test_keys_only_some_configs_have_are_apart() -> None:
    groups = {
        "#1": [run(1, 0, {"model": {"name": "mlp", "hidden": 64}, "means": [1, -1]})],
        "#2": [run(2, 0, {"model": {"name": "linear"}, "means": [1, -1]})],
    }
    diff = config_diff(groups)
    assert diff.keys == ["model.name"]
    assert diff.values["#2"] == {"model.name": ["linear"]}
    assert diff.partial == ["model.hidden"]
    assert diff.only == {"#1": {"model.hidden": [64]}, "#2": {}}


def test_a_simulated_run_against_an_external_one() -> None:
    simulated = {"rounds": 100, "client": {"lr": 0.01, "momentum": 0.9}, "model": {"name": "cnn"}}
    external = {"lr": 0.1, "optimizer": "sgd"}
    groups = {"cafed": [run(1, 0, simulated)], "external": [run(2, 0, external)]}

    diff = config_diff(groups)

    assert diff.keys == [] and len(diff.partial) == 6
    assert diff.only["cafed"] == {"rounds": [100], "client.lr": [0.01], "client.momentum": [0.9],
                                  "model.name": ["cnn"]}  # fmt: skip
    assert diff.only["external"] == {"lr": [0.1], "optimizer": ["sgd"]}


def test_two_external_runs_compare_their_own_keys() -> None:
    groups = {"a": [run(1, 0, {"lr": 0.1, "mu": 1})], "b": [run(2, 0, {"lr": 0.2, "mu": 1})]}

    diff = config_diff(groups)

    assert (diff.keys, diff.partial) == (["lr"], [])
    assert diff.values == {"a": {"lr": [0.1]}, "b": {"lr": [0.2]}}


def test_identical_configs_have_no_diff() -> None:
    same = {"rounds": 5, "client": {"lr": 0.1}}
    diff = config_diff({"a": [run(1, 0, same), run(2, 3, dict(same, seed=3))]})
    assert diff.keys == [] and diff.values == {"a": {}} and diff.partial == []


def test_each_run_shows_the_parameters_of_the_components_it_used() -> None:
    def config(name: str, wait: bool, concurrency: int) -> dict[str, Any]:
        algorithm = {"fedavg": {"wait_for_all": wait}, "fedbuff": {"concurrency": concurrency}}
        return {
            "algorithm": {"name": name, **algorithm},
            "availability": {"kind": "always", "markov": {"g": 0.4}},
        }

    groups = {
        "fedavg": [run(1, 0, config("fedavg", False, 4)), run(2, 1, config("fedavg", False, 8))],
        "fedbuff": [run(3, 0, config("fedbuff", True, 4)), run(4, 1, config("fedbuff", False, 8))],
    }

    diff = config_diff(groups)

    # before: algorithm.fedbuff.concurrency = 4 | 8 in FedAvg's row too, and
    # algorithm.fedavg.wait_for_all = true | false in FedBuff's, which never read it
    assert diff.keys == ["algorithm.name", "algorithm.fedbuff.concurrency"]
    assert diff.values == {
        "fedavg": {"algorithm.name": ["fedavg"]},
        "fedbuff": {"algorithm.name": ["fedbuff"], "algorithm.fedbuff.concurrency": [4, 8]},
    }
    assert diff.partial == []  # no availability.markov.g: no run used Markov availability


def test_used_params_keeps_the_selected_components_and_unknown_keys() -> None:
    from worker.engine.components import current
    from worker.engine.used_params import used_params

    config = {
        "algorithm": {"name": "mifa", "mifa": {"init": "zero"}, "fedavg": {}, "mine": {"x": 1}},
        "data": {"dataset": "digits", "n_clients": 5, "mean_estimation": {"sigma": 0.0}},
        "lr": 0.1,
    }
    # a config stored before partitions resolved `auto`: the dataset's own (clusters)
    clustered = {"dataset": "synthetic_clustered", "partition": "auto", "iid": {},
                 "clusters": {"n_clusters": 3}, "dirichlet": {"alpha": 0.5}}  # fmt: skip
    assert used_params({"data": clustered}, current())["data"] == {
        "dataset": "synthetic_clustered",
        "partition": "auto",
        "clusters": {"n_clusters": 3},
    }

    assert used_params(config, current()) == {
        "algorithm": {"name": "mifa", "mifa": {"init": "zero"}, "mine": {"x": 1}},
        "data": {"dataset": "digits", "n_clients": 5},
        "lr": 0.1,
    }
    # a config stored before partitions resolved `auto`: the dataset's own (clusters)
    clustered = {"dataset": "synthetic_clustered", "partition": "auto", "iid": {},
                 "clusters": {"n_clusters": 3}, "dirichlet": {"alpha": 0.5}}  # fmt: skip
    assert used_params({"data": clustered}, current())["data"] == {
        "dataset": "synthetic_clustered",
        "partition": "auto",
        "clusters": {"n_clusters": 3},
    }
