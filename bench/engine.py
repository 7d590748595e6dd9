"""vmap vs sequential local training, side by side in one run.

The setting of the target in DESIGN.md: the tutorial CNN on CIFAR-shaped inputs
(3×32×32), 100 clients per round, batch 5, 5 local steps. Both backends train the same
clients on the same batches; the script checks they agree, then times each over several
rounds (after a warm-up) and prints the speedup as its last line.

    python bench/engine.py [--clients 100] [--rounds 5] [--device cpu|cuda]
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from torch import nn
from torch.nn import functional as F

from worker.engine.models import build_model
from worker.engine.overrides import build_config
from worker.engine.training.batches import batch_indices
from worker.engine.training.flat import FlatModel
from worker.engine.training.local import BACKENDS, LocalSpec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--batch", type=int, default=5)
    parser.add_argument("--per-client", type=int, default=50)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()
    device = torch.device(args.device)
    torch.manual_seed(0)

    cfg = build_config({"model": {"name": "cnn"}, "data": {"dataset": "cifar10"}})
    module = build_model(cfg.model, (3, 32, 32), 10)
    model = FlatModel(module, "classification").to(device)
    n = args.clients * args.per_client
    x = torch.randn(n, 3, 32, 32, device=device)
    y = torch.randint(0, 10, (n,), device=device)
    starts = torch.arange(args.clients) * args.per_client
    sizes = torch.full((args.clients,), args.per_client)
    w = model.initial().to(device)

    def spec(seed: int) -> LocalSpec:
        gen = torch.Generator().manual_seed(seed)
        rows, mask = batch_indices(starts, sizes, args.steps, "steps", args.batch, gen)
        return LocalSpec(w=w, batches=rows.to(device), mask=mask, lr=0.01)

    check = spec(0)
    d_vmap, _ = BACKENDS["vmap"](model, x, y, check)
    d_seq, _ = BACKENDS["sequential"](model, x, y, check)
    gap = float((d_vmap - d_seq).abs().max())
    print(f"model: cnn, {model.dim} parameters; device {device}; threads {torch.get_num_threads()}")
    print(f"{args.clients} clients x {args.steps} steps x batch {args.batch}")
    print(f"max |Δ_vmap − Δ_seq| = {gap:.2e}")

    times: dict[str, list[float]] = {"vmap": [], "sequential": []}
    for r in range(args.rounds):
        for name in ("vmap", "sequential"):  # interleaved, so both see the same machine load
            s = spec(r + 1)
            sync(device)
            t0 = time.perf_counter()
            BACKENDS[name](model, x, y, s)
            sync(device)
            times[name].append(time.perf_counter() - t0)
    for name, values in times.items():
        med = statistics.median(values)
        rate = args.clients / med
        print(f"{name:>10}: median {med * 1000:8.1f} ms/round  ({rate:7.1f} client-updates/s)")
    floor = conv_floor(module, x[: args.batch], args.clients, device)
    ceiling = statistics.median(times["sequential"]) / (args.steps * floor)
    print(
        f"convolutions alone, as vmap runs them: {args.steps * floor * 1000:.1f} ms/round "
        f"(so vmap/sequential cannot exceed {ceiling:.2f})"
    )
    speedup = statistics.median(times["sequential"]) / statistics.median(times["vmap"])
    print(f"vmap/sequential speedup: {speedup:.2f}")


def conv_floor(module: nn.Module, batch: torch.Tensor, clients: int, device: torch.device) -> float:
    """Seconds per local step spent in the model's convolutions alone when `clients`
    clients with their own weights run at once, as vmap batches them (one grouped
    convolution per layer): forward, weight gradient, and input gradient where the
    input is not the data. Median of 20 after a warm-up."""
    shapes: list[tuple[nn.Conv2d, tuple[int, ...]]] = []
    hooks = [
        m.register_forward_hook(lambda m, inp, out: shapes.append((m, tuple(inp[0].shape))))
        for m in module.modules()
        if isinstance(m, nn.Conv2d)
    ]
    with torch.no_grad():
        module(batch)
    for hook in hooks:
        hook.remove()
    b, k = batch.shape[0], clients
    layers = []
    for i, (conv, (_, c, height, width)) in enumerate(shapes):
        o = conv.out_channels
        x = torch.randn(b, k * c, height, width, device=device)
        weight = torch.randn(k * o, c, *conv.kernel_size, device=device)
        out = F.conv2d(x, weight, None, conv.stride, conv.padding, conv.dilation, k)
        layers.append((conv, x, weight, torch.randn_like(out), i > 0))

    def step() -> None:
        for conv, x, weight, grad, needs_input in layers:
            F.conv2d(x, weight, None, conv.stride, conv.padding, conv.dilation, k)
            torch.ops.aten.convolution_backward(
                grad, x, weight, [weight.shape[0]], list(conv.stride), list(conv.padding),
                list(conv.dilation), False, [0, 0], k, [needs_input, True, True],
            )  # fmt: skip
        sync(device)

    step()
    samples = []
    for _ in range(20):
        started = time.perf_counter()
        step()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


if __name__ == "__main__":
    main()
