"""The Flower tests need the optional extra (`pip install 'fedwatch[flower]'`): `make
test` runs them in `.venv-flower`, an environment with that extra installed, as a
user's would be (`make test-flower` alone). They record into the SDK tests' real
`fedwatch serve`, started from that environment."""

from __future__ import annotations

import pytest

pytest.importorskip(
    "flwr.serverapp.strategy", reason="flwr is not installed here: `make test-flower` runs these"
)

from tests.client.conftest import server  # noqa: F401  (the fixture)
