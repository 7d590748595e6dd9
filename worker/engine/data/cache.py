"""Parsed datasets kept beside their files: after the first read of a torchvision
dataset (pickles, IDX or .mat files), its arrays are written as .npy files to
`<data.root>/.fedwatch-cache/` and later runs map them instead of parsing again.

A data root that cannot be written (a cluster's shared, read-only datasets) keeps its
cache in the user's cache directory instead, `~/.cache/fedwatch/datasets/<root's hash>/`;
a cache inside the root is still read where one was made. An entry is keyed by the size
and modification time of every source file, so a replaced file is read again. Where no
cache can be written at all, the files are parsed every time.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

FOLDER = ".fedwatch-cache"
FORMAT = 2  # bump when what is cached changes (2: LEAF pixels off k/255 kept as floats)

log = logging.getLogger(__name__)
Arrays = tuple[np.ndarray, np.ndarray]


def source_key(root: Path, sources: list[str]) -> list[list[object]]:
    out: list[list[object]] = [["format", FORMAT]]
    for name in sources:
        stat = (root / name).stat()
        out.append([name, stat.st_size, stat.st_mtime_ns])
    return out


def folders(root: Path) -> list[Path]:
    """Where the cache of a data root may be: inside it, then the user's cache folder."""
    digest = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:16]
    return [root / FOLDER, Path.home() / ".cache" / "fedwatch" / "datasets" / digest]


def cached(root: Path, entry: str, sources: list[str], read: Callable[[], Arrays]) -> Arrays:
    """The arrays (x, y) of `entry`, from a cache where its key still holds, else from
    `read()` (then cached in the first folder that can be written)."""
    key = source_key_or_none(root, sources)
    for folder in folders(root):
        found = _read(folder, entry, key)
        if found is not None:
            return found
    arrays = read()
    for folder in folders(root):
        try:
            _write(folder, entry, arrays, source_key(root, sources))
            return arrays
        except OSError as err:
            log.warning("data cache not written under %s: %s", folder, err)
    return arrays


def source_key_or_none(root: Path, sources: list[str]) -> list[list[object]] | None:
    try:
        return source_key(root, sources)
    except OSError:
        return None  # sources missing: read() reports them


def _paths(folder: Path, entry: str) -> tuple[Path, Path, Path]:
    return folder / f"{entry}.json", folder / f"{entry}-x.npy", folder / f"{entry}-y.npy"


def _read(folder: Path, entry: str, key: list[list[object]] | None) -> Arrays | None:
    key_path, x_path, y_path = _paths(folder, entry)
    try:
        if key is not None and json.loads(key_path.read_text()) == key:
            return np.load(x_path, mmap_mode="r"), np.load(y_path, mmap_mode="r")
    except (OSError, ValueError):
        pass  # no entry, or a stale or unreadable one
    return None


def _write(folder: Path, entry: str, arrays: Arrays, key: list[list[object]]) -> None:
    key_path, *paths = _paths(folder, entry)
    folder.mkdir(parents=True, exist_ok=True)
    for path, array in zip(paths, arrays, strict=True):
        partial = path.with_suffix(".partial.npy")
        np.save(partial, array)
        os.replace(partial, path)
    key_path.write_text(json.dumps(key))
