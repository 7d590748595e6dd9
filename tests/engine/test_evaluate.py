from pathlib import Path

import torch

from worker.engine.config import ModelConfig
from worker.engine.models import build_model
from worker.engine.training.evaluate import evaluate
from worker.engine.training.flat import FlatModel


def peak_rss_bytes() -> int:
    status = Path("/proc/self/status").read_text()
    return 1024 * int(next(x for x in status.splitlines() if x.startswith("VmHWM:")).split()[1])


def test_evaluating_many_batches_needs_the_memory_of_one() -> None:
    # results kept as a small tensor per batch fragmented the heap between the batches'
    # freed activations: an MLP of 2000 hidden units on 750 000 samples peaked at 10 GB
    module = build_model(ModelConfig(name="mlp", hidden=2000), (10,), 2)
    model = FlatModel(module, "classification")
    gen = torch.Generator().manual_seed(0)
    x, y = torch.randn(100_000, 10, generator=gen), torch.randint(0, 2, (100_000,), generator=gen)
    Path("/proc/self/clear_refs").write_text("5")  # the peak restarts from here
    before = peak_rss_bytes()

    result = evaluate(model, model.initial(), x, y, 2048)

    assert result.correct is not None and len(result.correct) == 100_000
    assert peak_rss_bytes() - before < 256 * 2**20  # one batch's activations: 2 x 16 MB
