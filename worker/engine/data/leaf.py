"""LEAF's own on-disk format, as its preprocessing writes it (Caldas et al. 2018):
`<data.root>/<name>/data/{train,test}/*.json`, each file

    {"users": [...], "num_samples": [...], "user_data": {user: {"x": [...], "y": [...]}}}

One client per user of the train split, in file order (files sorted by name), with the
user's own train and test rows (LEAF splits each user's samples). Test rows of users
that have no train rows belong to no client but count for the global test metrics.

Samples are decoded file by file into compact numpy arrays (a FEMNIST image as 784
bytes, a Shakespeare sequence as 80 bytes), so only one file's JSON is held as Python
objects at a time; a decoder that reads its numbers from the text (`Samples.raw_x`,
FEMNIST's pixels) gets each user's x unparsed (`leaf_text.py`), and no float object
is made. Two files are read at once (`READERS`: numpy's work releases the GIL). The
decoded split is kept in the data root's cache (`cache.py`, keyed by the JSON files'
sizes and times), so later runs map it instead of parsing.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from worker.engine.data import leaf_text
from worker.engine.data.cache import cached
from worker.engine.errors import ConfigError, DatasetMissing
from worker.engine.facts import FileSizes

SPLITS = ("train", "test")
KEYS = ("users", "num_samples", "user_data")
REMEDY = (
    "place the JSON files LEAF's preprocessing writes there: in a clone of "
    "github.com/TalwalkarLab/leaf, run e.g. `./preprocess.sh -s niid --sf 1.0 -k 0 -t sample` "
    "in data/<name>/, then copy data/<name>/data/train and data/<name>/data/test"
)

HEAD_CHUNK = 1 << 16
SCAN_CHUNK = 1 << 23
X_KEY = b'"x":'
HEAD_LIMIT = 1 << 24  # a head of `users` and `num_samples` past 16 MiB is not LEAF's
PARSED_NUMBER = 48  # a number read: a float object (24), its list slot (8), its float64
# and float32 (12); or from the text (`leaf_grid.py`), five int64 index arrays (40)
PARSED_CHAR = 4  # a JSON string's character: the str object (1 a character) and the
# margin its header and slot take on 80 characters

READERS = 2  # files read at once
Decode = Callable[[Any, str], np.ndarray]  # (a user's x or y, where) -> array
Rows = tuple[str, int, np.ndarray, np.ndarray]  # a user, its count, its x and y


class LeafMissing(DatasetMissing):
    """A LEAF split that is not under the data root; the remedy is LEAF's preprocessing."""

    def __init__(self, fact: str, missing: tuple[str, ...] = ()) -> None:
        ConfigError.__init__(self, f"{fact}; {REMEDY}")
        self.fact, self.missing = fact, missing

    def advice(self, download_allowed: bool) -> str:
        return f"{self.fact}; {REMEDY}"


@dataclass(frozen=True)
class Samples:
    """How a dataset's users' x and y are decoded. `raw_x`: `x` is handed each user's
    x as its JSON text (a `leaf_text.RawJson`) to read itself; `widen_x`: where the
    users' x arrays differ in dtype, what turns a narrow one into the widest's values
    (FEMNIST's bytes k to the floats k/255 of a user whose pixels are off that grid)."""

    x: Decode
    y: Decode
    raw_x: bool = False
    widen_x: Callable[[np.ndarray], np.ndarray] | None = None


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
            f"data.root: {name}'s {split} split is missing (no .json files in {folder.resolve()})",
            (f"{name}/data/{split}/*.json",),
        )
    return files


def check_layout(root: Path, name: str) -> None:
    """Both splits present with JSON files: a folder listing, run at submission. A user
    listed in `users` without data is found where the files are parsed (`read_split`),
    when the run loads its data before its first round: reading full-size FEMNIST's
    JSON takes half a minute of CPU (docs/benchmarks.md), too long for a submission to
    wait."""
    missing: list[LeafMissing] = []
    for split in SPLITS:
        try:
            split_files(root, name, split)
        except LeafMissing as err:
            missing.append(err)
    if len(missing) == 1:
        raise missing[0]
    if missing:
        folder = (root / name / "data").resolve()
        raise LeafMissing(
            f"data.root: {name}'s train and test splits are missing (no .json files under "
            f"{folder})",
            tuple(m for err in missing for m in err.missing),
        )


