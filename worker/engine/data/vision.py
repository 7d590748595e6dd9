"""Image pools: scikit-learn's bundled digits (offline) and torchvision datasets from a root."""

from __future__ import annotations

import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor

from worker.engine.data.cache import cached, source_key
from worker.engine.data.federated import Pool, byte_values
from worker.engine.data.kept_pools import kept_pool, pool_key
from worker.engine.data.partitions.base import Grouped
from worker.engine.errors import DatasetMissing
from worker.engine.facts import DatasetFacts, DataSource
from worker.engine.registry import dataset
from worker.engine.sections import DataSection


@dataclass(frozen=True)
class PoolSize:
    """Samples in a pool's train and test splits, and the shape (C, H, W) of one."""

    train: int
    test: int
    shape: tuple[int, int, int]


POOL_SIZES: dict[str, PoolSize] = {
    "digits": PoolSize(1437, 360, (1, 8, 8)),  # 1797 split 80/20 below
    "mnist": PoolSize(60_000, 10_000, (1, 28, 28)),
    "fashion_mnist": PoolSize(60_000, 10_000, (1, 28, 28)),
    "cifar10": PoolSize(50_000, 10_000, (3, 32, 32)),
    "cifar100": PoolSize(50_000, 10_000, (3, 32, 32)),
    "svhn": PoolSize(73_257, 26_032, (3, 32, 32)),
}

# Files torchvision reads for each dataset, relative to the data root.
EXPECTED_FILES: dict[str, list[str]] = {
    "mnist": [
        f"MNIST/raw/{f}"
        for f in (
            "train-images-idx3-ubyte",
            "train-labels-idx1-ubyte",
            "t10k-images-idx3-ubyte",
            "t10k-labels-idx1-ubyte",
        )
    ],
    "fashion_mnist": [
        f"FashionMNIST/raw/{f}"
        for f in (
            "train-images-idx3-ubyte",
            "train-labels-idx1-ubyte",
            "t10k-images-idx3-ubyte",
            "t10k-labels-idx1-ubyte",
        )
    ],
    "cifar10": [
        f"cifar-10-batches-py/{f}"
        for f in (
            "data_batch_1",
            "data_batch_2",
            "data_batch_3",
            "data_batch_4",
            "data_batch_5",
            "test_batch",
            "batches.meta",
        )
    ],
    "cifar100": [f"cifar-100-python/{f}" for f in ("train", "test", "meta")],
    "svhn": ["train_32x32.mat", "test_32x32.mat"],
}
CLASSES = {"cifar100": 100}  # the others have 10


# The per-channel mean and std of pixels in [0, 1] that `data.normalization = standard`
# subtracts and divides by (the values CA-Fed's code, like many, normalises with).
MEAN_STD: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {
    "mnist": ((0.1307,), (0.3081,)),
    "cifar10": ((0.4914, 0.4822, 0.4465), (0.2023, 0.1994, 0.2010)),
    "cifar100": ((0.5071, 0.4865, 0.4409), (0.2673, 0.2564, 0.2762)),
}


def symmetric(images: Tensor) -> Tensor:
    """Images of bytes k (as float32) as k/127.5 − 1 in [-1, 1], in place: what a
    pool's bytes stand for before any normalisation (`pool_values`)."""
    return images.div_(127.5).sub_(1.0)


def pool_values(x: Tensor) -> Tensor:
    """The byte table (`FederatedData.x_values`) of a pool's images `x` (N, C, H, W) of
    bytes: each byte's value in [-1, 1]."""
    return byte_values(x.shape[1], symmetric)


def unit_scaled(images: Tensor) -> Tensor:
    """Images in [-1, 1] (what a pool's bytes stand for, `pool_values`) as x/255 in
    [0, 1], x the original byte: what torchvision's ToTensor alone gives."""
    return images.add(1.0).mul_(127.5).round_().div_(255)


def standardized(name: str, images: Tensor) -> Tensor:
    """Images in [-1, 1] (what a pool's bytes stand for, `pool_values`) as
    (x/255 − mean)/std per channel, x the original byte: what torchvision's ToTensor
    and Normalize give."""
    mean, std = (torch.tensor(v).view(-1, 1, 1) for v in MEAN_STD[name])
    return unit_scaled(images).sub_(mean).div_(std)


def _facts(name: str, source: DataSource) -> DatasetFacts:
    size = POOL_SIZES[name]
    return DatasetFacts(
        CLASSES.get(name, 10),
        "image",
        source,
        shape=size.shape,
        train=size.train,
        test=size.test,
        value_bytes=1,  # the images' bytes (`FederatedData.x_values`)
    )


@dataset("digits", facts=_facts("digits", "bundled"), label="digits (scikit-learn, 8×8)")
def digits(params: Any, cfg: DataSection, rng: np.random.Generator) -> Grouped:
    """8x8 handwritten digits (1797 samples), 80/20 train/test split: their pixels 0…16
    held as bytes standing for k/16 in [0, 1]."""
    from sklearn.datasets import load_digits

    bunch = load_digits()
    x = torch.as_tensor(bunch.images.astype(np.uint8)).unsqueeze(1)
    y = torch.as_tensor(bunch.target, dtype=torch.long)
    order = torch.as_tensor(rng.permutation(len(y)))
    cut = int(0.8 * len(y))
    train, test = order[:cut], order[cut:]
    return Grouped((x[train], y[train], x[test], y[test]), values=byte_values(1, sixteenths))


