"""Datasets kept in memory across runs by the long-lived process that starts them.

The service executes each run in a process of its own that ends with the run, so what a
run loads dies with it. The process that starts the runs lives on: the embedded server,
a Celery worker, `fedwatch compare`. It owns a `KeptPools` folder in shared memory
(`/dev/shm`), its runs keep there the datasets they load (normalised, as raw arrays), and a
later run maps them read-only instead of reading and normalising again. Mapped pages are
shared by every run that maps them, not copied, and do not count towards a run's memory
cap (`RLIMIT_DATA` counts private writable memory only).

- A pool's key names its dataset, its folder and the size and time of each source file,
  as the data root's cache (`cache.py`) does, so a replaced file is read again.
- Runs that load the same pool at once wait for the first one (a lock per pool).
- The folder holds at most `budget` bytes: the pools least recently used go first (a run
  that maps one keeps its pages until it ends). A pool larger than the budget, or than
  the space free, is not kept.
- The owner removes the folder when it ends; folders whose owner died are removed by the
  next owner that starts.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from worker.engine.data.federated import Pool

log = logging.getLogger(__name__)

PARTS = ("x", "y", "x_test", "y_test")
PREFIX = "fedwatch-kept-"
FORMAT = 2  # bump when what a pool holds changes (2: torchvision images as their bytes)


@dataclass(frozen=True)
class KeptPools:
    """A folder of kept pools and its budget in bytes; sent to the runs' processes."""

    folder: Path
    budget: int

    @classmethod
    def create(cls, parent: Path, budget: int) -> KeptPools:
        """A new folder under `parent` for this process, after removing the folders of
        owners that are gone."""
        remove_orphans(parent)
        folder = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=parent)
        return cls(Path(folder), budget)

    def close(self) -> None:
        """Remove the folder; runs that map a pool keep it until they end."""
        shutil.rmtree(self.folder, ignore_errors=True)

    def pool(self, key: str, load: Callable[[], Pool]) -> Pool:
        """The pool `key`, mapped where it is kept, else `load()`ed and kept."""
        with _locked(self.folder / f".{key}.lock"):
            mapped = self._map(key)
            if mapped is not None:
                log.info("%s: mapped from the datasets kept in memory", key)
                return mapped
            loaded = load()
            if self._keep(key, loaded):
                return self._map(key) or loaded  # the private copy goes
            return loaded

    def entries(self) -> list[Path]:
        """Kept pools, least recently used first."""
        found = [p for p in self.folder.iterdir() if p.is_dir() and not p.name.startswith(".")]
        return sorted(found, key=lambda p: p.stat().st_mtime_ns)

    def _map(self, key: str) -> Pool | None:
        entry = self.folder / key
        try:
            _touch(entry)  # most recently used
            layout = json.loads((entry / "layout.json").read_text())
            arrays = [_open(entry / f"{part}.bin", **layout[part]) for part in PARTS]
        except (OSError, ValueError, KeyError, TypeError):
            return None  # not kept, or dropped meanwhile
        with warnings.catch_warnings():  # read-only on purpose: shared by every run
            warnings.filterwarnings("ignore", "The given NumPy array is not writable")
            x, y, x_test, y_test = (torch.from_numpy(a) for a in arrays)
        return x, y, x_test, y_test

    def _keep(self, key: str, pool: Pool) -> bool:
        size = sum(t.nbytes for t in pool)
        if size > self.budget:
            mb, budget = size >> 20, self.budget >> 20
            log.info("%s: %d MB, more than the %d MB kept in memory", key, mb, budget)
            return False
        with _locked(self.folder / ".budget.lock"):
            self._make_room(size)
            if shutil.disk_usage(self.folder).free < size:
                log.info("%s: not kept, %s has no room for %d MB", key, self.folder, size >> 20)
                return False
            partial = self.folder / f".{key}.{os.getpid()}.partial"
            try:
                partial.mkdir()
                layout = {}
                for part, tensor in zip(PARTS, pool, strict=True):
                    array = tensor.numpy()
                    array.tofile(partial / f"{part}.bin")
                    layout[part] = {"dtype": array.dtype.str, "shape": list(array.shape)}
                (partial / "layout.json").write_text(json.dumps(layout))
                partial.rename(self.folder / key)
                _touch(self.folder / key)
            except OSError as err:
                shutil.rmtree(partial, ignore_errors=True)
                log.warning("%s: not kept in memory: %s", key, err)
                return False
        return True

    def _make_room(self, size: int) -> None:
        entries = self.entries()
        used = sum(_size(e) for e in entries)
        for entry in entries:
            if used + size <= self.budget:
                return
            used -= _size(entry)
            shutil.rmtree(entry, ignore_errors=True)


def _open(path: Path, dtype: str, shape: list[int]) -> np.ndarray:
    """A kept array, mapped read-only."""
    return np.memmap(path, np.dtype(dtype), "r", shape=tuple(shape))


def _size(entry: Path) -> int:
    """The bytes of the pool's arrays."""
    return sum(f.stat().st_size for f in entry.glob("*.bin"))


def _touch(entry: Path) -> None:
    """Set the time the least recently used pool is told by (the clock's resolution:
    files' own times may tick only every few milliseconds)."""
    now = time.time_ns()
    os.utime(entry, ns=(now, now))


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """An exclusive lock between processes, released when they end however they end."""
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def remove_orphans(parent: Path) -> None:
    """Remove this user's kept-pool folders under `parent` whose owner is gone."""
    for folder in parent.glob(f"{PREFIX}*"):
        pid = folder.name.removeprefix(PREFIX).split("-")[0]
        try:
            ours = folder.stat().st_uid == os.getuid()
        except FileNotFoundError:
            continue  # its owner removed it meanwhile
        if ours and pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    """Whether process `pid` exists (one of another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def default_parent() -> Path:
    """Shared memory where the system has it (`/dev/shm`), else the temporary folder."""
    shm = Path("/dev/shm")
    return shm if shm.is_dir() and os.access(shm, os.W_OK) else Path(tempfile.gettempdir())


def pool_key(name: str, root: Path, source_key: object) -> str:
    """`<dataset>-<digest of the pools' format, the folder and its source files' sizes
    and times>`."""
    text = json.dumps([FORMAT, str(root.resolve()), source_key])
    return f"{name}-{hashlib.sha256(text.encode()).hexdigest()[:16]}"


_active: KeptPools | None = None


def keep_pools_in(pools: KeptPools | None) -> None:
    """Keep the pools this process loads in `pools` (None: load them every time)."""
    global _active
    _active = pools


def kept_pool(key: str, load: Callable[[], Pool]) -> Pool:
    """The pool `key` from this process's kept pools, if it has any, else `load()`."""
    return load() if _active is None else _active.pool(key, load)
