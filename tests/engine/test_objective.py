"""Losses and predictions of a model's outputs, in either memory layout."""

import math

import pytest
import torch
from torch.nn import functional as F
from torch.testing import assert_close

from worker.engine.training.objective import class_major, correct, loss


def class_major_logits(rows: list[list[float]]) -> torch.Tensor:
    """(n, C) logits laid out as a softmax regression lays them: the transpose of a
    contiguous (C, n)."""
    return torch.tensor(rows).t().contiguous().t()


def test_class_major_is_the_transpose_of_a_contiguous_tensor() -> None:
    assert class_major(class_major_logits([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]))
    assert not class_major(torch.zeros(3, 2))  # rows: torch's own layout
    assert not class_major(torch.zeros(3, 1))  # one logit a sample (binary)
    assert not class_major(torch.zeros(3))


@pytest.mark.parametrize(
    ("reduction", "expected"),
    [
        # s0 = (0, ln 3), label 0: −log(1/4); s1 = (0, 0), label 1: −log(1/2)
        ("none", torch.tensor([math.log(4), math.log(2)])),
        ("sum", torch.tensor(math.log(8))),
        ("mean", torch.tensor(math.log(8) / 2)),
    ],
)
def test_class_major_cross_entropy_by_hand(reduction: str, expected: torch.Tensor) -> None:
    out = class_major_logits([[0.0, math.log(3)], [0.0, 0.0]])
    y = torch.tensor([0, 1])

    got = loss("classification", out, y, reduction)  # type: ignore[arg-type]

    assert_close(got, expected)
    assert_close(got, F.cross_entropy(out.contiguous(), y, reduction=reduction))


def test_one_sample_and_many_agree_with_torchs_cross_entropy() -> None:
    gen = torch.Generator().manual_seed(0)
    rows = torch.randn(500, 10, generator=gen) * 5
    y = torch.randint(0, 10, (500,), generator=gen)
    out = rows.t().contiguous().t()
    one = rows[:1].clone()  # (1, C): its own transpose is contiguous too

    assert_close(loss("classification", out, y, "sum"), F.cross_entropy(rows, y, reduction="sum"))
    assert_close(loss("classification", one, y[:1]), F.cross_entropy(rows[:1], y[:1]))


def test_a_class_major_prediction_takes_the_first_of_tied_maxima() -> None:
    # s0 = (0, 2) predicts 1; s1 = (1, 1) ties and predicts 0, as argmax does
    out = class_major_logits([[0.0, 2.0], [1.0, 1.0]])

    assert correct("classification", out, torch.tensor([1, 1])).tolist() == [True, False]
    assert correct("classification", out, torch.tensor([1, 0])).tolist() == [True, True]
