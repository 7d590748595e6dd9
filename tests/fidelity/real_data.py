"""Where the tests find real datasets: `FEDWATCH_TEST_DATA`, a data root in torchvision's
layout (`.ci/run` points it at the shared, read-only datasets). Without it a test that
needs one skips, and fails under FEDWATCH_REQUIRE_SERVICES=1."""

from __future__ import annotations

import os

from tests.db.databases import unavailable
from worker.engine.data.vision import missing_files

ENV = "FEDWATCH_TEST_DATA"


def data_root(dataset: str) -> str:
    """The data root that holds `dataset`'s files."""
    root = os.environ.get(ENV)
    if not root:
        unavailable(f"{ENV} is not set: no real {dataset} to test on")
    missing = missing_files(dataset, root)
    if missing:
        unavailable(f"{ENV}={root} lacks {', '.join(missing)}")
    return root
