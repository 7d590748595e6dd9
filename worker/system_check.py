"""System models built apart: the files a run's system model reads (FedScale's traces)
are the users', and a hostile one can take far more memory to read than its size says.
Admission builds them in a process of its own, forked from the runs' fork server
(`child.py`, so it starts in milliseconds), its memory capped at
`FEDWATCH_MAX_FILE_READ_MB` beyond its start-up and its time at `READ_SECONDS`. What
comes back is a verdict per model, never the model: the API's memory stays what it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from multiprocessing.connection import Connection

from worker import child
from worker.engine import ConfigError, SystemSpec

READ_SECONDS = 30.0  # a real trace of FedScale's (107 749 clients) reads in about 2 s
MEMORY_SETTING = "FEDWATCH_MAX_FILE_READ_MB"


def check_systems(specs: Sequence[SystemSpec], cap_mb: int) -> list[str | None]:
    """Each spec's model built in one capped process: per spec, None where it builds, or
    why not (a `ConfigError`'s text, `<field>: ...`)."""
    if not specs:
        return []
    ctx = child.context()
    receive, send = ctx.Pipe(duplex=False)
    process = ctx.Process(
        target=_build_all, args=(list(specs), cap_mb, send), name="fedwatch-system-check"
    )
    process.start()
    send.close()
    try:
        if not receive.poll(READ_SECONDS):
            return [_failed(s, f"took more than {READ_SECONDS:g} s to read") for s in specs]
        verdicts: list[str | None] = receive.recv()
        return verdicts
    except EOFError:  # it died: killed for its memory, or by a crash
        process.join()
        why = f"could not be read (the reading process ended with status {process.exitcode})"
        return [_failed(s, why) for s in specs]
    finally:
        process.kill()
        process.join()
        receive.close()


def _failed(spec: SystemSpec, why: str) -> str:
    return f"system.{spec.kind}: its files {why}"


def _build_all(specs: list[SystemSpec], cap_mb: int, send: Connection) -> None:
    """The checking process: its memory capped, then each model built and dropped."""
    child.cap_memory(cap_mb)
    send.send([_verdict(spec, cap_mb) for spec in specs])
    send.close()


def _verdict(spec: SystemSpec, cap_mb: int) -> str | None:
    over = f"past the {cap_mb} MiB this server gives reading system files ({MEMORY_SETTING})"
    try:
        spec.build()
    except ConfigError as err:
        if isinstance(err.__cause__, MemoryError):
            return f"{err}, {over}"
        return str(err)
    except MemoryError:
        return _failed(spec, f"ran out of memory while they were read, {over}")
    return None
