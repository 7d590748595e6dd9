"""A run process's log records reach the supervisor's log once formatted: its own format
adds the level and the logger, so the message carries neither (it read
`INFO/worker.execute] INFO:worker.execute: run 3 starts ...`)."""

from __future__ import annotations

import io
import logging
import multiprocessing
from multiprocessing.connection import Connection

from fedwatch.cli.serve_cmd import LOG_FORMAT
from worker.run_logs import LogRelay, PipeHandler

NAME = "worker.execute.relay-test"


def run_process(pipe: Connection) -> None:
    """Logs as a run's process does (`worker.child.main`'s logging set-up)."""
    logging.basicConfig(level=logging.INFO, handlers=[PipeHandler(pipe)], force=True)
    log = logging.getLogger(NAME)
    log.info("run %s starts at round %d", 3, 0)
    try:
        raise ValueError("boom")
    except ValueError:
        log.exception("run %s failed", 3)


def test_relayed_records_carry_the_supervisor_s_prefix_once() -> None:
    ctx = multiprocessing.get_context("fork")
    relay = LogRelay(ctx)
    received = io.StringIO()
    handler = logging.StreamHandler(received)
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    logger = logging.getLogger(NAME)
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        process = ctx.Process(target=run_process, args=(relay.writer,))
        process.start()
        relay.start()
        process.join(30)
        relay.join()
    finally:
        logger.removeHandler(handler)

    lines = received.getvalue().splitlines()
    assert process.exitcode == 0
    assert lines[0].endswith(f"INFO/{NAME}] run 3 starts at round 0")
    assert "INFO:" not in received.getvalue() and "ERROR:" not in received.getvalue()
    assert lines[1].endswith(f"ERROR/{NAME}] run 3 failed")
    assert lines[2] == "Traceback (most recent call last):" and lines[-1] == "ValueError: boom"
