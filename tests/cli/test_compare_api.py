"""`fedwatch compare` and `GET /api/compare` give the same table for the same runs: the
CLI's runs are stored in the service's database as the worker stores them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from db.migrate import upgrade
from db.runs import new_run
from db.session import make_engine, make_sessionmaker
from fedwatch.command import main
from tests.api.helpers import embedded_settings
from worker.engine import metrics


def store(url: str, results: list[dict[str, Any]]) -> list[int]:
    engine = make_engine(url)
    try:
        with make_sessionmaker(engine)() as session:
            runs = []
            for result in results:
                run = new_run(result["config"], queue="cpu")
                run.status, run.summary = "succeeded", result["summary"]
                run.rounds_done = len(result["rounds"])
                runs.append(run)
            session.add_all(runs)
            session.commit()
            return [r.id for r in runs]
    finally:
        engine.dispose()


def test_cli_and_api_tables_agree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "compare"
    args = ["compare", "cafed-synthetic", "--seeds", "2", "--out", str(out), "--jobs", "2"]
    assert main([*args, "--set", "rounds=4", "--set", "eval.client_every=2"]) == 0
    capsys.readouterr()
    (cli,) = json.loads((out / "table.json").read_text())["variants"]
    order = [r["group"] for r in cli["rows"]]  # stored in the CLI's order: the same rows
    results = [json.loads(p.read_text()) for p in out.glob("*-seed*.json")]
    results.sort(key=lambda r: (order.index(r["config"]["algorithm"]["name"]), r["config"]["seed"]))
    url = f"sqlite:///{tmp_path / 'fedwatch.sqlite3'}"
    upgrade(url)
    ids = store(url, results)

    with TestClient(create_app(embedded_settings(url))) as client:
        params = {"runs": ",".join(map(str, ids))}  # the reference: the one grouping's
        response = client.get("/api/compare", params=params)
        tex = client.get("/api/compare", params={**params, "format": "tex"})
    assert response.status_code == 200, response.text
    api = response.json()

    assert api["columns"] == cli["columns"] == [c.name for c in metrics.compared()]
    assert api["headings"] == cli["headings"] and api["caption"] == cli["caption"]
    assert api["reference"] == cli["reference"] == "cafed"
    assert api["reference_label"] == cli["reference_label"] == "CA-Fed"
    assert [r["label"] for r in api["table"]] == [r["label"] for r in cli["rows"]] == [
        "CA-Fed", "Unbiased", "AdaFed", "F3AST"
    ]  # fmt: skip
    rows = {r["group"]: r for r in api["table"]}
    assert set(rows) == {r["group"] for r in cli["rows"]}
    tests = {(t["group"], t["metric"]): t for t in api["ttests"]}
    for row in cli["rows"]:
        mine = rows[row["group"]]
        assert (mine["n"], mine["seeds"]) == (len(row["seeds"]), row["seeds"])
        assert mine["stats"] == row["stats"]
    assert tests == {(t["group"], t["metric"]): t for t in cli["tests"]}
    assert len(tests) > 0
    some = rows["unbiased"]["stats"]
    assert some["final_client_acc_mean"]["n"] == 2 and some["time_avg_test_acc"]["std"] is not None
    # the API's LaTeX export is the CLI's
    assert tex.text == (out / "table.tex").read_text()
