"""The Flower side of `bench/peers.py`: one FedAvg run under Flower's simulation engine.

A ServerApp with `FedAvg(fraction_train=K/N, fraction_evaluate=0)` started from the
shared initial weights, with central accuracy on the shared test set as `evaluate_fn`,
and a ClientApp written like Flower's quickstart-pytorch: it loads the global model
into FedWatch's `nn.Module`, trains its shard (contiguous rows of the shared training
set) for `steps` SGD steps on batches drawn at random with replacement, as FedWatch's
clients do, and replies with the new weights and its sample count. Everything the
clients need travels in the train config. Writes the time after each `evaluate_fn`
call and the final accuracy to `--out`.

    python -m bench.peers_flower --data DIR --out FILE [--threads 1] [--num-cpus 1]
        [--device cpu|cuda]

On `cuda` the clients and the central evaluation run on the GPU, each actor taking a
tenth of it (`num_gpus` 0.1).

(`DIR` as `bench/peers.py` writes it: the `.npy` arrays, `init.npz`, `meta.json`.)
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from flwr.app import (
    ArrayRecord,
    ConfigRecord,
    ConfigRecordValues,
    Context,
    Message,
    MetricRecord,
    MetricRecordValues,
    RecordDict,
)
from flwr.clientapp import ClientApp
from flwr.serverapp import Grid, ServerApp
from flwr.serverapp.strategy import FedAvg
from flwr.serverapp.strategy.strategy_utils import aggregate_metricrecords
from flwr.simulation import run_simulation
from torch import nn

from bench.peers import EVAL_BATCH, Workload, build_module, read_workload

client_app = ClientApp()
server_app = ServerApp()
SETTINGS: dict[str, Any] = {}  # set by `main` for the ServerApp, which runs in this process


@functools.cache
def arrays(data: str) -> dict[str, np.ndarray]:
    """The shared arrays, memory-mapped once per process."""
    return {
        name: np.load(Path(data) / f"{name}.npy", mmap_mode="r")
        for name in ("x_train", "y_train", "x_test", "y_test")
    }


@functools.cache
def workload(data: str) -> Workload:
    return read_workload(Path(data))


def load_shard(
    data: str, partition: int, per_client: int, device: str
) -> tuple[torch.Tensor, torch.Tensor]:
    a = arrays(data)
    rows = slice(partition * per_client, (partition + 1) * per_client)
    x = torch.from_numpy(np.array(a["x_train"][rows]))
    return x.to(device), torch.from_numpy(np.array(a["y_train"][rows])).to(device)


def train_fn(
    model: nn.Module,
    x: torch.Tensor,
    y: torch.Tensor,
    steps: int,
    batch: int,
    lr: float,
    gen: torch.Generator,
) -> float:
    """`steps` plain SGD steps, each on `batch` rows drawn with replacement."""
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    criterion = nn.CrossEntropyLoss()
    total = 0.0
    for _ in range(steps):
        rows = torch.randint(0, len(y), (batch,), generator=gen).to(y.device)
        optimizer.zero_grad()
        loss = criterion(model(x[rows]), y[rows])
        loss.backward()
        optimizer.step()
        total += float(loss)
    return total / steps


@client_app.train()
def train(msg: Message, context: Context) -> Message:
    config = msg.content["config"]
    torch.set_num_threads(int(config["threads"]))
    data = str(config["data"])
    w = workload(data)
    device = str(config["device"])
    model = build_module(w)
    model.load_state_dict(msg.content["arrays"].to_torch_state_dict())
    model.to(device)
    partition = int(context.node_config["partition-id"])
    x, y = load_shard(data, partition, w.per_client, device)
    seed = int(config["seed"]) * 1_000_003 + int(config["server-round"]) * 10_007 + partition
    gen = torch.Generator().manual_seed(seed)
    loss = train_fn(model, x, y, w.steps, w.batch, float(config["lr"]), gen)
    metrics: dict[str, MetricRecordValues] = {"train_loss": loss, "num-examples": len(y)}
    content = RecordDict(
        {"arrays": ArrayRecord(model.cpu().state_dict()), "metrics": MetricRecord(metrics)}
    )
    return Message(content=content, reply_to=msg)


def accuracy(model: nn.Module, x: np.ndarray, y: np.ndarray, device: str) -> float:
    model.eval()
    correct = 0
    with torch.no_grad():
        for start in range(0, len(y), EVAL_BATCH):
            xb = torch.from_numpy(np.array(x[start : start + EVAL_BATCH])).to(device)
            yb = torch.from_numpy(np.array(y[start : start + EVAL_BATCH])).to(device)
            correct += int((model(xb).argmax(dim=1) == yb).sum())
    return correct / len(y)


@server_app.main()
def main_server(grid: Grid, context: Context) -> None:
    data = Path(SETTINGS["data"])
    w = read_workload(data)
    model = build_module(w)
    with np.load(data / "init.npz") as init:
        model.load_state_dict({k: torch.from_numpy(init[k]) for k in init.files})
    test = arrays(str(data))
    stamps: list[float] = []
    accs: list[float] = []
    replies: list[int] = []

    def train_metrics(records: list[RecordDict], key: str) -> MetricRecord:
        replies.append(len(records))  # a client that failed sends no reply
        return aggregate_metricrecords(records, key)

    device = str(SETTINGS["device"])
    model.to(device)

    def central(server_round: int, record: ArrayRecord) -> MetricRecord:
        model.load_state_dict(record.to_torch_state_dict())
        accs.append(accuracy(model, test["x_test"], test["y_test"], device))
        stamps.append(time.perf_counter())
        values: dict[str, MetricRecordValues] = {"accuracy": accs[-1]}
        return MetricRecord(values)

    strategy = FedAvg(
        fraction_train=w.k / w.n_clients,
        fraction_evaluate=0.0,
        min_train_nodes=w.k,
        min_available_nodes=w.n_clients,
        train_metrics_aggr_fn=train_metrics,
    )
    train_config: dict[str, ConfigRecordValues] = {
        "data": str(data),
        "lr": w.lr,
        "threads": int(SETTINGS["threads"]),
        "seed": w.seed,
        "device": device,
    }
    strategy.start(
        grid=grid,
        initial_arrays=ArrayRecord({k: v.cpu() for k, v in model.state_dict().items()}),
        num_rounds=w.total_rounds,
        train_config=ConfigRecord(train_config),
        evaluate_fn=central,
    )
    if replies != [w.k] * w.total_rounds:
        raise RuntimeError(f"expected {w.k} replies in each round, got {replies}")
    result = {
        "round_s": [b - a for a, b in itertools.pairwise(stamps)],
        "final_acc": accs[-1],
        "initial_acc": accs[0],
    }
    Path(SETTINGS["out"]).write_text(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--num-cpus", type=float, default=1)
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    SETTINGS.update(data=args.data, out=args.out, threads=args.threads, device=args.device)
    w = read_workload(Path(args.data))
    gpus = 0.1 if args.device == "cuda" else 0.0
    resources: dict[str, ConfigRecordValues] = {"num_cpus": args.num_cpus, "num_gpus": gpus}
    init_args: dict[str, ConfigRecordValues] = {"logging_level": "ERROR", "log_to_driver": False}
    backend = {"client_resources": resources, "init_args": init_args}
    run_simulation(server_app, client_app, num_supernodes=w.n_clients, backend_config=backend)


if __name__ == "__main__":
    # The apps by their module's name, not as __main__'s: Ray's workers import them.
    from bench import peers_flower

    peers_flower.main()
