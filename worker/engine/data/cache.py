"""Parsed datasets kept under the data root: after the first read of a torchvision
dataset (pickles, IDX or .mat files), its arrays are written as .npy files to
`<data.root>/.fedwatch-cache/` and later runs map them instead of parsing again.

An entry is keyed by the size and modification time of every source file, so a
replaced file is read again. A data root that cannot be written is read every time.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

FOLDER = ".fedwatch-cache"
FORMAT = 1  # bump when what is cached changes

log = logging.getLogger(__name__)
Arrays = tuple[np.ndarray, np.ndarray]


def source_key(root: Path, sources: list[str]) -> list[list[object]]:
    out: list[list[object]] = [["format", FORMAT]]
    for name in sources:
        stat = (root / name).stat()
        out.append([name, stat.st_size, stat.st_mtime_ns])
    return out


def cached(root: Path, entry: str, sources: list[str], read: Callable[[], Arrays]) -> Arrays:
    """The arrays (x, y) of `entry`, from the cache where its key still holds, else from
    `read()` (then cached)."""
    folder = root / FOLDER
    key_path = folder / f"{entry}.json"
    paths = (folder / f"{entry}-x.npy", folder / f"{entry}-y.npy")
    try:
        if json.loads(key_path.read_text()) == source_key(root, sources):
            return np.load(paths[0], mmap_mode="r"), np.load(paths[1], mmap_mode="r")
    except (OSError, ValueError):
        pass  # no entry, a stale one, or sources missing (read() reports them)
    arrays = read()
    try:
        folder.mkdir(exist_ok=True)
        for path, array in zip(paths, arrays, strict=True):
            partial = path.with_suffix(".partial.npy")
            np.save(partial, array)
            os.replace(partial, path)
        key_path.write_text(json.dumps(source_key(root, sources)))
    except OSError as err:
        log.warning("data cache not written under %s: %s", folder, err)
    return arrays
