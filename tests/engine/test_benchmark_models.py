"""The field's benchmark models: LEAF's CNN and LSTM, ResNet-20 with group norm, and the
transformer classifier: their shapes, and the vmap backend equal to the sequential one."""

import pytest
import torch
from torch.testing import assert_close

from worker.engine import build_config, section_class
from worker.engine.components import current
from worker.engine.models import build_model, has_buffers, recurrent
from worker.engine.sections import ModelSection
from worker.engine.training.backend import resolve_backend
from worker.engine.training.batches import batch_indices
from worker.engine.training.flat import FlatModel
from worker.engine.training.local import LocalSpec, train_sequential, train_vmap

ModelConfig = section_class(current(), ModelSection)

# name, sample shape, classes, parameters (LEAF's CNN: 832 + 51 264 + 6 424 576 + 127 038)
MODELS = [
    ("leaf_cnn", (1, 28, 28), 62, 6_603_710),
    ("resnet20", (3, 32, 32), 100, 278_324),
    ("leaf_lstm", (80,), 80, 819_920),
    ("sent140_lstm", (25,), 2, 1_174_886),
    ("transformer", (80,), 80, 82_512),
]


def inputs(shape: tuple[int, ...], rows: int, gen: torch.Generator) -> torch.Tensor:
    """Images in [0, 1], or token ids as bytes (as LEAF's Shakespeare holds them)."""
    if len(shape) == 1:
        return torch.randint(0, 80, (rows, *shape), generator=gen, dtype=torch.uint8)
    return torch.rand(rows, *shape, generator=gen)


@pytest.mark.parametrize(("name", "shape", "n_classes", "n_params"), MODELS)
def test_output_shape_and_size(
    name: str, shape: tuple[int, ...], n_classes: int, n_params: int
) -> None:
    model = build_model(ModelConfig(name=name), shape, n_classes)

    out = model(inputs(shape, 3, torch.Generator().manual_seed(0)))

    assert out.shape == (3, n_classes)
    assert sum(p.numel() for p in model.parameters()) == n_params
    assert not has_buffers(model)


def test_lstm_parameters_by_hand() -> None:
    # embedding 80×8; LSTM layer 1: 4·256·(8 + 256) + 2·4·256; layer 2: 4·256·(256 + 256)
    # + 2·4·256; dense 256·80 + 80
    expected = 80 * 8 + (4 * 256 * 264 + 2048) + (4 * 256 * 512 + 2048) + 256 * 80 + 80

    model = build_model(ModelConfig(name="leaf_lstm"), (80,), 80)

    assert sum(p.numel() for p in model.parameters()) == expected == 819_920


def test_sent140_lstm_parameters_by_hand() -> None:
    # embedding 10 001×100; each LSTM layer 4·100·(100 + 100) + 2·4·100; dense 100·128 +
    # 128; logits 128·2 + 2
    expected = 10_001 * 100 + 2 * (4 * 100 * 200 + 800) + (100 * 128 + 128) + (128 * 2 + 2)

    model = build_model(ModelConfig(name="sent140_lstm"), (25,), 2)
    out = model(torch.tensor([[0, 10_000, 42] + [10_000] * 22]))

    assert sum(p.numel() for p in model.parameters()) == expected == 1_174_886
    assert out.shape == (1, 2)


# Each model at a small size (short sequences, small images, narrow layers), so that
# the comparison is quick; the layers are the same.
SMALL = [
    ("leaf_cnn", {}, (1, 8, 8), 62),
    ("resnet20", {"groups": 4}, (3, 8, 8), 10),
    ("leaf_lstm", {"hidden": 16}, (12,), 80),
    ("sent140_lstm", {"vocabulary": 80, "hidden": 8, "dense": 8}, (12,), 2),
    ("transformer", {"width": 16, "heads": 2, "feedforward": 32}, (12,), 80),
]


