"""`FederatedData`: every client's train split stored contiguously, plus test splits."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import torch
from torch import Tensor

from worker.engine.data.population import Population

Task = Literal["classification", "regression"]
Pool = tuple[Tensor, Tensor, Tensor, Tensor]  # a labelled pool: x, y, x_test, y_test


@dataclass
class FederatedData:
    """Train samples sorted by client: client k owns rows train_offsets[k]:train_offsets[k+1].

    Test samples are sorted the same way (test_offsets); rows past test_offsets[-1]
    belong to no client but still count for the global test metrics.
    `client_class` is the smallest label each client holds (what label-driven
    availability models group by); `cluster` the client's cluster id; `population`
    the clients' π and λ where the dataset declares them (`DatasetFacts.population`).
    `x_values`: where set, the samples are images (…, C, H, W) held as their bytes
    (uint8), a quarter of their floats' memory: byte k of channel c stands for the
    float32 x_values[c, k], a (C, 256) table (`byte_values`: FEMNIST's k/255, the
    torchvision pools' [-1, 1] and its normalisations, digits' k/16); `inputs` turns a
    batch of them into what the model takes.
    """

    x_train: Tensor
    y_train: Tensor
    train_offsets: Tensor
    x_test: Tensor
    y_test: Tensor
    test_offsets: Tensor
    n_classes: int
    task: Task
    client_class: Tensor
    cluster: Tensor
    optimum: float | None = None
    population: Population | None = None
    x_values: Tensor | None = None

    @property
    def n_clients(self) -> int:
        return len(self.train_offsets) - 1

    @property
    def sizes(self) -> Tensor:
        return self.train_offsets.diff()

    @property
    def input_shape(self) -> tuple[int, ...]:
        return tuple(self.x_train.shape[1:])

    def inputs(self, x: Tensor) -> Tensor:
        """Rows of `x_train` or `x_test` as the model's inputs (`inputs`)."""
        return inputs(x, self.x_values)

    def to(self, device: torch.device) -> FederatedData:
        names = ("x_train", "y_train", "x_test", "y_test")
        move = {k: getattr(self, k).to(device) for k in names}
        values = None if self.x_values is None else self.x_values.to(device)
        return FederatedData(**{**self.__dict__, **move, "x_values": values})


def inputs(x: Tensor, values: Tensor | None) -> Tensor:
    """Samples as a model takes them: images held as bytes with their table `values`
    (`FederatedData.x_values`) as the float32 values[c, k] of each byte k of channel
    c (the table's values were computed on a CPU once, so they are the same on any
    device: a GPU divides by a scalar as a product with its reciprocal); without a
    table (floats, token ids) as they are. Called on a batch or an evaluation chunk
    where it enters the model."""
    if values is None:
        return x
    if x.dtype != torch.uint8:
        raise TypeError(f"inputs: samples with a byte table are bytes (uint8), not {x.dtype}")
    table = values.to(x.device)
    index = x.int()
    channels = len(table)
    if channels > 1:  # channel c's bytes index row c: k + 256·c, c along dim −3
        rows = torch.arange(0, 256 * channels, 256, dtype=torch.int32, device=x.device)
        index.add_(rows.view(-1, 1, 1))  # int32 both: a mixed add takes a slow path
    return table.view(-1).index_select(0, index.view(-1)).view(x.shape)


def byte_values(channels: int, convert: Callable[[Tensor], Tensor]) -> Tensor:
    """The (C, 256) table of what `convert` makes of each byte k 0…255 of each of the
    `channels` C: `convert` takes float32 images (N, C, H, W) and is the up-front
    conversion of images made of their bytes, so each value is that conversion's to
    the bit (it is given the bytes as one image (1, C, 1, 256), elementwise ops and
    per-channel constants acting on it as they act on whole images)."""
    k = torch.arange(256, dtype=torch.float32).repeat(channels, 1)
    return converted(k, convert)


def converted(values: Tensor, convert: Callable[[Tensor], Tensor]) -> Tensor:
    """A (C, 256) byte table with `convert` applied to its values, as to images'."""
    channels = len(values)
    return convert(values.reshape(1, channels, 1, 256).clone()).reshape(channels, 256).contiguous()


def offsets(sizes: list[int] | np.ndarray) -> Tensor:
    return torch.as_tensor(np.concatenate([[0], np.cumsum(sizes)]), dtype=torch.long)


def assign_test_by_label(
    y_test: np.ndarray, client_train_labels: list[np.ndarray], rng: np.random.Generator
) -> list[np.ndarray]:
    """Split test rows among clients so each client's test labels follow its train labels.

    For each class, the test rows of that class go to the clients holding it, in
    proportion to how many train samples of that class each holds.
    """
    n = len(client_train_labels)
    n_classes = int(max(y_test.max(), *(lab.max(initial=0) for lab in client_train_labels))) + 1
    counts = np.zeros((n, n_classes))
    for k, lab in enumerate(client_train_labels):
        counts[k] = np.bincount(lab, minlength=n_classes)
    parts: list[list[np.ndarray]] = [[] for _ in range(n)]
    for c in range(n_classes):
        rows = rng.permutation(np.flatnonzero(y_test == c))
        total = counts[:, c].sum()
        if total == 0 or len(rows) == 0:
            continue
        cuts = np.floor(np.cumsum(counts[:, c]) / total * len(rows)).astype(int)
        for k, chunk in enumerate(np.split(rows, cuts[:-1])):
            if len(chunk):
                parts[k].append(chunk)
    return joined(parts)


def assemble(
    x_pool: Tensor,
    y_pool: Tensor,
    client_rows: list[np.ndarray],
    x_test_pool: Tensor,
    y_test_pool: Tensor,
    n_classes: int,
    rng: np.random.Generator,
    cluster: np.ndarray | None = None,
    test_rows: list[np.ndarray] | None = None,
) -> FederatedData:
    """Gather a labelled pool into per-client contiguous splits; each client's test rows
    are `test_rows` where given, drawn by its train labels otherwise
    (`assign_test_by_label`)."""
    train_labels = [y_pool[rows].numpy() for rows in client_rows]
    if test_rows is None:
        test_rows = assign_test_by_label(y_test_pool.numpy(), train_labels, rng)
    owned = np.concatenate(test_rows) if test_rows else np.zeros(0, dtype=int)
    rest = np.setdiff1d(np.arange(len(y_test_pool)), owned)
    train_index = torch.as_tensor(np.concatenate(client_rows), dtype=torch.long)
    test_index = torch.as_tensor(np.concatenate([owned, rest]), dtype=torch.long)
    client_class = [int(lab.min()) if len(lab) else 0 for lab in train_labels]
    return FederatedData(
        x_train=x_pool[train_index],
        y_train=y_pool[train_index],
        train_offsets=offsets([len(r) for r in client_rows]),
        x_test=x_test_pool[test_index],
        y_test=y_test_pool[test_index],
        test_offsets=offsets([len(r) for r in test_rows]),
        n_classes=n_classes,
        task="classification",
        client_class=torch.as_tensor(client_class, dtype=torch.long),
        cluster=torch.as_tensor(
            cluster if cluster is not None else np.zeros(len(client_rows)), dtype=torch.long
        ),
    )


def joined(parts: list[list[np.ndarray]]) -> list[np.ndarray]:
    """Each client's row chunks as one array of row indices (empty where it got none)."""
    return [np.concatenate(p) if p else np.zeros(0, dtype=int) for p in parts]