def head_counts(path: Path) -> list[int] | None:
    """The file's `num_samples`, read from its head: LEAF writes `users` and
    `num_samples` before `user_data`, so the samples are never parsed. None where the
    head holds no such list (another key order, not LEAF's JSON)."""
    head, key, start = b"", b'"user_data"', 0
    with path.open("rb") as f:
        while (at := head.find(key, start)) < 0:
            chunk = f.read(HEAD_CHUNK)
            if not chunk or len(head) > HEAD_LIMIT:
                return None
            start = max(0, len(head) - len(key))
            head += chunk
    try:
        doc = json.loads(head[:at].rstrip().rstrip(b",") + b"}")
    except ValueError:
        return None
    counts = doc.get("num_samples") if isinstance(doc, dict) else None
    if not isinstance(counts, list) or not all(type(n) is int and n >= 0 for n in counts):
        return None
    return counts


def file_sizes(
    root: Path, name: str, decoded: int, parsed: int, raw_x: bool = False
) -> FileSizes | None:
    """The largest train user and what a first read holds beyond the arrays it returns
    (`read_split`): the decoded samples twice (the users' arrays, then their
    concatenation), `decoded` bytes a sample; and for each of the `READERS` files read
    at once, its JSON text and what its parse holds, `parsed` bytes a sample: the
    whole file's samples, or with `raw_x` (x read from the text a user at a time) its
    largest user's. None where a split is missing or a file's head is not as LEAF
    writes it."""
    try:
        files = [path for split in SPLITS for path in split_files(root, name, split)]
    except LeafMissing:
        return None
    counts = [head_counts(path) for path in files]
    known = [c for c in counts if c is not None]
    if len(known) < len(files):
        return None
    n_train = len(split_files(root, name, SPLITS[0]))
    train = [n for c in known[:n_train] for n in c]
    samples = sum(map(sum, known))
    held = (max(c, default=0) if raw_x else sum(c) for c in known)
    per_file = max(path.stat().st_size + parsed * n for path, n in zip(files, held, strict=True))
    return FileSizes(max(train, default=0), 2 * decoded * samples + READERS * per_file)


def without_data(path: Path, user: str) -> ConfigError:
    return ConfigError(
        f"data.root: user_data.{user} in {path.name}: no x and y for a user listed in `users`"
    )


def x_keys(path: Path) -> int:
    """How many `"x":` keys the file holds (one a user with data), counted in chunks,
    nothing parsed."""
    count, tail, edge = 0, b"", len(X_KEY) - 1
    with path.open("rb") as f:
        while chunk := f.read(SCAN_CHUNK):
            # a key across the chunks' end, then those inside the chunk: none counted twice
            count += (tail + chunk[:edge]).count(X_KEY) + chunk.count(X_KEY)
            tail = chunk[-edge:]
    return count


def check_users(root: Path, name: str) -> None:
    """Every user a file lists in `users` has its data, else `ConfigError` naming the
    first without. Run at submission: a scan of the bytes (0.3 GB/s on a busy 2-core
    machine, where reading the samples takes 0.15 GB/s of CPU), once a file: the
    verdict is kept by the file's size and time, so a sweep's cells and later
    submissions pay nothing."""
    for split in SPLITS:
        for path in split_files(root, name, split):
            stat = path.stat()
            if (user := user_without_data(str(path), stat.st_size, stat.st_mtime_ns)) is not None:
                raise without_data(path, user)


@functools.lru_cache(maxsize=4096)
def user_without_data(path: str, size: int, mtime_ns: int) -> str | None:
    """The first user the file lists without data (None: none, or a head not as LEAF
    writes it, which the parse reports): a file with fewer `"x":` keys than users is
    parsed to name it. `size` and `mtime_ns` key the cache."""
    file = Path(path)
    counts = head_counts(file)
    if counts is None or x_keys(file) >= len(counts):
        return None
    doc = _document(file)
    data = doc["user_data"]
    for user in doc["users"]:
        if not isinstance(data.get(user), dict) or not {"x", "y"} <= data[user].keys():
            return str(user)
    return None


def needs(name: str, root: str) -> str:
    """Where LEAF's files of `name` must lie, in a sentence."""
    folder = Path(root).resolve() / name / "data"
    return f"{name}: LEAF's JSON under {folder}/train and {folder}/test (data.root); {REMEDY}"


