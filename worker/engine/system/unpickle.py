"""A restricted unpickler for data files: it admits dicts, lists, numbers and strings
and nothing else, and runs no code.

A pickle runs code only through the objects it names (a class or function, looked up
by `find_class`, then called by REDUCE, BUILD or NEWOBJ) or a persistent id: both are
refused here before anything is called. What remains builds Python's own containers
and scalars; a file holding any other type (a tuple, a set, bytes, None, a boolean) is
refused once loaded, naming the type.
"""

from __future__ import annotations

import io
import pickle
from pathlib import Path
from typing import Any

from worker.engine.errors import ConfigError

ADMITTED = (dict, list, int, float, str)
MAX_BYTES = 1 << 30


class _Refused(Exception):
    def __init__(self, what: str) -> None:
        self.what = what


class _Restricted(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        raise _Refused(f"{module}.{name}")

    def persistent_load(self, pid: Any) -> Any:
        raise _Refused("a persistent id")


def load_data_pickle(path: Path, field: str, shown: str) -> Any:
    """The dicts, lists, numbers and strings pickled in `path`; ConfigError
    (`<field>: <shown>: ...`, `shown` naming the file) for a file that holds anything
    else, or is no pickle."""
    where = f"{field}: {shown}"
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise ConfigError(f"{where}: {size} bytes, more than the {MAX_BYTES} allowed")
        raw = path.read_bytes()
    except OSError as err:
        raise ConfigError(f"{where}: cannot be read ({err.strerror or err})") from None
    try:
        value = _Restricted(io.BytesIO(raw)).load()
    except _Refused as refused:
        raise ConfigError(
            f"{where}: holds {refused.what}, which is not a dict, list, number or string "
            "(refused before it could run)"
        ) from None
    except Exception as err:  # a truncated or foreign file: any unpickling error
        raise ConfigError(f"{where}: not a readable pickle ({type(err).__name__})") from None
    foreign = _foreign(value)
    if foreign is not None:
        raise ConfigError(
            f"{where}: holds a {foreign}, which is not a dict, list, number or string"
        )
    return value


def _foreign(value: Any) -> str | None:
    """The name of the first type in `value` that is not admitted (None: all are).
    Containers are visited once each, however often they are referenced."""
    stack, seen = [value], set()
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind not in ADMITTED:
            return f"{kind.__module__}.{kind.__qualname__}".removeprefix("builtins.")
        if kind is dict or kind is list:
            if id(item) in seen:
                continue
            seen.add(id(item))
            stack.extend(item.keys() if kind is dict else ())
            stack.extend(item.values() if kind is dict else item)
    return None
