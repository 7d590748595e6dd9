"""Model architectures of the papers, sized from the dataset's input shape."""

from __future__ import annotations

import math
from typing import Any

import torch
from pydantic import Field
from torch import Tensor, nn

from worker.engine.errors import ConfigError
from worker.engine.facts import ModelFacts
from worker.engine.params import Params
from worker.engine.registry import model
from worker.engine.sections import ModelSection

IMAGES = ModelFacts(inputs=("image",))


class Scalar(nn.Module):
    """One parameter x; predicts x for every sample (FedLaAvg Example 1)."""

    def __init__(self, init: float) -> None:
        super().__init__()
        self.x = nn.Parameter(torch.tensor([init]))

    def forward(self, inputs: Tensor) -> Tensor:
        return self.x.expand(inputs.shape[0])


class Linear(nn.Module):
    """An affine map of the flattened input: softmax regression's logits, or with one
    output the logit of logistic regression."""

    def __init__(self, in_features: int, n_classes: int) -> None:
        super().__init__()
        self.fc = nn.Linear(in_features, n_classes)

    def forward(self, inputs: Tensor) -> Tensor:
        return self.fc(inputs.flatten(1))


class Mlp(nn.Module):
    def __init__(self, in_features: int, hidden: int, n_classes: int) -> None:
        super().__init__()
        self.net = nn.Sequential(
            nn.Flatten(), nn.Linear(in_features, hidden), nn.ReLU(), nn.Linear(hidden, n_classes)
        )

    def forward(self, inputs: Tensor) -> Tensor:
        return self.net(inputs)


class TutorialCnn(nn.Module):
    """The PyTorch-tutorial CNN (two conv + three FC; ≈62k parameters on CIFAR-10).

    `pad1`, `pad2` pad the two 5x5 convolutions (2 keeps the spatial size, so small
    images such as 8x8 digits still fit).
    """

    def __init__(self, channels: int, size: int, n_classes: int, pad1: int, pad2: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, 6, 5, padding=pad1)
        self.conv2 = nn.Conv2d(6, 16, 5, padding=pad2)
        self.pool = nn.MaxPool2d(2, 2)
        s = (size + 2 * pad1 - 4) // 2
        s = (s + 2 * pad2 - 4) // 2
        self.fc1 = nn.Linear(16 * s * s, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, n_classes)

    def forward(self, inputs: Tensor) -> Tensor:
        h = self.pool(torch.relu(self.conv1(inputs)))
        h = self.pool(torch.relu(self.conv2(h)))
        h = torch.relu(self.fc1(h.flatten(1)))
        return self.fc3(torch.relu(self.fc2(h)))


def cnn(shape: tuple[int, ...], n_classes: int) -> nn.Module:
    channels, size = shape[0], shape[1]
    pad = 0 if size >= 20 else 2
    return TutorialCnn(channels, size, n_classes, pad1=pad, pad2=pad)


def lenet5(shape: tuple[int, ...], n_classes: int) -> nn.Module:
    """LeNet-5 with a same-padded first convolution (28x28 and 32x32 inputs alike)."""
    channels, size = shape[0], shape[1]
    return TutorialCnn(channels, size, n_classes, pad1=2, pad2=0 if size >= 20 else 2)


def features(shape: tuple[int, ...]) -> int:
    return math.prod(shape)


def image_shape(name: str, shape: tuple[int, ...]) -> tuple[int, ...]:
    if len(shape) != 3:
        raise ConfigError(f"model.name: {name} needs image inputs, got shape {shape}")
    return shape


class ScalarParams(Params):
    init: float = Field(0.0, description="Initial value x₀.")


class MlpParams(Params):
    hidden: int = Field(64, ge=1, description="Hidden units.")


@model(
    "scalar",
    facts=ModelFacts(inputs=("regression",)),
    params=ScalarParams,
    label="scalar x (Example 1)",
)
def scalar(
    params: ScalarParams, cfg: ModelSection, shape: tuple[int, ...], n_classes: int
) -> nn.Module:
    return Scalar(params.init)


@model("linear", label="linear (softmax)")
def linear(params: Any, cfg: ModelSection, shape: tuple[int, ...], n_classes: int) -> nn.Module:
    return Linear(features(shape), n_classes)


@model("logistic", facts=ModelFacts(binary=True), label="logistic (one logit, 2 classes)")
def logistic(params: Any, cfg: ModelSection, shape: tuple[int, ...], n_classes: int) -> nn.Module:
    """`nn.Linear(features, 1)` on the flattened input: the logit z of class 1 (its
    initial weights are those `nn.Linear(features, 1)` draws, as CA-Fed's model)."""
    return Linear(features(shape), 1)


@model("mlp", params=MlpParams, label="MLP")
def mlp(params: MlpParams, cfg: ModelSection, shape: tuple[int, ...], n_classes: int) -> nn.Module:
    return Mlp(features(shape), params.hidden, n_classes)


@model("cnn", facts=IMAGES, label="CNN (PyTorch tutorial)")
def tutorial_cnn(
    params: Any, cfg: ModelSection, shape: tuple[int, ...], n_classes: int
) -> nn.Module:
    return cnn(image_shape("cnn", shape), n_classes)


@model("lenet5", facts=IMAGES, label="LeNet-5")
def lenet(params: Any, cfg: ModelSection, shape: tuple[int, ...], n_classes: int) -> nn.Module:
    return lenet5(image_shape("lenet5", shape), n_classes)


class LeafCnn(nn.Module):
    """LEAF's FEMNIST CNN (Caldas et al. 2018, `models/femnist/cnn.py`): two 5×5
    same-padded convolutions of 32 and 64 channels, each with ReLU and 2×2 max-pooling,
    a dense layer of 2048 units, and the class logits (6 603 710 parameters on FEMNIST)."""

    def __init__(self, channels: int, size: int, n_classes: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, 32, 5, padding=2)
        self.conv2 = nn.Conv2d(32, 64, 5, padding=2)
        self.pool = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Linear(64 * (size // 4) ** 2, 2048)
        self.fc2 = nn.Linear(2048, n_classes)

    def forward(self, inputs: Tensor) -> Tensor:
        h = self.pool(torch.relu(self.conv1(inputs)))
        h = self.pool(torch.relu(self.conv2(h)))
        return self.fc2(torch.relu(self.fc1(h.flatten(1))))


@model("leaf_cnn", facts=IMAGES, label="LEAF's FEMNIST CNN")
def leaf_cnn(params: Any, cfg: ModelSection, shape: tuple[int, ...], n_classes: int) -> nn.Module:
    channels, size = image_shape("leaf_cnn", shape)[:2]
    return LeafCnn(channels, size, n_classes)
