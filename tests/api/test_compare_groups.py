"""`GET /api/compare` and its files group runs, choose the reference, drop duplicate
seeds and warn of mixed configs by the one grouping (`worker.results.grouping`), and name
groups as a paper does, renamed with `labels=` in every file and figure."""

from __future__ import annotations

import csv
import io
from typing import Any

from fastapi.testclient import TestClient
from pypdf import PdfReader

from tests.api.test_ingest import external, post

ROUNDS = 6


def run_of(client: TestClient, algorithm: str, seed: int, preset: str = "example1",
           **config: Any) -> int:  # fmt: skip
    """An external run of `algorithm` and `seed` that names `preset` in its config."""
    body = {"name": preset, "algorithm": algorithm, "seed": seed, **config}
    run = external(client, n_clients=2, name=f"{preset} {algorithm} {seed}", config=body)
    acc = 0.5 + 0.05 * seed + (0.2 if algorithm == "fedlaavg" else 0.0)
    rounds = [
        {"round": t, "metrics": {"test_acc": acc + 0.01 * t}, "available": [0, 1],
         "selected": [0, 1], "wall_s": 0.1 * t}
        for t in range(ROUNDS)
    ]  # fmt: skip
    assert post(client, run["id"], rounds).status_code == 200
    assert client.post(f"/api/runs/{run['id']}/finish", json={"status": "succeeded"}).is_success
    return int(run["id"])


def readme_runs(client: TestClient) -> list[int]:
    """README steps 2 and 3: FedAvg seed 0, then FedAvg and FedLaAvg over seeds 0, 1, 2."""
    first = run_of(client, "fedavg", 0)
    return [first, *(run_of(client, a, s) for a in ("fedavg", "fedlaavg") for s in (0, 1, 2))]


def compare(client: TestClient, ids: list[int], **params: Any) -> Any:
    return client.get("/api/compare", params={"runs": ",".join(map(str, ids)), **params})


def test_the_reference_is_the_presets_whatever_the_order_of_the_runs(client: TestClient) -> None:
    ids = readme_runs(client)

    answers = [compare(client, order).json() for order in (ids, ids[::-1])]

    for got in answers:
        assert (got["reference"], got["reference_label"]) == ("fedlaavg", "FedLaAvg")
        assert got["reference_why"] == "preset"
        assert [(r["group"], r["label"], r["seeds"]) for r in got["table"]] == [
            ("fedavg", "FedAvg", [0, 1, 2]),
            ("fedlaavg", "FedLaAvg", [0, 1, 2]),
        ]
        assert "Reference: FedLaAvg (the preset's proposed method)." in got["caption"]


def test_a_duplicate_seed_is_dropped_keeping_the_newest_and_said_everywhere(
    client: TestClient,
) -> None:
    ids = readme_runs(client)
    said = f"FedAvg: seed 0 ran 2 times: kept the newest run, #{ids[1]}; dropped #{ids[0]}."

    got = compare(client, ids).json()
    files = {fmt: compare(client, ids, format=fmt).text for fmt in ("csv", "md", "tex")}

    assert got["dropped"] == [ids[0]] and ids[0] not in [r["id"] for r in got["runs"]]
    (warning,) = got["warnings"]
    assert warning == {"kind": "duplicate_seed", "group": "fedavg", "label": "FedAvg",
                       "message": said, "runs": [ids[0]], "keys": []}  # fmt: skip
    assert said in got["caption"] and said in files["md"]
    assert said.replace("#", r"\#") in files["tex"]
    rows = {r["group"]: r for r in csv.DictReader(io.StringIO(files["csv"]))}
    assert rows["FedAvg"]["notes"] == said and rows["FedLaAvg"]["notes"] == ""
    assert rows["FedAvg"]["seeds"] == "0 1 2"


