"""Images held as their bytes with a (C, 256) byte table (`FederatedData.x_values`): the
table of each normalisation by hand, and every byte giving the float32 that converting
the images up front gave (torchvision pools, digits, Hugging Face images)."""

from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import Tensor

from tests.engine.test_data import DataConfig, write_tiny_mnist
from worker.engine.data import load_data
from worker.engine.data.federated import byte_values, converted, inputs
from worker.engine.data.vision import pool_values, sixteenths, standardized, unit_scaled

BYTES = [0, 51, 255]


def table(channels: int, convert: Callable[[Tensor], Tensor] | None = None) -> Tensor:
    """A pool's table in [-1, 1], then `convert` (a normalisation) where given."""
    values = pool_values(torch.zeros(1, channels, 1, 1, dtype=torch.uint8))
    return values if convert is None else converted(values, convert)


def test_each_normalisation_s_table_by_hand() -> None:
    symmetric, unit = table(1), table(1, unit_scaled)
    mnist, cifar = (
        table(1, partial(standardized, "mnist")),
        table(3, partial(standardized, "cifar10")),
    )

    assert symmetric.shape == (1, 256) and cifar.shape == (3, 256)
    assert symmetric[0, BYTES].tolist() == [-1.0, np.float32(-0.6), 1.0]  # 51/127.5 − 1
    assert unit[0, BYTES].tolist() == [0.0, np.float32(0.2), 1.0]  # 51/255
    # (k/255 − 0.1307)/0.3081
    np.testing.assert_allclose(mnist[0, BYTES], [-0.4242129, 0.2249270, 2.8214865], rtol=1e-6)
    # channels 0 and 2 of CIFAR-10: (k/255 − 0.4914)/0.2023, (k/255 − 0.4465)/0.2010
    np.testing.assert_allclose(cifar[0, BYTES], [-2.4290657, -1.4404350, 2.5140880], rtol=1e-6)
    np.testing.assert_allclose(cifar[2, BYTES], [-2.2213930, -1.2263682, 2.7537313], rtol=1e-6)
    digits = byte_values(1, sixteenths)
    assert digits[0, [0, 8, 16]].tolist() == [0.0, 0.5, 1.0]


def test_each_channel_reads_its_own_row() -> None:
    values = byte_values(3, lambda t: t.add_(torch.tensor([0.0, 1000.0, 2000.0]).view(-1, 1, 1)))
    x = torch.tensor([[[[1, 2]], [[3, 4]], [[5, 255]]]], dtype=torch.uint8)  # (1, 3, 1, 2)

    out = inputs(x, values)

    assert out.tolist() == [[[[1, 2]], [[1003, 1004]], [[2005, 2255]]]]
    # a gathered (K, B, C, H, W) block: the channels are still the third dimension from last
    block = inputs(x.expand(2, 4, 3, 1, 2), values)
    assert block.shape == (2, 4, 3, 1, 2) and torch.equal(block[1, 3], out[0])


def old_pool(x: Tensor) -> Tensor:
    """How the torchvision loader held a pool's images before: float32 in [-1, 1]."""
    return x.float().div_(127.5).sub_(1.0)


NORMALISATIONS: dict[str, Callable[[Tensor], Tensor] | None] = {
    "symmetric": None,
    "unit": unit_scaled,
    "standard mnist": partial(standardized, "mnist"),
    "standard cifar10": partial(standardized, "cifar10"),
    "standard cifar100": partial(standardized, "cifar100"),
}


@pytest.mark.parametrize("name", sorted(NORMALISATIONS))
def test_every_byte_of_every_channel_is_the_old_up_front_float(name: str) -> None:
    convert = NORMALISATIONS[name]
    channels = 3 if "cifar" in name else 1
    every = torch.arange(256, dtype=torch.uint8).view(1, 1, 16, 16).expand(4, channels, 16, 16)
    drawn = torch.randint(0, 256, (5, channels, 7, 9), generator=torch.Generator().manual_seed(0))
    for images in (every.contiguous(), drawn.to(torch.uint8)):
        up_front = old_pool(images) if convert is None else convert(old_pool(images))

        held = inputs(images, table(channels, convert))

        assert held.dtype == torch.float32 and torch.equal(held, up_front)


def test_hugging_face_images_bytes_are_their_old_floats() -> None:
    k = np.arange(256, dtype=np.uint8).reshape(1, 1, 16, 16).repeat(3, axis=1)
    up_front = torch.as_tensor(k.astype(np.float32) / 127.5 - 1.0)  # `samples`' old floats

    assert torch.equal(inputs(torch.from_numpy(k), pool_values(torch.from_numpy(k))), up_front)


@pytest.mark.parametrize("normalization", ["symmetric", "unit", "standard"])
def test_mnist_is_held_as_bytes_giving_the_old_floats(tmp_path: Path, normalization: str) -> None:
    write_tiny_mnist(tmp_path, n_train=30, n_test=10)
    cfg = DataConfig(dataset="mnist", root=str(tmp_path), n_clients=3, normalization=normalization)
    convert = NORMALISATIONS["standard mnist" if normalization == "standard" else normalization]

    data = load_data(cfg, seed=0)

    assert data.x_train.dtype == torch.uint8 and data.x_test.dtype == torch.uint8
    for x in (data.x_train, data.x_test):
        up_front = old_pool(x) if convert is None else convert(old_pool(x))
        assert torch.equal(data.inputs(x), up_front)


def test_digits_are_held_as_bytes_giving_the_old_sixteenths() -> None:
    data = load_data(DataConfig(dataset="digits", n_clients=4), seed=0)

    assert data.x_train.dtype == torch.uint8 and int(data.x_train.max()) == 16
    for x in (data.x_train, data.x_test):
        up_front = torch.as_tensor(x.numpy() / 16.0, dtype=torch.float32)  # the old loader's
        assert torch.equal(data.inputs(x), up_front)
    moved = data.to(torch.device("cpu"))
    assert moved.x_values is not None and data.x_values is not None
    assert torch.equal(moved.x_values, data.x_values)
