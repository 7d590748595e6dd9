"""Global-model evaluation: test loss/accuracy overall and per client test split."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from worker.engine.training.flat import FlatModel


@dataclass
class Evaluation:
    loss: float
    acc: float | None
    correct: Tensor | None  # (n_test,) 1.0 where the prediction is right


@torch.no_grad()
def evaluate(model: FlatModel, theta: Tensor, x: Tensor, y: Tensor, batch: int) -> Evaluation:
    was_training = model.module.training
    model.module.eval()
    losses, hits = [], []
    for lo in range(0, len(y), batch):
        out = model.forward(theta, x[lo : lo + batch])
        yb = y[lo : lo + batch]
        if model.task == "regression":
            losses.append(((out - yb) ** 2).sum())
        else:
            losses.append(torch.nn.functional.cross_entropy(out, yb, reduction="sum"))
            hits.append((out.argmax(dim=1) == yb).float())
    model.module.train(was_training)
    loss = float(torch.stack(losses).sum()) / len(y)
    if not hits:
        return Evaluation(loss, None, None)
    correct = torch.cat(hits)
    return Evaluation(loss, float(correct.mean()), correct)


def per_client_accuracy(correct: Tensor, test_offsets: Tensor) -> Tensor:
    """Accuracy on each client's test split (NaN for a client with no test rows)."""
    n_owned = int(test_offsets[-1])
    counts = test_offsets.diff().to(correct.device)
    owner = torch.repeat_interleave(torch.arange(len(counts), device=correct.device), counts)
    sums = torch.zeros(len(counts), device=correct.device).index_add_(0, owner, correct[:n_owned])
    return (sums / counts.clamp(min=1)).masked_fill(counts == 0, float("nan")).cpu()
