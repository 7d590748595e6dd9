"""`fedwatch sync`: what it says when there is nothing to upload or nobody to take it,
and a spool cut short by a killed process."""

from __future__ import annotations

from pathlib import Path

import pytest

from fedwatch.command import main
from fedwatch.spool import Spool, read_spool
from tests.service.servers import free_port


def test_an_empty_directory_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sync", str(tmp_path), "--url", "http://127.0.0.1:1"]) == 2
    assert "no spool files (.jsonl)" in capsys.readouterr().err


def test_an_unreachable_server_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Spool.create(tmp_path, {"name": "r", "config": {}, "n_clients": 2})
    assert main(["sync", str(tmp_path), "--url", f"http://127.0.0.1:{free_port()}"]) == 2
    assert "unreachable" in capsys.readouterr().err


def test_a_line_cut_short_is_skipped_and_a_round_logged_twice_kept_once(tmp_path: Path) -> None:
    spool = Spool.create(tmp_path, {"name": "r", "config": {}, "n_clients": 2})
    spool.append([{"kind": "round", "round": 0, "metrics": {"a": 1.0}}])
    spool.append([{"kind": "round", "round": 0, "metrics": {"a": 2.0}}])
    with spool.path.open("a") as f:
        f.write('{"kind": "round", "round": 1, "metr')
    contents = read_spool(spool.path)
    assert contents.declaration == {"name": "r", "config": {}, "n_clients": 2}
    assert contents.rounds == [{"round": 0, "metrics": {"a": 1.0}}]