def load_split(root: Path, name: str, split: str, samples: Samples) -> Split:
    """The split under `root`, from the cache where it holds, else parsed (`read_split`)."""
    files = split_files(root, name, split)
    sources = [str(f.relative_to(root)) for f in files]
    parsed: list[Split] = []

    def parse() -> Split:
        if not parsed:
            parsed.append(read_split(files, samples))
        return parsed[0]

    entry = f"leaf-{name}-{split}"
    x, y = cached(root, entry, sources, lambda: (parse().x, parse().y))
    sizes, users = cached(
        root, f"{entry}-users", sources, lambda: (parse().sizes, np.asarray(parse().users))
    )
    return Split([str(u) for u in users], np.asarray(sizes), x, y)


def read_split(files: list[Path], samples: Samples) -> Split:
    """Every user of the files, decoded; `ConfigError` naming the file and the key of
    the first thing that is not as LEAF writes it."""
    users: list[str] = []
    sizes: list[int] = []
    heads = [head_counts(path) for path in files]
    total = None if None in heads else sum(sum(c) for c in heads if c is not None)
    xs = Stack(total, samples.widen_x)
    ys: list[np.ndarray] = []
    seen: set[str] = set()
    for path, rows in _files_rows(files, samples):
        for user, count, x, y in rows:
            where = f"{path.name}: user_data.{user}"
            if user in seen:
                raise ConfigError(f"data.root: {where}: the user appears twice in this split")
            seen.add(user)
            users.append(user)
            sizes.append(count)
            xs.put(x, where)
            ys.append(y)
    if not users:
        raise ConfigError(f"data.root: {files[0].parent} lists no users")
    return Split(users, np.asarray(sizes, dtype=np.int64), xs.whole(), np.concatenate(ys))


def _files_rows(files: list[Path], samples: Samples) -> Iterator[tuple[Path, list[Rows]]]:
    """Each file's users decoded, in file order, `READERS` files at a time; the files
    not yet begun are dropped where the reader stops early (an error)."""
    pool = ThreadPoolExecutor(READERS)
    try:
        yield from zip(files, pool.map(lambda path: _file_rows(path, samples), files), strict=True)
    finally:
        pool.shutdown(cancel_futures=True)


def _file_rows(path: Path, samples: Samples) -> list[Rows]:
    doc = _document(path, samples.raw_x)
    out: list[Rows] = []
    for user, count in zip(doc["users"], doc["num_samples"], strict=False):
        where = f"{path.name}: user_data.{user}"
        data = doc["user_data"].get(user)
        if not isinstance(data, dict) or "x" not in data or "y" not in data:
            raise without_data(path, user)
        x, y = samples.x(data["x"], f"{where}.x"), samples.y(data["y"], f"{where}.y")
        if not len(x) == len(y) == count:
            raise ConfigError(
                f"data.root: {where}: {len(x)} x and {len(y)} y where num_samples says {count}"
            )
        out.append((user, count, x, y))
    return out


class Stack:
    """The users' x one after the other, in the widest dtype any of them needed
    (`Samples.widen_x`). With the files' `total` samples known from their heads, written
    into one array as they come: the users' arrays are not all held beside it, nor
    left as holes in the heap once joined."""

    def __init__(self, total: int | None, widen: Callable[[np.ndarray], np.ndarray] | None):
        self.total, self.widen = total, widen
        self.parts: list[np.ndarray] = []
        self.out: np.ndarray | None = None
        self.at = 0

    def put(self, x: np.ndarray, where: str) -> None:
        if self.total is None:
            self.parts.append(x)
            return
        if self.out is None:
            self.out = np.empty((self.total, *x.shape[1:]), dtype=x.dtype)
        if self.at + len(x) > self.total:
            raise ConfigError(f"data.root: {where}: more samples than the files' num_samples")
        if x.dtype != self.out.dtype:
            self.out = self._as(self.out, np.result_type(self.out, x))
            x = self._as(x, self.out.dtype)
        self.out[self.at : self.at + len(x)] = x
        self.at += len(x)

    def whole(self) -> np.ndarray:
        if self.out is not None:
            return self.out[: self.at]
        wide = np.result_type(*self.parts)
        return np.concatenate([self._as(x, wide) for x in self.parts])

    def _as(self, x: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
        if x.dtype == dtype:
            return x
        return self.widen(x) if self.widen is not None else x.astype(dtype)


def _document(path: Path, raw_x: bool = False) -> dict[str, Any]:
    """The file's JSON, each user's x left as its text where `raw_x`."""
    try:
        data = path.read_bytes()
        doc = leaf_text.parse(data) if raw_x else json.loads(data)
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
