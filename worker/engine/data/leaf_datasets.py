"""LEAF's FEMNIST and Shakespeare, read from LEAF's JSON (`leaf.py`), one client per user.

FEMNIST: 28×28 handwritten characters of 3 550 writers, 62 classes (digits, upper and
lower case letters); LEAF stores a pixel as a float k/255, kept here as the byte k
(read from the JSON text, `leaf_grid.py`) and handed to the model a batch at a time as
float32 k/255, LEAF's values (`FederatedData.inputs`); a folder with a pixel off that
grid keeps its floats (float32) instead.
Shakespeare: next-character prediction for 1 129 speaking roles; a sample is 80
characters, its label the next one, each encoded as its index in LEAF's 80-character
alphabet (`ALPHABET`, LEAF's `ALL_LETTERS`), so a sample is 80 byte-sized token ids and
80 is the number of classes.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch

from worker.engine.data.federated import FederatedData, byte_values, offsets
from worker.engine.data.leaf import (
    PARSED_CHAR,
    PARSED_NUMBER,
    Samples,
    check_layout,
    check_users,
    file_sizes,
    load_split,
    test_order,
)
from worker.engine.data.leaf_grid import grid
from worker.engine.data.leaf_text import RawJson
from worker.engine.errors import ConfigError
from worker.engine.facts import DatasetFacts
from worker.engine.registry import dataset
from worker.engine.sections import DataSection

Loader = Callable[[Any, DataSection, np.random.Generator], FederatedData]
PIXELS = 28 * 28
SEQUENCE = 80  # LEAF's Shakespeare samples: 80 characters, then the one to predict
ALPHABET = "\n !\"&'(),-.0123456789:;>?ABCDEFGHIJKLMNOPQRSTUVWXYZ[]abcdefghijklmnopqrstuvwxyz}"
UNKNOWN = 255
_CODES = np.full(128, UNKNOWN, dtype=np.uint8)
_CODES[[ord(c) for c in ALPHABET]] = np.arange(len(ALPHABET), dtype=np.uint8)

# The whole datasets' sizes (LEAF paper, Table 1: 805 263 and 4 226 158 samples) cut
# 9:1 as LEAF's default `--tf 0.9`: what the run's estimates assume; a run reads what
# is on disk.
FEMNIST = DatasetFacts(
    62,
    "image",
    "data_root",
    ("natural",),
    (1, 28, 28),
    724_736,
    80_527,
    users=True,
    layout=partial(check_layout, name="femnist"),
    file_sizes=partial(
        file_sizes, name="femnist", decoded=PIXELS, parsed=PARSED_NUMBER * PIXELS, raw_x=True
    ),
    value_bytes=1,
)
SHAKESPEARE = DatasetFacts(
    len(ALPHABET),
    "text",
    "data_root",
    ("natural",),
    (SEQUENCE,),
    3_803_542,
    422_616,
    users=True,
    layout=partial(check_layout, name="shakespeare"),
    file_sizes=partial(
        file_sizes, name="shakespeare", decoded=SEQUENCE, parsed=PARSED_CHAR * SEQUENCE
    ),
    tokens=len(ALPHABET),
    value_bytes=1,
)
LEAF_DATASETS = ("femnist", "shakespeare", "sent140")


def pixels(x: RawJson | list[Any], where: str) -> np.ndarray:
    """A user's images (n, 784): the bytes k of LEAF's floats k/255, or where one is
    off that grid, the floats as float32 (never rounded onto it)."""
    if isinstance(x, RawJson):
        on_grid = grid(x.text(), PIXELS)
        if on_grid is not None:
            return on_grid
        try:
            x = x.parse()
        except ValueError as err:
            raise ConfigError(f"data.root: {where}: not readable JSON ({err})") from None
    if not x:
        return np.zeros((0, PIXELS), dtype=np.uint8)
    try:
        values = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        values = np.zeros(0)
    if values.ndim != 2 or values.shape[1] != PIXELS:
        raise ConfigError(f"data.root: {where}: images of {PIXELS} pixels expected")
    k = np.rint(values * 255)
    on_grid = (k >= 0) & (k <= 255) & (k / 255 == values) & ~np.signbit(values)
    return k.astype(np.uint8) if on_grid.all() else values.astype(np.float32)


def as_values(pixels: np.ndarray) -> np.ndarray:
    """Bytes k as float32 k/255: the same float32 as LEAF's float64 k/255 rounded."""
    return pixels.astype(np.float32) / np.float32(255)


def labels(y: list[Any], where: str) -> np.ndarray:
    if not y:
        return np.zeros(0, dtype=np.int64)
    values = np.asarray(y)
    if values.ndim != 1 or not np.issubdtype(values.dtype, np.integer):
        raise ConfigError(f"data.root: {where}: integer class labels expected")
    if len(values) and (values.min() < 0 or values.max() >= FEMNIST.n_classes):
        raise ConfigError(f"data.root: {where}: labels outside 0..{FEMNIST.n_classes - 1}")
    return values.astype(np.int64)


