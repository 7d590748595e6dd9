"""`fedwatch tune --server`: the table arguments travel as the query of the server's
tables, as `fedwatch.read.table_params` spells them (no server: the transport answers)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from fedwatch.cli import tune_remote
from fedwatch.command import main
from fedwatch.transport import Transport

TUNE = ["tune", "example1", "--param", "client.lr=log:1e-3:1", "--server", "http://127.0.0.1:9"]


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    """What the command sends: its tune (submitted as tune 7, done at once), then its
    GETs, each with its query as the transport sends it (no None)."""
    sent: list[tuple[str, dict[str, Any]]] = []

    def submit(transport: Transport, body: Mapping[str, Any]) -> int:
        sent.append(("submit", {}))
        return 7

    def get(self: Transport, path: str, params: Mapping[str, Any] | None = None) -> bytes:
        sent.append((path, {k: v for k, v in (params or {}).items() if v is not None}))
        return b"the tables"

    monkeypatch.setattr(tune_remote, "submit", submit)
    monkeypatch.setattr(tune_remote, "wait", lambda *args: {"status": "done"})
    monkeypatch.setattr(Transport, "get", get)
    return sent


def test_the_query_carries_each_table_argument(
    asked: list[tuple[str, dict[str, Any]]], capsys: pytest.CaptureFixture[str]
) -> None:
    table = ["--reference", "fedavg", "--alpha", "0.2", "--columns", "final_param,final_opt_gap"]
    table += ["--label", "mifa=MIFA, with memory", "--label", "fedavg=a:b", "--format", "md"]

    assert main([*TUNE, *table]) == 0

    assert asked == [
        ("submit", {}),
        (
            "/api/tunes/7/tables",
            {
                "format": "md",
                "reference": "fedavg",
                "alpha": 0.2,
                "columns": "final_param,final_opt_gap",
                "labels": r"mifa:MIFA\, with memory,fedavg:a\:b",
            },
        ),
    ]
    assert capsys.readouterr().out == "the tables\n"


def test_without_table_arguments_the_query_has_the_defaults(
    asked: list[tuple[str, dict[str, Any]]],
) -> None:
    assert main(TUNE) == 0

    assert asked == [("submit", {}), ("/api/tunes/7/tables", {"format": "text", "alpha": 0.05})]


def test_a_group_renamed_twice_is_refused_before_the_tune_is_submitted(
    asked: list[tuple[str, dict[str, Any]]], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([*TUNE, "--label", "mifa=A", "--label", "mifa=B"])

    assert code == 2
    assert "--label: 'mifa' is renamed twice" in capsys.readouterr().err
    assert asked == []
