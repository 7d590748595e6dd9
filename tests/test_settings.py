"""The settings object: an empty API token means no token, wherever it comes from."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from db.migrate import upgrade
from db.settings import Settings
from tests.api.helpers import embedded_settings, example1, submit, wait_final


def test_an_empty_token_in_the_environment_means_no_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FEDWATCH_API_TOKEN", "")
    assert Settings().api_token is None
    monkeypatch.setenv("FEDWATCH_API_TOKEN", "s3cret")
    assert Settings().api_token == "s3cret"


def test_with_an_empty_token_writes_need_no_token(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fedwatch.sqlite3'}"
    upgrade(url)
    with TestClient(create_app(embedded_settings(url, api_token=""))) as client:
        run = submit(client, example1(3))
        assert wait_final(client, run["id"])["status"] == "succeeded"
