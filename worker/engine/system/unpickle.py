"""A restricted unpickler for data files: it admits dicts, lists, numbers and strings
and nothing else, and runs no code.

A pickle runs code only through the objects it names (a class or function, looked up
by `find_class`, then called by REDUCE, BUILD or NEWOBJ) or a persistent id: both are
refused here before anything is called. What remains builds Python's own containers
and scalars; a file holding any other type (a tuple, a set, bytes, None, a boolean) is
refused once loaded, naming the type.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

from worker.engine.errors import ConfigError

ADMITTED = (dict, list, int, float, str)
MAX_BYTES = 1 << 30
# The most values (numbers, strings, lists, dicts and the dicts' keys) a data file may
# hold, each list or dict that it shares by reference counted at its size every time it
# is referenced, as reading it copies it. Memory follows this count, not the file's
# size: a FedScale trace's session takes about 160 bytes while it is parsed and its
# sessions built (measured, 2 million sessions), so a trace of 2^22 values (2 million
# sessions, each an `active` and an `inactive` time) takes about 330 MB; a real trace
# (FedScale's 107 749 clients) holds a few million. A 0.4 MB file that shares one list of
# 20 000 sessions among 2 000 clients holds 80 million: before this count, reading it
# took the API past 6 GB.
MAX_VALUES = 1 << 22


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
    except OSError as err:
        raise ConfigError(f"{where}: cannot be read ({err.strerror or err})") from None
    if size > MAX_BYTES:
        raise ConfigError(f"{where}: {size} bytes, more than the {MAX_BYTES} allowed")
    try:
        with path.open("rb") as file:  # read as it is parsed: its bytes are not held
            value = _Restricted(file).load()
    except OSError as err:
        raise ConfigError(f"{where}: cannot be read ({err.strerror or err})") from None
    except _Refused as refused:
        raise ConfigError(
            f"{where}: holds {refused.what}, which is not a dict, list, number or string "
            "(refused before it could run)"
        ) from None
    except MemoryError as err:  # its objects outgrew the process's memory cap
        raise ConfigError(f"{where}: ran out of memory while it was read") from err
    except Exception as err:  # a truncated or foreign file: any unpickling error
        raise ConfigError(f"{where}: not a readable pickle ({type(err).__name__})") from None
    foreign = _foreign(value)
    if foreign is not None:
        raise ConfigError(
            f"{where}: holds a {foreign}, which is not a dict, list, number or string"
        )
    count = expanded_size(value)
    if count is None:
        raise ConfigError(f"{where}: holds a list or dict that contains itself")
    if count > MAX_VALUES:
        raise ConfigError(
            f"{where}: holds {count} values once the lists and dicts it shares are copied, "
            f"more than the {MAX_VALUES} a data file may hold"
        )
    return value


def expanded_size(value: Any) -> int | None:
    """How many values `value` holds (itself, and each list's items, each dict's keys
    and values, all the way down) with a list or dict referenced from several places
    counted in full at each; None where one contains itself (no copy would end). Each
    container is visited once, so this takes time in the file's size, not in the count."""
    sizes: dict[int, int] = {}
    open_ids: set[int] = set()
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        item, done = stack.pop()
        key = id(item)
        if done:
            children = item.values() if type(item) is dict else item
            inner = sum(sizes.get(id(c), 1) for c in children)
            sizes[key] = 1 + inner + (len(item) if type(item) is dict else 0)
            open_ids.discard(key)
            continue
        if key in open_ids:
            return None
        if key in sizes or type(item) not in (dict, list):
            continue
        open_ids.add(key)
        stack.append((item, True))
        children = item.values() if type(item) is dict else item
        stack.extend((c, False) for c in children if type(c) in (dict, list))
    return sizes.get(id(value), 1)


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
