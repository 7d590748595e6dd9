"""The Flower tests need the client's extra (`pip install 'fedwatch-client[flower]'`):
`make test` runs them in `.venv-flower`, an environment holding only that, Flower's
simulation engine and the test tools, as a Flower user's would (`make test-flower`
alone). They record into the SDK tests' real `fedwatch serve`, the main environment's
(`FEDWATCH_TEST_SERVER`)."""

from __future__ import annotations

import pytest

pytest.importorskip(
    "flwr.serverapp.strategy", reason="flwr is not installed here: `make test-flower` runs these"
)

from tests.client.conftest import server  # noqa: F401  (the fixture)
