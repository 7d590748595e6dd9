"""The datasets a long-lived process (the embedded server, a Celery worker, `fedwatch
compare`) keeps in memory for the runs it starts (`worker.engine.data.kept_pools`)."""

from __future__ import annotations

import logging
from pathlib import Path

from db.settings import Settings
from worker.engine import KeptPools, default_parent

log = logging.getLogger(__name__)


def open_kept_pools(settings: Settings) -> KeptPools | None:
    """A new folder of kept datasets for this process (close it at the end); None when
    `FEDWATCH_KEEP_DATASETS_MB` is 0 or the folder cannot be made."""
    if settings.keep_datasets_mb == 0:
        return None
    parent = Path(settings.keep_datasets_dir) if settings.keep_datasets_dir else default_parent()
    try:
        pools = KeptPools.create(parent, settings.keep_datasets_mb << 20)
    except OSError as err:
        log.warning("datasets are not kept in memory across runs: %s", err)
        return None
    log.info(
        "datasets kept in memory across runs under %s (%d MiB at most)",
        pools.folder,
        settings.keep_datasets_mb,
    )
    return pools
