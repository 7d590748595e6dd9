"""Relative paths that a user names (a config's `data.root` and a system model's files, a
page of the manual, a front-end file), and the folder they must stay inside.

A name the file system cannot look up is refused before it is looked up: one holding the
NUL character (Python's `ValueError`) or with a part longer than a file name may be
(`ENAMETOOLONG`); any other error of the lookup counts as "not there".
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path, PurePosixPath

# The longest file name Linux's file systems take (NAME_MAX), in bytes.
MAX_NAME_BYTES = 255
# The longest path a config field takes, in characters (its schema's `maxLength`, so the
# form refuses what the server would): one file name's worth. A real data folder or trace
# file is named in a few dozen.
MAX_PATH_CHARS = MAX_NAME_BYTES


def unnamable(name: str) -> str | None:
    """Why the file system could not look `name` up (None: it could)."""
    if "\x00" in name:
        return "holds the NUL character"
    longest = max((len(part.encode()) for part in PurePosixPath(name).parts), default=0)
    if longest > MAX_NAME_BYTES:
        return f"has a part of {longest} bytes, longer than a file name may be ({MAX_NAME_BYTES})"
    return None


def shown(name: str, chars: int = 40) -> str:
    """`name` quoted for an error message, cut after `chars` characters."""
    return repr(name) if len(name) <= chars else f"{name[:chars]!r}…"


def inside(root: Path, relative: str) -> Path | None:
    """`relative` under the folder `root`, resolved; None where it leaves `root` or the
    file system cannot look it up."""
    if unnamable(relative) is not None:
        return None
    base = root.resolve()
    try:
        found = (base / relative).resolve()
    except (OSError, RuntimeError):  # a loop of symbolic links (RuntimeError before 3.13)
        return None
    return found if found.is_relative_to(base) else None


def is_file(path: Path) -> bool:
    """Whether `path` is a file (following links); False also where the file system
    cannot look it up (a path past PATH_MAX)."""
    return _mode(path, stat.S_ISREG)


def is_dir(path: Path) -> bool:
    """Whether `path` is a folder, as `is_file`."""
    return _mode(path, stat.S_ISDIR)


def _mode(path: Path, test: Callable[[int], bool]) -> bool:
    try:
        return test(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False