def sixteenths(images: Tensor) -> Tensor:
    """Digits' pixels k (0…16, as float32) as k/16 in [0, 1]."""
    return images.div_(16.0)


def needs(name: str, root: str, download_allowed: bool = True) -> str:
    """Where a dataset read from `data.root` must lie, and what else works, in a
    sentence (a download only where one is allowed)."""
    files = ", ".join(EXPECTED_FILES[name])
    download = ", or set data.download=true where the network is reachable"
    return (
        f"{name}: place {files} under {Path(root).resolve()} (data.root, torchvision's "
        f"layout){download if download_allowed else ''}; data.dataset=digits runs it "
        "offline on scikit-learn's 8×8 digits"
    )


def missing_files(name: str, root: str) -> list[str]:
    """The dataset's expected files that are not under `root`."""
    return [f for f in EXPECTED_FILES[name] if not (Path(root) / f).is_file()]


def require_files(name: str, root: str, download: bool) -> None:
    """Raise DatasetMissing, naming the files and the place, unless they are there (or
    may be downloaded)."""
    missing = missing_files(name, root)
    if missing and not download:
        raise DatasetMissing(
            f"data.root: {name} not found under {Path(root).resolve()} (missing "
            f"{', '.join(missing[:3])}{' ...' if len(missing) > 3 else ''})"
        )


def torchvision_pool(name: str, root: str, download: bool) -> Pool:
    """Train and test images (N, C, H, W) as their bytes (`pool_values` tells what they
    stand for), labels as long."""
    require_files(name, root, download)
    root_path = Path(root)
    try:
        key = pool_key(name, root_path, source_key(root_path, EXPECTED_FILES[name]))
    except OSError:  # files still to download
        return _parse(name, root_path, download)
    return kept_pool(key, lambda: _parse(name, root_path, download))


def _parse(name: str, root: Path, download: bool) -> Pool:
    try:
        train = _load(name, root, True, download)
        test = _load(name, root, False, download)
    except (RuntimeError, ValueError, OSError, EOFError, pickle.UnpicklingError) as err:
        raise unreadable(name, root, err) from None
    return (*train, *test)


def unreadable(name: str, root: Path, err: BaseException) -> DatasetMissing:
    """One line naming the files that fail torchvision's checksums (CIFAR-10, SVHN) or,
    where it keeps none, the error, and what to do (torchvision's own message offers
    `download=True`, of no use offline)."""
    from torchvision.datasets import CIFAR10, CIFAR100, SVHN
    from torchvision.datasets.utils import check_integrity

    if name in ("cifar10", "cifar100"):
        cifar = CIFAR10 if name == "cifar10" else CIFAR100
        folder = root / cifar.base_folder
        sums = [(folder / f, md5) for f, md5 in [*cifar.train_list, *cifar.test_list]]
    elif name == "svhn":
        sums = [(root / f, md5) for _, f, md5 in SVHN.split_list.values() if (root / f).exists()]
    else:
        sums = []
    bad = [str(path.relative_to(root)) for path, md5 in sums if not check_integrity(str(path), md5)]
    what = f"fail their checksums: {', '.join(bad)}" if bad else f"cannot be read ({err})"
    return DatasetMissing(
        f"data.root: {name} files under {root.resolve()} {what}: replace them with the "
        "original files"
    )


def _load(name: str, root: Path, train: bool, download: bool) -> tuple[Tensor, Tensor]:
    """One split as (N, C, H, W) bytes and long labels; the parsed bytes come from the
    data root's cache after the first read (`cache.py`), copied out of its map."""
    entry = f"{name}-{'train' if train else 'test'}"
    x, y = cached(root, entry, EXPECTED_FILES[name], lambda: _read(name, root, train, download))
    return torch.from_numpy(np.array(x)), torch.from_numpy(np.array(y)).long()


def _read(name: str, root: Path, train: bool, download: bool) -> tuple[np.ndarray, np.ndarray]:
    """Parse one split with torchvision: uint8 images (N, C, H, W), int64 labels."""
    from torchvision import datasets

    if name in ("mnist", "fashion_mnist"):
        cls = datasets.MNIST if name == "mnist" else datasets.FashionMNIST
        ds = cls(str(root), train=train, download=download)
        return ds.data.unsqueeze(1).numpy(), np.asarray(ds.targets, dtype=np.int64)
    if name in ("cifar10", "cifar100"):
        cifar = datasets.CIFAR10 if name == "cifar10" else datasets.CIFAR100
        cds = cifar(str(root), train=train, download=download)
        return cds.data.transpose(0, 3, 1, 2).copy(), np.asarray(cds.targets, dtype=np.int64)
    sds = datasets.SVHN(str(root), split="train" if train else "test", download=download)
    return sds.data, np.asarray(sds.labels, dtype=np.int64)


def _from_root(name: str) -> Any:
    def load(params: Any, cfg: DataSection, rng: np.random.Generator) -> Grouped:
        pool = torchvision_pool(name, cfg.root, cfg.download)
        return Grouped(pool, values=pool_values(pool[0]))

    load.__doc__ = f"{name} from `data.root` (torchvision's layout)."
    return load


for _name in EXPECTED_FILES:
    dataset(_name, facts=_facts(_name, "data_root"))(_from_root(_name))
