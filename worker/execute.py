"""The task body shared by Celery workers and the embedded executor."""

from __future__ import annotations

import logging
import threading
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from worker.claims import claim_execution, store_outcome
from worker.engine import ConfigError, RunConfig, simulate
from worker.recorder import Recorder, RunLost
from worker.settings import Settings

log = logging.getLogger(__name__)


def execute_run(
    run_id: int,
    *,
    sessions: sessionmaker[Session],
    settings: Settings,
    worker: str,
    stop: threading.Event | None = None,
) -> None:
    """Claim the run, resume it from its last checkpoint, record it, store the outcome.

    A run that another live worker holds, or that is finished or cancelled, is left
    alone. When `stop` is set (the process shuts down) the run goes back to `queued`
    and resumes from its checkpoint next time.
    """
    claimed = claim_execution(sessions, run_id, worker, settings)
    if claimed is None:
        return
    config = for_this_machine(claimed.config, settings)
    checkpoint = claimed.checkpoint
    cancel_requested = claimed.cancel_requested
    claim = claimed.claim
    start = int(checkpoint["round"]) if checkpoint else 0
    log.info("run %s starts at round %d on %s", run_id, start, worker)
    recorder = Recorder(
        sessions,
        run_id,
        config.data.n_clients,
        settings.flush_rounds,
        settings.flush_seconds,
        start_round=start,
        stop=stop,
        claim=claim,
        checkpoint_seconds=settings.checkpoint_seconds,
        retry_s=settings.db_retry_s,
    )
    recorder.cancel_requested = cancel_requested
    error: str | None = None
    result: dict[str, Any] | None = None
    try:
        summary = simulate(config, recorder, checkpoint, recorder.should_stop)
        recorder.close()
    except RunLost as err:
        log.warning("%s; this execution stops", err)
        return
    except ConfigError as err:
        outcome, error = "failed", str(err)
    except Exception as err:
        log.exception("run %s failed", run_id)
        outcome, error = "failed", f"{type(err).__name__}: {err}"
    else:
        outcome, result = "succeeded", summary.to_dict()
        if summary.stopped and recorder.cancel_requested:
            outcome = "cancelled"
        elif summary.stopped:
            outcome, result = "queued", None
    finally:
        recorder.abandon()  # after a failure; nothing to do once closed
    if not store_outcome(sessions, run_id, outcome, result, error, claim, settings):
        log.warning("run %s was taken over by another execution; its outcome stands", run_id)


def for_this_machine(config: RunConfig, settings: Settings) -> RunConfig:
    """Datasets left at the default root are read from the service's data root."""
    if config.data.root != "data":
        return config
    data = config.data.model_copy(update={"root": settings.data_root})
    return config.model_copy(update={"data": data})
