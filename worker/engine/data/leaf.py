"""LEAF's own on-disk format, as its preprocessing writes it (Caldas et al. 2018):
`<data.root>/<name>/data/{train,test}/*.json`, each file

    {"users": [...], "num_samples": [...], "user_data": {user: {"x": [...], "y": [...]}}}

One client per user of the train split, in file order (files sorted by name), with the
user's own train and test rows (LEAF splits each user's samples). Test rows of users
that have no train rows belong to no client but count for the global test metrics.

Samples are decoded file by file into compact numpy arrays (a FEMNIST image as 784
bytes, a Shakespeare sequence as 80 bytes), so only one file's JSON is held as Python
objects at a time. The decoded split is kept in the data root's cache (`cache.py`,
keyed by the JSON files' sizes and times), so later runs map it instead of parsing.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from worker.engine.data.cache import cached
from worker.engine.errors import ConfigError, DatasetMissing

SPLITS = ("train", "test")
KEYS = ("users", "num_samples", "user_data")
REMEDY = (
    "place the JSON files LEAF's preprocessing writes there: in a clone of "
    "github.com/TalwalkarLab/leaf, run e.g. `./preprocess.sh -s niid --sf 1.0 -k 0 -t sample` "
    "in data/<name>/, then copy data/<name>/data/train and data/<name>/data/test"
)

Decode = Callable[[list[Any], str], np.ndarray]  # (a user's x or y, where) -> array


class LeafMissing(DatasetMissing):
    """A LEAF split that is not under the data root; the remedy is LEAF's preprocessing."""

    def __init__(self, fact: str) -> None:
        ConfigError.__init__(self, f"{fact}; {REMEDY}")
        self.fact = fact

    def advice(self, download_allowed: bool) -> str:
        return f"{self.fact}; {REMEDY}"


@dataclass(frozen=True)
class Split:
    """One split's users in order, their sample counts, and the samples, user after user."""

    users: list[str]
    sizes: np.ndarray
    x: np.ndarray
    y: np.ndarray


def split_files(root: Path, name: str, split: str) -> list[Path]:
    """The split's JSON files, sorted by name; `LeafMissing` where there are none."""
    folder = root / name / "data" / split
    files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    if not files:
        raise LeafMissing(
            f"data.root: {name}'s {split} split is missing (no .json files in {folder.resolve()})"
        )
    return files


def check_layout(root: Path, name: str) -> None:
    """Both splits present with JSON files: a folder listing, run at submission. A user
    listed in `users` without data is found where the files are parsed (`read_split`),
    when the run loads its data before its first round: parsing full-size FEMNIST's
    JSON takes minutes (docs/benchmarks.md), too long for a submission to wait."""
    for split in SPLITS:
        split_files(root, name, split)


def needs(name: str, root: str) -> str:
    """Where LEAF's files of `name` must lie, in a sentence."""
    folder = Path(root).resolve() / name / "data"
    return f"{name}: LEAF's JSON under {folder}/train and {folder}/test (data.root); {REMEDY}"


def load_split(root: Path, name: str, split: str, decode_x: Decode, decode_y: Decode) -> Split:
    """The split under `root`, from the cache where it holds, else parsed (`read_split`)."""
    files = split_files(root, name, split)
    sources = [str(f.relative_to(root)) for f in files]
    parsed: list[Split] = []

    def parse() -> Split:
        if not parsed:
            parsed.append(read_split(files, decode_x, decode_y))
        return parsed[0]

    entry = f"leaf-{name}-{split}"
    x, y = cached(root, entry, sources, lambda: (parse().x, parse().y))
    sizes, users = cached(
        root, f"{entry}-users", sources, lambda: (parse().sizes, np.asarray(parse().users))
    )
    return Split([str(u) for u in users], np.asarray(sizes), x, y)


def read_split(files: list[Path], decode_x: Decode, decode_y: Decode) -> Split:
    """Every user of the files, decoded; `ConfigError` naming the file and the key of
    the first thing that is not as LEAF writes it."""
    users: list[str] = []
    sizes: list[int] = []
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    seen: set[str] = set()
    for path in files:
        doc = _document(path)
        for user, count in zip(doc["users"], doc["num_samples"], strict=False):
            where = f"{path.name}: user_data.{user}"
            if user in seen:
                raise ConfigError(f"data.root: {where}: the user appears twice in this split")
            data = doc["user_data"].get(user)
            if not isinstance(data, dict) or "x" not in data or "y" not in data:
                raise ConfigError(f"data.root: {where}: no x and y for a user listed in `users`")
            x, y = decode_x(data["x"], f"{where}.x"), decode_y(data["y"], f"{where}.y")
            if not len(x) == len(y) == count:
                raise ConfigError(
                    f"data.root: {where}: {len(x)} x and {len(y)} y where num_samples says {count}"
                )
            seen.add(user)
            users.append(user)
            sizes.append(count)
            xs.append(x)
            ys.append(y)
        del doc
    if not users:
        raise ConfigError(f"data.root: {files[0].parent} lists no users")
    return Split(users, np.asarray(sizes, dtype=np.int64), np.concatenate(xs), np.concatenate(ys))


def _document(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(path.read_bytes())
    except (OSError, ValueError) as err:
        raise ConfigError(f"data.root: {path.name} is not readable JSON ({err})") from None
    if not isinstance(doc, dict) or any(k not in doc for k in KEYS):
        missing = [k for k in KEYS if not isinstance(doc, dict) or k not in doc]
        raise ConfigError(f"data.root: {path.name} lacks {', '.join(missing)} (LEAF's keys)")
    if len(doc["users"]) != len(doc["num_samples"]):
        raise ConfigError(
            f"data.root: {path.name}: {len(doc['users'])} users but "
            f"{len(doc['num_samples'])} num_samples"
        )
    return doc


def test_order(train_users: list[str], test: Split) -> tuple[np.ndarray, np.ndarray]:
    """Test rows in client order (each train user's own, then every other user's) and
    the number each client holds."""
    offsets = np.concatenate([[0], np.cumsum(test.sizes)])
    where = {user: i for i, user in enumerate(test.users)}
    rows: list[np.ndarray] = []
    held = np.zeros(len(train_users), dtype=np.int64)
    owned = np.zeros(len(test.users), dtype=bool)
    for k, user in enumerate(train_users):
        i = where.get(user)
        if i is not None:
            rows.append(np.arange(offsets[i], offsets[i + 1]))
            held[k] = test.sizes[i]
            owned[i] = True
    rows += [np.arange(offsets[i], offsets[i + 1]) for i in np.flatnonzero(~owned)]
    return np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64), held
