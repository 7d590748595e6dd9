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


def test_the_stacked_evaluation_agrees_with_the_plain_model() -> None:
    # the CNN evaluates through its stacked form, as 8 copies on an eighth of the rows
    # each; 37 rows in batches of 16 leave a last batch of 5, padded to 8
    module = build_model(ModelConfig(name="cnn"), (1, 8, 8), 10)
    model = FlatModel(module, "classification")
    assert model.stacked((1, 8, 8)) is not None
    gen = torch.Generator().manual_seed(0)
    theta = model.initial() + 0.1 * torch.randn(model.dim, generator=gen)
    x, y = torch.randn(37, 1, 8, 8, generator=gen), torch.randint(0, 10, (37,), generator=gen)
    with torch.no_grad():
        out = model.forward(theta, x)
    expected_correct = (out.argmax(dim=1) == y).float()

    result = evaluate(model, theta, x, y, 16)

    assert result.correct is not None
    torch.testing.assert_close(result.correct, expected_correct)
    assert result.acc == float(expected_correct.mean())
    expected_loss = torch.nn.functional.cross_entropy(out, y).item()
    assert abs(result.loss - expected_loss) < 1e-6
