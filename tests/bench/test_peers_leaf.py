"""`bench/peers.py`'s LEAF workloads: their data, FedWatch's two backends as sides, the
graph pfl's side runs, and the dry run end to end with every peer installed here."""

import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from bench import peers
from bench.peers import WORKLOADS

ROOT = Path(__file__).resolve().parents[2]
LEAF = ("FEMNIST-10", "FEMNIST-100", "Shakespeare-10")
TORCH_WARNING = (
    "There is a performance drop because we have not yet implemented the batching rule "
    "for aten::mkldnn_rnn_layer. Please file us an issue on GitHub"
)


def test_leaf_workloads_keep_their_models_and_shrink_for_a_dry_run() -> None:
    femnist, shakespeare = WORKLOADS["FEMNIST-100"], WORKLOADS["Shakespeare-10"]

    tiny = femnist.tiny()

    assert (femnist.model, femnist.shape, femnist.n_classes, femnist.k) == (
        "leaf_cnn",
        (1, 28, 28),
        62,
        100,
    )
    assert (shakespeare.model, shakespeare.shape, shakespeare.n_classes) == ("leaf_lstm", (80,), 80)
    assert (shakespeare.batch, femnist.batch) == (10, 10)  # LEAF's
    assert (tiny.n_clients, tiny.per_client, tiny.k, tiny.rounds, tiny.test) == (10, 4, 5, 1, 100)
    assert (tiny.model, tiny.steps, tiny.n_classes) == ("leaf_cnn", 2, 62)
    assert shakespeare.text and not femnist.text and not WORKLOADS["W2"].text


def test_a_leaf_workload_has_a_side_per_backend_and_auto_picks_one_of_them() -> None:
    assert peers.fedwatch_sides(WORKLOADS["W2"]) == {"FedWatch": "auto"}
    assert peers.fedwatch_sides(WORKLOADS["FEMNIST-10"]) == {
        "FedWatch vmap": "vmap",
        "FedWatch sequential": "sequential",
    }
    # the CNN's 6.6 M parameters are past `LARGE_MODEL`; the LSTM is recurrent
    assert peers.auto_backend(WORKLOADS["FEMNIST-10"].tiny()) == "sequential"
    assert peers.auto_backend(WORKLOADS["Shakespeare-10"].tiny()) == "sequential"
    assert peers.auto_backend(WORKLOADS["W1-10"].tiny()) == "vmap"


def test_the_fallback_warning_names_the_operation_and_nothing_else_matches() -> None:
    found = peers.FALLBACK.search(TORCH_WARNING)

    assert found is not None and found[1] == "aten::mkldnn_rnn_layer"
    assert peers.FALLBACK.search("Tensor attributes were assigned during export") is None


def test_text_data_walk_one_transition_per_token_when_the_chain_is_sharp() -> None:
    # Logits of 1000 × N(0, 1): each token's successor is its row's largest logit, so
    # every step of every sequence, and the label, follow one map of the 5 tokens.
    w = replace(WORKLOADS["Shakespeare-10"], n_clients=3, per_client=7, test=4, n_classes=5)
    w = replace(w, shape=(6,), signal=1000.0)

    data = peers.fake_data(w)

    x, y = data["x_train"], data["y_train"]
    assert x.shape == (21, 6) and x.dtype == np.uint8 and y.shape == (21,)
    assert data["x_test"].shape == (4, 6) and data["y_test"].shape == (4,)
    chain = np.concatenate([x, y[:, None]], axis=1).astype(np.int64)
    successor: dict[int, int] = {}
    for a, b in zip(chain[:, :-1].ravel(), chain[:, 1:].ravel(), strict=True):
        assert successor.setdefault(int(a), int(b)) == int(b)
    assert int(chain.max()) < 5


def test_text_data_at_zero_signal_are_uniform_over_the_alphabet() -> None:
    w = replace(WORKLOADS["Shakespeare-10"], n_clients=40, per_client=500, signal=0.0)

    data = peers.fake_data(w)

    counts = np.bincount(data["x_train"].ravel(), minlength=80)
    expected = data["x_train"].size / 80  # 20 000 sequences × 80 tokens / 80 tokens
    # each count's standard deviation is 0.7 % of it: 5 % is 7 of them
    assert len(counts) == 80 and np.all(np.abs(counts - expected) < 0.05 * expected)


@pytest.mark.slow
def test_the_lstm_graph_pfl_reads_computes_fedwatchs_model(tmp_path: Path) -> None:
    w = WORKLOADS["Shakespeare-10"].tiny()

    dim = peers.write_workload(w, tmp_path)

    assert dim == 819_920 and peers.read_workload(tmp_path) == w
    graph = torch.export.load(tmp_path / "model.pt2").module()
    module = peers.build_module(w)
    with np.load(tmp_path / "init.npz") as init:
        state = {k: torch.from_numpy(init[k]) for k in init.files}
    graph.load_state_dict(state)
    module.load_state_dict(state)
    tokens = torch.from_numpy(np.load(tmp_path / "x_test.npy")[:7])
    assert torch.allclose(graph(tokens), module(tokens), atol=1e-6)
    assert peers.initial_flat(tmp_path).size == dim


def installed() -> list[str]:
    envs = [("flower", peers.FLOWER_ENV, "flwr"), ("pfl", peers.PFL_ENV, "pfl")]
    return [p for p, env, module in envs if peers.ensure(env, module, install=False)]


@pytest.mark.slow
@pytest.mark.parametrize("workload", LEAF)
def test_dry_run_measures_both_backends_against_every_installed_peer(workload: str) -> None:
    present = installed()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "bench/peers.py", "--workloads", workload, "--dry-run"]

    done = subprocess.run(
        [*command, "--no-install", "--flower-cpus", "1"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=560,
    )

    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout
    for peer in {"flower", "pfl"} - set(present):
        assert f"{peer}: not installed, skipped" in out
    # The backends table: vmap, sequential, their ratio, each installed peer ÷ each
    # backend, the two accuracies.
    row = re.search(
        rf"^\s*{workload}((?:\s+[\d.]+)+)\s*$", out.split("backends, per round")[1], re.M
    )
    assert row is not None, out[-3000:]
    assert len(row[1].split()) == 3 + 2 * len(present) + 2
    vmap = re.search(r"FedWatch vmap: process .*\(backend vmap, .*\)$", out, re.M)
    sequential = re.search(r"FedWatch sequential: process .*\(backend sequential, .*\)$", out, re.M)
    assert vmap is not None and sequential is not None
    # torch.func has no batching rule for the LSTM's kernel (the CNN's stacked form needs none)
    assert ("fallback for aten::" in vmap[0]) == workload.startswith("Shakespeare")
    assert "fallback" not in sequential[0]


def test_the_peers_sides_import_the_bench_without_the_engines_dependencies() -> None:
    # pfl's environment holds pfl, numpy and torch only: what its side imports of
    # bench/peers.py must need nothing else (pydantic, which the engine's config needs).
    code = "import sys; sys.modules['pydantic'] = None; import bench.peers_pfl"

    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 0, done.stderr[-2000:]
