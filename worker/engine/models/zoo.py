"""Model architectures of the papers, sized from the dataset's input shape."""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn


class Scalar(nn.Module):
    """One parameter x; predicts x for every sample (FedLaAvg Example 1)."""

    def __init__(self, init: float) -> None:
        super().__init__()
        self.x = nn.Parameter(torch.tensor([init]))

    def forward(self, inputs: Tensor) -> Tensor:
        return self.x.expand(inputs.shape[0])


class Linear(nn.Module):
    """Logistic / softmax regression on the flattened input."""

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

    With `pad` (images smaller than 20 pixels, e.g. 8x8 digits) the convolutions keep
    the spatial size so the network still fits.
    """

    def __init__(self, channels: int, size: int, n_classes: int, pad: int, widths: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, 6, 5, padding=pad)
        self.conv2 = nn.Conv2d(6, 16, 5, padding=0 if pad == 0 else 2)
        self.pool = nn.MaxPool2d(2, 2)
        s = (size + 2 * pad - 4) // 2
        s = (s - (4 if pad == 0 else 0)) // 2
        self.fc1 = nn.Linear(16 * s * s, widths)
        self.fc2 = nn.Linear(widths, 84)
        self.fc3 = nn.Linear(84, n_classes)

    def forward(self, inputs: Tensor) -> Tensor:
        h = self.pool(torch.relu(self.conv1(inputs)))
        h = self.pool(torch.relu(self.conv2(h)))
        h = torch.relu(self.fc1(h.flatten(1)))
        return self.fc3(torch.relu(self.fc2(h)))


def cnn(shape: tuple[int, ...], n_classes: int) -> nn.Module:
    channels, size = shape[0], shape[1]
    return TutorialCnn(channels, size, n_classes, pad=0 if size >= 20 else 2, widths=120)


def lenet5(shape: tuple[int, ...], n_classes: int) -> nn.Module:
    """LeNet-5 with a same-padded first convolution (28x28 and 32x32 inputs alike)."""
    channels, size = shape[0], shape[1]
    model = TutorialCnn(channels, size, n_classes, pad=2, widths=120)
    if size >= 20:
        model.conv2 = nn.Conv2d(6, 16, 5)
        s = ((size // 2) - 4) // 2
        model.fc1 = nn.Linear(16 * s * s, 120)
    return model


def features(shape: tuple[int, ...]) -> int:
    return math.prod(shape)
