"""The compose stack, once for the module's tests (`make test-deploy`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.deploy.stack import Stack, compose_stack


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    with compose_stack() as stack:
        yield stack