def test_a_group_of_mixed_configs_is_warned(client: TestClient) -> None:
    ids = [run_of(client, "fedavg", s, lr=0.1 if s else 0.01) for s in (0, 1, 2)]

    got = compare(client, ids).json()

    (warning,) = got["warnings"]
    assert (warning["kind"], warning["keys"], warning["runs"]) == ("mixed_configs", ["lr"], ids)
    assert "FedAvg: mixed configs: its runs differ in lr" in got["caption"]


def test_labels_are_never_dotted_and_renamed_into_every_file(client: TestClient) -> None:
    ids = readme_runs(client)[1:]
    labels = "fedavg:FedAvg (ours),FedLaAvg:LaAvg\\, tuned"

    got = compare(client, ids, labels=labels).json()
    csv_text = compare(client, ids, labels=labels, format="csv").text
    tex = compare(client, ids, labels=labels, format="tex").text
    pdf = client.get("/api/compare/figure.pdf", params={"runs": ",".join(map(str, ids)),
                                                          "labels": labels})  # fmt: skip

    assert got["labels"] == {"fedavg": "FedAvg (ours)", "fedlaavg": "LaAvg, tuned"}
    assert [g["label"] for g in got["groups"]] == ["FedAvg (ours)", "LaAvg, tuned"]
    assert got["reference_label"] == "LaAvg, tuned"
    groups = [r["group"] for r in csv.DictReader(io.StringIO(csv_text))]
    assert groups == ["FedAvg (ours)", "LaAvg, tuned"]
    assert "FedAvg (ours) &" in tex and "LaAvg, tuned (reference) &" in tex
    legend = PdfReader(io.BytesIO(pdf.content)).pages[0].extract_text()
    assert "FedAvg (ours)" in legend and "LaAvg, tuned" in legend
    for text in (csv_text, tex, legend, str(got["caption"])):
        assert "algorithm.name" not in text and "fedavg" not in text


def test_bad_labels_and_references_are_422s_naming_the_bad_part(client: TestClient) -> None:
    ids = readme_runs(client)[1:]

    for params, where, says in [
        ({"labels": "fedavg"}, "labels", "'fedavg': expected GROUP:NAME"),
        ({"labels": "mifa:MIFA"}, "labels", "'mifa' is not one of the groups"),
        ({"labels": "fedavg:X,fedlaavg:X"}, "labels", "are both 'X'"),
        ({"reference": "sgd"}, "reference", "'sgd' is not one of the groups"),
    ]:
        answer = compare(client, ids, **params)
        figure = client.get("/api/compare/figure.svg", params={"runs": ",".join(map(str, ids)),
                                                               **params})  # fmt: skip
        assert answer.status_code == 422, params
        (detail,) = answer.json()["detail"]
        assert detail["loc"] == ["query", where] and says in detail["msg"]
        assert figure.status_code == (422 if where == "labels" else 200)


def test_a_presets_headline_values_are_its_tables_first_columns(client: TestClient) -> None:
    ids = [run_of(client, a, s, "stragglers") for a in ("fedavg", "fednova") for s in (0, 1)]

    got = compare(client, ids).json()
    presets = {p["name"]: p for p in client.get("/api/presets").json()}

    assert got["preset"] == "stragglers"
    assert got["headline"] == ["time_to_target_s", "dropped_updates_avg"]
    assert got["columns"][:2] == got["headline"] == presets["stragglers"]["headline"]
    assert presets["async-vs-sync"]["headline"] == ["time_to_target_s",
                                                    "update_staleness_mean_avg"]  # fmt: skip


def test_sync_and_async_methods_are_not_compared_in_rounds(client: TestClient) -> None:
    ids = [run_of(client, a, s, "async-vs-sync") for a in ("fedavg", "fedbuff") for s in (0, 1)]

    got = compare(client, ids).json()
    md = compare(client, ids, format="md").text

    assert "rounds_to_target" not in got["columns"]
    assert "rounds_to_target" in got["columns_left_out"]
    assert got["columns"][:2] == ["time_to_target_s", "update_staleness_mean_avg"]
    said = "Rounds are not compared: FedAvg counts synchronous rounds, FedBuff (async) server"
    assert said in got["caption"] and said in md and "rounds→" not in md
