"""What a model's output is trained and scored against.

- `classification`: C logits z, cross-entropy ℓ = −log softmax(z)_y; the prediction is
  argmax z.
- `binary`: one logit z for 2-class data, binary cross-entropy with logits
  ℓ = −[y·log σ(z) + (1 − y)·log(1 − σ(z))] (labels 0/1); the prediction is 1 iff z > 0.
- `regression`: one value per sample, squared error ℓ = (z − y)²; no accuracy.

The data's task decides between classification and regression; a model registered
with `ModelFacts(binary=True)` makes it binary (`models.objective`).
"""

from __future__ import annotations

from typing import Literal

from torch import Tensor
from torch.nn import functional as F

Objective = Literal["classification", "binary", "regression"]
Reduction = Literal["mean", "sum", "none"]


def loss(objective: Objective, out: Tensor, y: Tensor, reduction: Reduction = "mean") -> Tensor:
    """ℓ of the outputs `out` against the labels `y`, reduced as torch's losses are."""
    if objective == "classification":
        return F.cross_entropy(out, y, reduction=reduction)
    if objective == "binary":
        logit = out.squeeze(-1)
        return F.binary_cross_entropy_with_logits(logit, y.to(logit.dtype), reduction=reduction)
    squared = (out - y) ** 2
    if reduction == "none":
        return squared
    return squared.mean() if reduction == "mean" else squared.sum()


def correct(objective: Objective, out: Tensor, y: Tensor) -> Tensor:
    """Whether each sample's prediction is its label (classification and binary)."""
    if objective == "binary":
        return (out.squeeze(-1) > 0).to(y.dtype) == y
    return out.argmax(dim=1) == y
