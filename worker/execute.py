"""The body of a claimed run, executed in the run's own process (`worker.child`)."""

from __future__ import annotations

import logging
import threading
from typing import Any

import torch
from sqlalchemy.orm import Session, sessionmaker

from db.settings import Settings
from worker.claims import start_execution, store_outcome
from worker.data_root import for_this_machine, relative_paths
from worker.engine import ConfigError, DatasetMissing, simulate
from worker.recorder import Recorder, RunLost

log = logging.getLogger(__name__)


def execute_claimed(
    run_id: int,
    claim: str,
    *,
    sessions: sessionmaker[Session],
    settings: Settings,
    stop: threading.Event,
    cancel: threading.Event,
) -> bool:
    """Resume the run from its last checkpoint, record it and store its outcome, while
    the run still carries `claim` (the token of this execution).

    Returns True when it stopped at a round boundary before the end, with a checkpoint
    of where it stopped: `stop` was set (shutdown, time limit), `cancel` was set or a
    cancel was read from the database. The supervisor then settles the status, knowing
    why. Returns False once the outcome is stored, or when the run was deleted or taken
    over (nothing more to do).
    """
    start = start_execution(sessions, run_id, claim, settings)
    if start is None:
        return False
    try:  # checked again here: this machine's data root and settings may differ
        config = for_this_machine(start.config, settings)
    except ConfigError as err:
        store_outcome(sessions, run_id, "failed", None, str(err), claim, settings)
        return False
    checkpoint = start.checkpoint
    first = int(checkpoint["round"]) if checkpoint else 0
    threads = torch.get_num_threads()
    log.info(
        "run %s starts at round %d on %s, %d torch threads", run_id, first, start.worker, threads
    )
    recorder = Recorder(
        sessions,
        run_id,
        config.data.n_clients,
        settings.flush_rounds,
        settings.flush_seconds,
        start_round=first,
        stop=stop,
        cancel=cancel,
        claim=claim,
        checkpoint_seconds=settings.checkpoint_seconds,
        retry_s=settings.db_retry_s,
    )
    recorder.cancel_requested = start.cancel_requested
    error: str | None = None
    result: dict[str, Any] | None = None
    try:
        summary = simulate(config, recorder, checkpoint, recorder.should_stop)
        recorder.close()
    except RunLost as err:
        log.warning("%s; this execution stops", err)
        return False
    except DatasetMissing as err:  # what to do, as this server allows it
        outcome, error = "failed", relative_paths(err.advice(settings.allow_download), settings)
    except ConfigError as err:
        outcome, error = "failed", relative_paths(str(err), settings)
    except Exception as err:
        log.exception("run %s failed", run_id)
        outcome, error = "failed", relative_paths(describe_error(err, settings), settings)
    else:
        if summary.stopped:
            return True
        outcome, result = "succeeded", summary.to_dict()
    finally:
        recorder.abandon()  # after a failure; nothing to do once closed
    if not store_outcome(sessions, run_id, outcome, result, error, claim, settings):
        log.warning("run %s was taken over by another execution; its outcome stands", run_id)
    return False


OUT_OF_MEMORY = ("can't allocate memory", "not enough memory", "out of memory")


def describe_error(err: BaseException, settings: Settings) -> str:
    """The stored error of a failed run; running out of memory names the cap."""
    text = f"{type(err).__name__}: {err}"
    if isinstance(err, MemoryError) or any(s in str(err).lower() for s in OUT_OF_MEMORY):
        return (
            f"out of memory: the run needed more than the {settings.max_run_memory_mb} MB "
            f"a run may use on this server (FEDWATCH_MAX_RUN_MEMORY_MB); {text}"
        )
    return text
