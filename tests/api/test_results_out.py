"""Results out of the API: every round a page at a time, the client records with their
staleness, the run bundle with its config, comparison tables and figures as files."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from pypdf import PdfReader

from tests.api.test_ingest import external, post
from tests.client.rounds import Logged

ROUNDS = 75  # past two staleness marks (every 32 rounds)


def logged_run(client: TestClient, seed: int = 0, name: str = "mine") -> tuple[int, Logged]:
    logged = Logged.random(ROUNDS, n_clients=7, seed=seed)
    run = external(client, n_clients=7, name=name, config={"lr": 0.1, "seed": seed})
    rounds = [
        {
            "round": t,
            "metrics": {"test_acc": logged.acc[t], "train_loss": 1 - logged.acc[t]},
            "available": logged.available[t].tolist(),
            "selected": logged.selected[t].tolist(),
            "weights": {str(k): float(w) for k, w in zip(logged.selected[t],
                                                          logged.weights[t], strict=True)},
            "wall_s": 0.1 * t,
        }
        for t in range(ROUNDS)
    ]  # fmt: skip
    assert post(client, run["id"], rounds).status_code == 200
    done = client.post(f"/api/runs/{run['id']}/finish", json={"status": "succeeded"})
    assert done.status_code == 200, done.text
    return run["id"], logged


def pages(client: TestClient, path: str, **params: Any) -> list[list[dict[str, Any]]]:
    out, after = [], -1
    while True:
        page = client.get(path, params={**params, "after": after}).json()
        out.append(page["data"])
        if page["next_after"] is None:
            return out
        after = page["next_after"]


def test_rounds_page_by_page_at_full_resolution(client: TestClient) -> None:
    run_id, logged = logged_run(client)

    got = pages(client, f"/api/runs/{run_id}/rounds", limit=20, names="test_acc")

    assert [len(p) for p in got] == [20, 20, 20, 15]
    rows = [r for p in got for r in p]
    assert [r["round"] for r in rows] == list(range(ROUNDS))
    assert [r["test_acc"] for r in rows] == logged.acc
    assert all(set(r) == {"round", "test_acc"} for r in rows)


@pytest.mark.parametrize("limit", [1, 7, 33, 500])
def test_client_rounds_carry_staleness_across_marks(client: TestClient, limit: int) -> None:
    run_id, logged = logged_run(client, seed=1)

    rows = [r for p in pages(client, f"/api/runs/{run_id}/clients/rounds", limit=limit) for r in p]

    assert [r["round"] for r in rows] == list(range(ROUNDS))
    assert [r["available"] for r in rows] == [a.tolist() for a in logged.available]
    assert [r["selected"] for r in rows] == [s.tolist() for s in logged.selected]
    staleness = np.array([r["staleness"] for r in rows]).T  # clients × rounds
    assert staleness.tolist() == logged.staleness()
    first = {int(k): v for k, v in rows[0]["weights"].items()}
    assert first == pytest.approx(dict(zip(logged.selected[0].tolist(), logged.weights[0],
                                           strict=True)))  # fmt: skip


def test_client_rounds_fields_and_bad_fields(client: TestClient) -> None:
    run_id, _ = logged_run(client, seed=2)

    only = client.get(f"/api/runs/{run_id}/clients/rounds", params={"fields": "selected"})
    bad = client.get(f"/api/runs/{run_id}/clients/rounds", params={"fields": "selected,x"})

    row = only.json()["data"][0]
    assert row["selected"] is not None and row["available"] is None and row["staleness"] is None
    assert bad.status_code == 422 and bad.json()["detail"][0]["loc"] == ["query", "fields"]


def test_bundle_zip_and_json_carry_the_config(client: TestClient) -> None:
    run_id, logged = logged_run(client, seed=4, name="bundled")

    zipped = client.get(f"/api/runs/{run_id}/export.zip")
    whole = client.get(f"/api/runs/{run_id}/export.json")
    flat = client.get(f"/api/runs/{run_id}/export.csv")

    assert zipped.headers["content-type"] == "application/zip"
    assert f'filename="run-{run_id}.zip"' in zipped.headers["content-disposition"]
    archive = zipfile.ZipFile(io.BytesIO(zipped.content))
    assert set(archive.namelist()) == {"README.txt", "run.json", "config.json", "rounds.csv",
                                       "clients.csv"}  # fmt: skip
    assert json.loads(archive.read("config.json")) == {"lr": 0.1, "seed": 4}
    info = json.loads(archive.read("run.json"))
    assert (info["name"], info["status"]) == ("bundled", "succeeded")
    assert info["summary"]["best_test_acc"] == max(logged.acc)
    rounds = list(csv.DictReader(io.StringIO(archive.read("rounds.csv").decode())))
    assert [float(r["test_acc"]) for r in rounds] == logged.acc
    assert archive.read("rounds.csv").decode() == flat.text  # the CSV as it was
    clients = list(csv.DictReader(io.StringIO(archive.read("clients.csv").decode())))
    assert [r["selected"] for r in clients] == [" ".join(map(str, s)) for s in logged.selected]
    assert [r["available"] for r in clients] == [" ".join(map(str, a)) for a in logged.available]
    body = whole.json()
    assert body["config"] == {"lr": 0.1, "seed": 4} and body["run"]["id"] == run_id
    assert [r["test_acc"] for r in body["rounds"]] == logged.acc
    assert [c["selected"] for c in body["clients"]] == [s.tolist() for s in logged.selected]


def test_compare_exports_and_figure(client: TestClient) -> None:
    ids = [logged_run(client, seed=s, name=f"cmp{s}")[0] for s in (10, 11, 12)]
    runs = ",".join(map(str, ids))

    tex = client.get("/api/compare", params={"runs": runs, "group_by": "none", "format": "tex"})
    table = client.get("/api/compare", params={"runs": runs, "group_by": "none", "format": "csv",
                                               "columns": "best_test_acc"})  # fmt: skip
    pdf = client.get("/api/compare/figure.pdf", params={"runs": runs, "band": "ci"})
    svg = client.get("/api/compare/figure.svg", params={"runs": runs, "width": "full"})
    curves = client.get("/api/compare", params={"runs": runs}).json()

    assert tex.status_code == 200 and tex.headers["content-type"] == "application/x-tex"
    # the machine's heading (wall time apart), the columns' head, 3 rows
    assert tex.text.startswith("\\begin{table}") and tex.text.count("\\\\\n") == 5
    assert "machine (not compared)" in tex.text
    rows = list(csv.DictReader(io.StringIO(table.text)))
    assert [r["group"] for r in rows] == [f"#{i} cmp{s}" for i, s in zip(ids, (10, 11, 12),
                                                                        strict=True)]  # fmt: skip
    assert next(k for k in rows[0] if k.startswith("best")) == "best_test_acc[%].mean"
    assert not any(k.startswith("final_test_acc") for k in rows[0])
    assert pdf.headers["content-type"] == "application/pdf"
    text = PdfReader(io.BytesIO(pdf.content)).pages[0].extract_text()
    assert "test accuracy (%)" in text and "external" in text
    # the three logged runs' accuracies are the same: no band, said in the caption
    assert "mean of n = 3 runs per group; identical runs, no band: external" in (
        " ".join(text.split())
    )
    assert svg.headers["content-type"].startswith("image/svg+xml") and "round" in svg.text
    (group,) = curves["groups"]
    assert curves["band_clip"] == "clipped to [0, 100] %"
    assert group["std_low"] == group["std_high"] == group["ci_low"] == group["mean"]


@pytest.mark.parametrize(
    ("params", "loc"),
    [
        ({"alpha": "1.5"}, "alpha"),
        ({"columns": "nope"}, "columns"),
        ({"format": "xlsx"}, "format"),
    ],
)
def test_compare_refuses_bad_table_options(
    client: TestClient, params: dict[str, str], loc: str
) -> None:
    run_id, _ = logged_run(client, seed=20)

    response = client.get("/api/compare", params={"runs": str(run_id), **params})

    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["query", loc]
