import math
from pathlib import Path

import pytest
import torch
from torch import Tensor

from worker.engine import section_class
from worker.engine.components import current
from worker.engine.data.federated import byte_values
from worker.engine.loop import Simulation
from worker.engine.models import build_model
from worker.engine.overrides import build_config
from worker.engine.sections import ModelSection
from worker.engine.training.evaluate import (
    EVAL_GROUPS,
    PACK_BYTES,
    evaluate,
    evaluation_rows,
    pack,
    per_client_accuracy,
)
from worker.engine.training.flat import FlatModel

ModelConfig = section_class(current(), ModelSection)


def peak_rss_bytes() -> int:
    status = Path("/proc/self/status").read_text()
    return 1024 * int(next(x for x in status.splitlines() if x.startswith("VmHWM:")).split()[1])


def test_evaluating_many_batches_needs_the_memory_of_one() -> None:
    # results kept as a small tensor per batch fragmented the heap between the batches'
    # freed activations: an MLP of 2000 hidden units on 750 000 samples peaked at 10 GB
    module = build_model(
        ModelConfig.model_validate(dict(name="mlp", mlp={"hidden": 2000})), (10,), 2
    )
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


def test_batches_are_sized_by_the_models_activations() -> None:
    # a logistic model on 10 features makes 8 bytes a row (its two logits), the CNN's
    # first convolution 6×28×28 floats: 2.5 MB of them on a CPU, 256 MB on a GPU
    assert evaluation_rows(None, 8, on_cpu=True) == 327_680
    assert evaluation_rows(None, 18_816, on_cpu=True) == 139
    assert evaluation_rows(None, 8, on_cpu=False) == 33_554_432
    assert evaluation_rows(None, 10**9, on_cpu=True) == EVAL_GROUPS
    assert evaluation_rows(64, 8, on_cpu=True) == 64


def test_a_logistic_run_evaluates_its_test_set_in_one_batch() -> None:
    config = build_config({"model": {"name": "linear"}, "data": {"dataset": "synthetic_clustered"}})

    assert Simulation(config).eval_rows == 327_680


def identity_logits() -> tuple[FlatModel, Tensor]:
    """A logistic model on 2 features whose logits are the features: it predicts the
    class of the larger one."""
    module = build_model(ModelConfig(name="linear"), (2,), 2)
    fc = module.get_submodule("fc")
    assert isinstance(fc, torch.nn.Linear)
    with torch.no_grad():
        fc.weight.copy_(torch.eye(2))
        fc.bias.zero_()
    model = FlatModel(module, "classification")
    return model, model.initial()


def test_per_client_accuracy_is_exact_in_one_batch_and_per_client() -> None:
    # client 0: (1, 0)→0 right, (0, 1)→1 wrong: 1/2; client 1: (2, 1)→0 right,
    # (0, 3)→1 right, (5, 4)→0 wrong: 2/3; client 2 holds no test rows; client 3: 1/1
    model, theta = identity_logits()
    x = torch.tensor([[1.0, 0], [0, 1], [2, 1], [0, 3], [5, 4], [1, 2]])
    y = torch.tensor([0, 0, 0, 1, 1, 1])
    offsets = torch.tensor([0, 2, 5, 5, 6])
    expected = torch.tensor([1 / 2, 2 / 3, float("nan"), 1.0])

    whole = evaluate(model, theta, x, y, evaluation_rows(None, 8, on_cpu=True)).correct
    split = evaluate(model, theta, x, y, 1).correct
    assert whole is not None and split is not None
    one_by_one = [
        evaluate(model, theta, x[lo:hi], y[lo:hi], 1).acc if hi > lo else float("nan")
        for lo, hi in zip(offsets[:-1].tolist(), offsets[1:].tolist(), strict=True)
    ]

    torch.testing.assert_close(per_client_accuracy(whole, offsets), expected, equal_nan=True)
    torch.testing.assert_close(per_client_accuracy(split, offsets), expected, equal_nan=True)
    torch.testing.assert_close(torch.tensor(one_by_one), expected, equal_nan=True)


@pytest.mark.parametrize(("batch", "packed"), [(327_680, False), (327_680, True), (2, True)])
def test_a_softmax_regression_evaluates_its_loss_and_accuracy_by_hand(
    batch: int, packed: bool
) -> None:
    # logits = features: s0 = (0, ln 3) predicts 1, −log(3/4); s1 = (0, 0) ties and
    # predicts 0, −log(1/2); s2 = (ln 3, 0) predicts 0 against label 1, −log(1/4); the
    # same from the rows packed once, in one batch or in two (2 rows, then 1)
    model, theta = identity_logits()
    ln3 = math.log(3)
    x = torch.tensor([[0.0, ln3], [0.0, 0.0], [ln3, 0.0]])
    y = torch.tensor([1, 0, 1])
    chunks = pack(model, x, batch, None) if packed else None
    assert (chunks is not None and len(chunks) == math.ceil(3 / batch)) == packed

    result = evaluate(model, theta, x, y, batch, packed=chunks)

    assert result.correct is not None
    assert result.correct.tolist() == [1.0, 1.0, 0.0]
    assert result.acc == pytest.approx(2 / 3)
    assert result.loss == pytest.approx((math.log(4 / 3) + math.log(2) + math.log(4)) / 3)


def test_only_a_softmax_regressions_float_samples_within_the_bound_are_packed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model, _ = identity_logits()
    x = torch.zeros(5, 2)
    cnn = FlatModel(build_model(ModelConfig(name="cnn"), (1, 8, 8), 10), "classification")

    assert pack(cnn, torch.zeros(5, 1, 8, 8), 64, None) is None
    table = byte_values(1, lambda t: t.div_(255.0))
    assert pack(model, x.to(torch.uint8), 64, table) is None  # bytes: 4× as much as floats
    assert pack(model, x, 64, None) is not None
    assert PACK_BYTES == 256 << 20
    monkeypatch.setattr("worker.engine.training.evaluate.PACK_BYTES", 5 * 2 * 4 - 1)
    assert pack(model, x, 64, None) is None  # 40 bytes past a bound of 39


def test_a_run_evaluated_from_its_packed_test_set_records_what_it_would_unpacked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = build_config(
        {
            "rounds": 3,
            "model": {"name": "linear"},
            "data": {"dataset": "synthetic_clustered"},
        }
    )
    packed = Simulation(config)
    assert packed.test_packed is not None
    monkeypatch.setattr("worker.engine.training.evaluate.PACK_BYTES", 0)
    plain = Simulation(config)
    assert plain.test_packed is None

    records = [(packed.round(t), plain.round(t)) for t in range(3)]

    for a, b in records:
        assert a.metrics["test_acc"] == b.metrics["test_acc"]
        assert a.metrics["test_loss"] == pytest.approx(b.metrics["test_loss"], rel=1e-6)