def encode(text: list[Any], length: int, where: str, key: str = "data.root") -> np.ndarray:
    """Strings of `length` characters as their indices in `ALPHABET` (n, length);
    `ConfigError` naming `key` and `where` otherwise."""
    if not all(isinstance(s, str) and len(s) == length for s in text):
        raise ConfigError(f"{key}: {where}: strings of {length} characters expected")
    codes = np.frombuffer("".join(text).encode("utf-32-le"), dtype=np.uint32)
    ids = _CODES[np.minimum(codes, 127)]
    bad = (codes > 127) | (ids == UNKNOWN)
    if bad.any():
        char = chr(int(codes[np.argmax(bad)]))
        raise ConfigError(f"{key}: {where}: {char!r} is not in LEAF's 80-character alphabet")
    return ids.reshape(len(text), length)


def sequences(x: list[Any], where: str) -> np.ndarray:
    return encode(x, SEQUENCE, where)


def next_characters(y: list[Any], where: str) -> np.ndarray:
    return encode(y, 1, where).reshape(-1).astype(np.int64)


def natural(
    name: str, cfg: DataSection, n_classes: int, samples: Samples
) -> tuple[FederatedData, np.ndarray, np.ndarray]:
    """The clients' data, one client per user of the train split, with the samples as
    decoded (the callers turn them into the model's inputs)."""
    if cfg.max_train_samples is not None:
        raise ConfigError(
            f"data.max_train_samples: {name} keeps each user's data whole; sample users "
            "with LEAF's preprocessing (--sf) instead"
        )
    root = Path(cfg.root)
    train = load_split(root, name, "train", samples)
    test = load_split(root, name, "test", samples)
    n = len(train.users)
    if cfg.n_clients != n:
        raise ConfigError(
            f"data.n_clients: {name} under {root.resolve()} has {n} users, one client each; "
            f"set data.n_clients={n}"
        )
    if (train.sizes == 0).any():
        user = train.users[int(np.argmax(train.sizes == 0))]
        raise ConfigError(f"data.root: {name} train split: user_data.{user} holds no samples")
    rows, held = test_order(train.users, test)
    train_offsets = offsets(train.sizes)
    smallest = np.minimum.reduceat(train.y, train_offsets[:-1].numpy())
    data = FederatedData(
        x_train=torch.empty(0),
        y_train=torch.from_numpy(np.array(train.y)),
        train_offsets=train_offsets,
        x_test=torch.empty(0),
        y_test=torch.from_numpy(test.y[rows]),
        test_offsets=offsets(held),
        n_classes=n_classes,
        task="classification",
        client_class=torch.from_numpy(smallest),
        cluster=torch.zeros(n, dtype=torch.long),
    )
    return data, train.x, test.x[rows]


class LeafLoader:
    """A LEAF dataset's loader, and its check of the files before any run is created
    (`check_dataset`): every user listed in `users` has its data (`check_users`)."""

    def __init__(self, name: str, load: Loader) -> None:
        self.name, self.load = name, load

    def __call__(self, params: Any, cfg: DataSection, rng: np.random.Generator) -> FederatedData:
        return self.load(params, cfg, rng)

    def check(self, params: Any, cfg: DataSection) -> None:
        check_users(Path(cfg.root), self.name)


def femnist(params: Any, cfg: DataSection, rng: np.random.Generator) -> FederatedData:
    """LEAF's FEMNIST from `data.root`: images (1, 28, 28) in [0, 1], 62 classes, held as
    their bytes k standing for k/255 (`FederatedData.x_values`), or as float32 where a
    pixel is off that grid."""
    images = Samples(pixels, labels, raw_x=True, widen_x=as_values)
    data, x, xt = natural("femnist", cfg, FEMNIST.n_classes, images)
    if x.dtype != xt.dtype:  # one split on the grid, the other off it
        x, xt = (a if a.dtype == np.float32 else as_values(a) for a in (x, xt))
    data.x_train, data.x_test = _images(x), _images(xt)
    data.x_values = byte_values(1, over_255) if x.dtype == np.uint8 else None
    return data


def over_255(images: torch.Tensor) -> torch.Tensor:
    """FEMNIST's pixel bytes k (as float32) as LEAF's k/255."""
    return images.div_(255.0)


def _images(pixels: np.ndarray) -> torch.Tensor:
    """The images (n, 1, 28, 28) as held: bytes as bytes, floats as float32; copied
    only out of the cache's read-only map."""
    return torch.from_numpy(np.require(pixels, requirements=("C", "W"))).view(-1, 1, 28, 28)


def shakespeare(params: Any, cfg: DataSection, rng: np.random.Generator) -> FederatedData:
    """LEAF's Shakespeare from `data.root`: 80 token ids a sample (uint8), the next
    character's id the label (80 classes)."""
    text = Samples(sequences, next_characters)
    data, x, xt = natural("shakespeare", cfg, SHAKESPEARE.n_classes, text)
    data.x_train, data.x_test = torch.from_numpy(np.array(x)), torch.from_numpy(xt)
    return data


dataset("femnist", facts=FEMNIST, label="FEMNIST (LEAF, one client per writer)")(
    LeafLoader("femnist", femnist)
)
dataset("shakespeare", facts=SHAKESPEARE, label="Shakespeare (LEAF, one client per role)")(
    LeafLoader("shakespeare", shakespeare)
)
