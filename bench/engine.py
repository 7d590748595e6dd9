"""vmap vs sequential local training, side by side in one run.

The setting of the target in DESIGN.md: the tutorial CNN on CIFAR-shaped inputs
(3×32×32), 100 clients per round, batch 5, 5 local steps. Both backends train the same
clients on the same batches; the script checks they agree, then times each over several
rounds (after a warm-up), interleaved, and prints the speedup as its last line. The
`vmap` backend trains this CNN through its stacked layers (`training/stacked.py`); the
same backend through `torch.func.vmap` alone is timed alongside for reference. The
process tunes its allocator as the `fedwatch` command does (`engine/allocator.py`).

`--model leaf_cnn` trains LEAF's FEMNIST CNN (1×28×28, 62 classes; 6.6 M parameters,
its 3136×2048 dense layer above all) instead, with LEAF's batch of 10 (`--batch 10`).

    python bench/engine.py [--model cnn|leaf_cnn] [--clients 100] [--rounds 9]
        [--steps 5] [--batch 5] [--plain-allocator] [--device cpu|cuda]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

from worker.engine.allocator import keep_freed_memory
from worker.engine.models import build_model
from worker.engine.overrides import build_config
from worker.engine.training.batches import batch_indices
from worker.engine.training.flat import FlatModel
from worker.engine.training.local import BACKENDS, LocalSpec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=sorted(MODELS), default="cnn")
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--batch", type=int, default=5)
    parser.add_argument("--per-client", type=int, default=50)
    parser.add_argument(
        "--plain-allocator", action="store_true", help="leave glibc's allocator as it is"
    )
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()
    device = torch.device(args.device)
    kept = not args.plain_allocator and keep_freed_memory()
    torch.manual_seed(0)

    shape, classes = MODELS[args.model]
    cfg = build_config({"model": {"name": args.model}, "data": {"dataset": "cifar10"}})
    module = build_model(cfg.model, shape, classes)
    model = FlatModel(module, "classification").to(device)
    vmap_only = VmapOnly(module, "classification").to(device)
    n = args.clients * args.per_client
    x = torch.randn(n, *shape, device=device)
    y = torch.randint(0, classes, (n,), device=device)
    starts = torch.arange(args.clients) * args.per_client
    sizes = torch.full((args.clients,), args.per_client)
    w = model.initial().to(device)

    def spec(seed: int) -> LocalSpec:
        gen = torch.Generator().manual_seed(seed)
        batches = batch_indices(starts, sizes, args.steps, "steps", args.batch, gen)
        return LocalSpec(w=w, batches=batches.rows.to(device), mask=batches.mask, lr=0.01)

    check = spec(0)
    d_vmap, _ = BACKENDS["vmap"](model, x, y, check)
    d_seq, _ = BACKENDS["sequential"](model, x, y, check)
    gap = float((d_vmap - d_seq).abs().max())
    allocator = "freed blocks kept" if kept else "as it is"
    threads = torch.get_num_threads()
    print(f"model: {args.model}, {model.dim} parameters; device {device}; threads {threads}")
    print(f"allocator: {allocator}")
    print(f"{args.clients} clients x {args.steps} steps x batch {args.batch}")
    print(f"max |Δ_vmap − Δ_seq| = {gap:.2e}")

    runs = {
        "vmap": (model, BACKENDS["vmap"]),
        "torch.func.vmap": (vmap_only, BACKENDS["vmap"]),
        "sequential": (model, BACKENDS["sequential"]),
    }
    times: dict[str, list[float]] = {name: [] for name in runs}
    for r in range(args.rounds + 1):  # round 0 warms up
        for name, (m, train) in runs.items():  # interleaved: all see the same machine load
            s = spec(r + 1)
            sync(device)
            t0 = time.perf_counter()
            train(m, x, y, s)
            sync(device)
            if r:
                times[name].append(time.perf_counter() - t0)
    median = {name: statistics.median(values) for name, values in times.items()}
    for name, med in median.items():
        rate = args.clients / med
        print(f"{name:>16}: median {med * 1000:8.1f} ms/round  ({rate:7.1f} client-updates/s)")
    print(f"torch.func.vmap/sequential: {median['sequential'] / median['torch.func.vmap']:.2f}")
    print(f"vmap/sequential speedup: {median['sequential'] / median['vmap']:.2f}")


MODELS = {"cnn": ((3, 32, 32), 10), "leaf_cnn": ((1, 28, 28), 62)}  # input shape, classes


class VmapOnly(FlatModel):
    """The model without its stacked form: the `vmap` backend then uses torch.func.vmap."""

    def stacked(self, sample_shape: tuple[int, ...]) -> None:
        return None


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


if __name__ == "__main__":
    main()
