"""ResNets for 32x32 images. ResNet-18 (SVHN, CIFAR): 3x3 stem without max-pooling, four
stages of two basic blocks, batch norm; its buffers make `backend: auto` pick
`sequential`. ResNet-20 (CIFAR) with group norm: no buffers, so it trains on `vmap`."""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator
from torch import Tensor, nn
from torch.nn import functional as F

from worker.engine.models.zoo import IMAGES, image_shape
from worker.engine.params import Params
from worker.engine.registry import model
from worker.engine.sections import ModelSection


class BasicBlock(nn.Module):
    def __init__(self, c_in: int, c_out: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(c_out)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(c_out)
        self.shortcut = nn.Sequential()
        if stride != 1 or c_in != c_out:
            self.shortcut = nn.Sequential(
                nn.Conv2d(c_in, c_out, 1, stride, bias=False), nn.BatchNorm2d(c_out)
            )

    def forward(self, x: Tensor) -> Tensor:
        h = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(h)) + self.shortcut(x))


class ResNet18(nn.Module):
    def __init__(self, channels: int, n_classes: int, width: int = 64) -> None:
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(channels, width, 3, 1, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU()
        )
        blocks: list[nn.Module] = []
        c_in = width
        for stage, c_out in enumerate((width, 2 * width, 4 * width, 8 * width)):
            stride = 1 if stage == 0 else 2
            blocks += [BasicBlock(c_in, c_out, stride), BasicBlock(c_out, c_out, 1)]
            c_in = c_out
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(c_in, n_classes)

    def forward(self, x: Tensor) -> Tensor:
        h = self.blocks(self.stem(x))
        return self.fc(F.adaptive_avg_pool2d(h, 1).flatten(1))


def resnet18(shape: tuple[int, ...], n_classes: int) -> nn.Module:
    return ResNet18(shape[0], n_classes)


@model("resnet18", facts=IMAGES, label="ResNet-18")
def build_resnet18(
    params: Any, cfg: ModelSection, shape: tuple[int, ...], n_classes: int
) -> nn.Module:
    return resnet18(image_shape("resnet18", shape), n_classes)


class GroupNormBlock(nn.Module):
    """A basic block with group norm in place of batch norm."""

    def __init__(self, c_in: int, c_out: int, stride: int, groups: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False)
        self.gn1 = nn.GroupNorm(groups, c_out)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False)
        self.gn2 = nn.GroupNorm(groups, c_out)
        self.shortcut = nn.Sequential()
        if stride != 1 or c_in != c_out:
            self.shortcut = nn.Sequential(
                nn.Conv2d(c_in, c_out, 1, stride, bias=False), nn.GroupNorm(groups, c_out)
            )

    def forward(self, x: Tensor) -> Tensor:
        h = F.relu(self.gn1(self.conv1(x)))
        return F.relu(self.gn2(self.conv2(h)) + self.shortcut(x))


class ResNet20(nn.Module):
    """He et al.'s ResNet-20 for CIFAR (3×3 stem of 16 channels, three stages of three
    basic blocks at 16, 32, 64 channels, global average pooling), with group norm, as
    Hsieh et al. (2020) use it for non-iid federated training: no running statistics,
    so nothing about a client's batches is averaged into the model."""

    def __init__(self, channels: int, n_classes: int, groups: int) -> None:
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(channels, 16, 3, 1, 1, bias=False), nn.GroupNorm(groups, 16), nn.ReLU()
        )
        blocks: list[nn.Module] = []
        c_in = 16
        for stage, c_out in enumerate((16, 32, 64)):
            for i in range(3):
                blocks.append(GroupNormBlock(c_in, c_out, 2 if stage and not i else 1, groups))
                c_in = c_out
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(64, n_classes)

    def forward(self, x: Tensor) -> Tensor:
        h = self.blocks(self.stem(x))
        return self.fc(F.adaptive_avg_pool2d(h, 1).flatten(1))


class ResNet20Params(Params):
    groups: int = Field(
        2, ge=1, le=16, description="Groups of each group norm; they divide 16 channels."
    )

    @model_validator(mode="after")
    def _groups_divide_channels(self) -> ResNet20Params:
        if 16 % self.groups:
            raise ValueError(f"groups: {self.groups} groups do not divide 16 channels")
        return self


@model("resnet20", facts=IMAGES, params=ResNet20Params, label="ResNet-20 (group norm)")
def build_resnet20(
    params: ResNet20Params, cfg: ModelSection, shape: tuple[int, ...], n_classes: int
) -> nn.Module:
    return ResNet20(image_shape("resnet20", shape)[0], n_classes, params.groups)