@pytest.mark.parametrize(("name", "params", "shape", "n_classes"), SMALL)
def test_vmap_equals_sequential(
    name: str, params: dict, shape: tuple[int, ...], n_classes: int
) -> None:
    gen = torch.Generator().manual_seed(1)
    x = inputs(shape, 24, gen)
    y = torch.randint(0, n_classes, (24,), generator=gen)
    cfg = ModelConfig.model_validate({"name": name, **({name: params} if params else {})})
    # one initialisation: under some (6 of 30 seeds) the small ResNet's group norms, over
    # 2×2 maps, amplify the two backends' float rounding past the tolerance in a step
    torch.manual_seed(0)
    model = FlatModel(build_model(cfg, shape, n_classes), "classification")
    clients = torch.tensor([0, 8, 16])
    batches = batch_indices(clients, torch.tensor([8, 8, 5]), 2, "epochs", 4, gen)
    spec = LocalSpec(
        w=model.initial(),
        batches=batches.rows,
        mask=batches.mask,
        real=batches.real,
        lr=0.05,
        momentum=0.9,
        weight_decay=1e-3,
    )

    d_vmap, l_vmap = train_vmap(model, x, y, spec)
    d_seq, l_seq = train_sequential(model, x, y, spec)

    assert_close(d_vmap, d_seq, atol=1e-5, rtol=1e-4)
    assert_close(l_vmap, l_seq, atol=1e-5, rtol=1e-4)
    assert float(d_vmap.abs().sum()) > 0


def test_the_cnn_runs_stacked_and_the_others_through_torch_func() -> None:
    stacked = {
        name: FlatModel(build_model(ModelConfig(name=name), shape, n), "classification").stacked(
            shape
        )
        is not None
        for name, shape, n, _ in MODELS
    }

    assert stacked == {
        "leaf_cnn": True, "resnet20": False, "leaf_lstm": False, "sent140_lstm": False,
        "transformer": False,
    }  # fmt: skip


def test_auto_backend_trains_the_lstm_and_the_large_cnn_sequentially() -> None:
    lstm = build_model(ModelConfig(name="leaf_lstm"), (80,), 80)
    sent140 = build_model(ModelConfig(name="sent140_lstm"), (25,), 2)
    leaf_cnn = build_model(ModelConfig(name="leaf_cnn"), (1, 28, 28), 62)  # 6.6 M
    # its dense layer on 12×12 inputs is 64·3·3 → 2048 (1.36 M in all), on 8×8 64·2·2
    above = build_model(ModelConfig(name="leaf_cnn"), (1, 12, 12), 62)
    below = build_model(ModelConfig(name="leaf_cnn"), (1, 8, 8), 62)  # 705 470
    cnn = build_model(ModelConfig(name="cnn"), (3, 32, 32), 10)  # 62 006

    assert recurrent(lstm) and recurrent(sent140) and not recurrent(leaf_cnn)
    assert resolve_backend("auto", sent140) == "sequential"
    assert resolve_backend("auto", lstm) == "sequential"
    assert resolve_backend("auto", leaf_cnn) == "sequential"
    assert resolve_backend("auto", above) == "sequential"
    assert resolve_backend("auto", below) == "vmap"
    assert resolve_backend("auto", cnn) == "vmap"
    assert resolve_backend("vmap", lstm) == "vmap"  # through torch.func's fallback
    assert resolve_backend("vmap", leaf_cnn) == "vmap"  # asked for: its stacked layers


def test_a_transformer_whose_heads_do_not_divide_its_width_is_refused() -> None:
    with pytest.raises(ValueError, match=r"model\.transformer.*3 heads do not divide the width"):
        build_config({"model": {"name": "transformer", "transformer": {"heads": 3}}}, [])


def test_text_models_refuse_image_data() -> None:
    with pytest.raises(ValueError, match=r"model\.name: leaf_lstm needs text data; digits is"):
        build_config({"data": {"dataset": "digits"}, "model": {"name": "leaf_lstm"}}, [])
