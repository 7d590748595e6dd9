from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from fastapi.testclient import TestClient
from sqlalchemy import select

from api.main import create_app
from db.models import Checkpoint
from db.session import make_engine, make_sessionmaker
from tests.api.helpers import (
    embedded_settings,
    example1,
    reference,
    submit,
    wait_final,
    wait_rounds,
)
from tests.engine.test_data import write_tiny_mnist
from tests.eventually import eventually
from tests.metrics_probe import metrics_added
from worker.engine import metrics
from worker.engine.metrics import MetricSpec


def test_submit_runs_to_completion(client: TestClient) -> None:
    run = submit(client, example1(60, algorithm__name="fedavg"), notes="<script>x</script>")
    assert run["status"] == "queued"
    assert (run["rounds_total"], run["algorithm"], run["dataset"]) == (
        60,
        "fedavg",
        "mean_estimation",
    )
    done = wait_final(client, run["id"])
    assert done["status"] == "succeeded", done["error"]
    assert (done["rounds_done"], done["progress"]) == (60, 1.0)
    assert done["summary"]["rounds_done"] == 60
    assert done["notes"] == "<script>x</script>"
    assert done["worker"] == "embedded"
    assert done["started_at"] <= done["finished_at"]


def test_partial_config_gets_defaults(client: TestClient) -> None:
    response = client.post("/api/runs", json={"config": {"rounds": 3, "device": "cpu"}})
    assert response.status_code == 201
    config = response.json()["config"]
    assert config["algorithm"]["name"] == "fedavg"
    assert config["data"]["n_clients"] == 24
    assert wait_final(client, response.json()["id"])["status"] == "succeeded"


def test_schema_errors_name_the_field(client: TestClient) -> None:
    before = client.get("/api/runs").json()["count"]
    wrong_type = client.post("/api/runs", json={"config": {"rounds": "many"}})
    assert wrong_type.status_code == 422
    assert wrong_type.json()["detail"][0]["loc"] == ["body", "config", "rounds"]
    cross_field = client.post(
        "/api/runs", json={"config": {"data": {"n_clients": 4}, "algorithm": {"participation": 30}}}
    )
    assert cross_field.status_code == 422
    error = cross_field.json()["detail"][0]
    assert error["loc"] == ["body", "config", "algorithm", "participation"]
    assert error["msg"] == "K = 30 exceeds data.n_clients = 4"
    assert client.get("/api/runs").json()["count"] == before


def test_unknown_ids_are_404(client: TestClient) -> None:
    for path in ("/api/runs/999999", "/api/runs/999999/metrics", "/api/runs/999999/staleness"):
        assert client.get(path).status_code == 404
    assert client.post("/api/runs/999999/cancel").status_code == 404
    assert client.get("/api/presets/nope").status_code == 404


def test_cancel_finished_is_409_and_delete_removes(client: TestClient) -> None:
    run = submit(client, example1(5))
    wait_final(client, run["id"])
    assert client.post(f"/api/runs/{run['id']}/cancel").status_code == 409
    assert client.delete(f"/api/runs/{run['id']}").status_code == 204
    assert client.get(f"/api/runs/{run['id']}").status_code == 404
    assert client.get(f"/api/runs/{run['id']}/rounds").status_code == 404


def test_cancel_a_running_run(client: TestClient) -> None:
    run = submit(client, example1(20_000))
    wait_rounds(client, run["id"], 10)
    assert run["cancel_requested"] is False
    answer = client.post(f"/api/runs/{run['id']}/cancel")
    assert answer.status_code == 200
    # The answer already says the run is stopping, before its executor has stopped it.
    assert (answer.json()["status"], answer.json()["cancel_requested"]) == ("running", True)
    done = wait_final(client, run["id"])
    assert done["status"] == "cancelled"
    assert 10 <= done["rounds_done"] < 20_000
    rounds = client.get(f"/api/runs/{run['id']}/rounds", params={"limit": 5000}).json()["data"]
    assert [r["round"] for r in rounds] == list(range(done["rounds_done"]))


def checkpoint_round(db_url: str, run_id: int) -> int | None:
    engine = make_engine(db_url)
    with make_sessionmaker(engine)() as session:
        found = session.scalar(select(Checkpoint.round).where(Checkpoint.run_id == run_id))
    engine.dispose()
    return found


def test_a_cancelled_run_resumes_from_its_checkpoint(client: TestClient, db_url: str) -> None:
    config = example1(3000, algorithm__name="fedavg", eval__checkpoint_every=50)
    run = submit(client, config)
    wait_rounds(client, run["id"], 100)
    assert client.post(f"/api/runs/{run['id']}/cancel").status_code == 200
    cancelled = wait_final(client, run["id"])
    assert cancelled["status"] == "cancelled" and cancelled["rounds_done"] < 3000
    kept = checkpoint_round(db_url, run["id"])
    assert kept is not None and 50 <= kept <= cancelled["rounds_done"]

    resumed = client.post(f"/api/runs/{run['id']}/resume")
    assert resumed.status_code == 200
    assert (resumed.json()["status"], resumed.json()["finished_at"]) == ("queued", None)
    done = wait_final(client, run["id"])
    assert (done["status"], done["error"], done["rounds_done"]) == ("succeeded", None, 3000)
    assert checkpoint_round(db_url, run["id"]) is None  # a finished run keeps none
    rounds = client.get(f"/api/runs/{run['id']}/rounds", params={"limit": 5000}).json()["data"]
    assert [{k: v for k, v in r.items() if k != "wall_s"} for r in rounds] == reference(config)


def test_a_failed_run_resumes_once_its_data_is_there(
    client: TestClient, api_data_root: Path, db_url: str
) -> None:
    folder = f"mnist-{db_url.split(':')[0]}"  # one per database: the data root is shared
    config = {
        "rounds": 4,
        "device": "cpu",
        "data": {"dataset": "mnist", "root": folder, "n_clients": 10, "partition": "iid"},
        "model": {"name": "linear"},
        "algorithm": {"participation": 2},
    }
    run = client.post("/api/runs", json={"config": config}).json()
    failed = wait_final(client, run["id"])
    assert failed["status"] == "failed"
    assert failed["error"].startswith(f"data.root: mnist not found under <data root>/{folder}")
    write_tiny_mnist(api_data_root / folder, n_train=60, n_test=20)
    assert client.post(f"/api/runs/{run['id']}/resume").json()["error"] is None
    done = wait_final(client, run["id"])
    assert (done["status"], done["error"], done["rounds_done"]) == ("succeeded", None, 4)


def test_only_failed_or_cancelled_runs_resume(client: TestClient) -> None:
    run = wait_final(client, submit(client, example1(5))["id"])
    response = client.post(f"/api/runs/{run['id']}/resume")
    assert response.status_code == 409
    assert (
        response.json()["detail"]
        == f"run {run['id']} is succeeded: only a failed or cancelled run resumes"
    )
    assert client.get(f"/api/runs/{run['id']}").json() == run
    assert client.post("/api/runs/999999/resume").status_code == 404


def test_list_filters_and_paginates(client: TestClient) -> None:
    a = submit(client, example1(3, algorithm__name="mifa"), notes="needle one")
    b = submit(client, example1(3, algorithm__name="fedavg"), notes="NEEDLE two")
    wait_final(client, a["id"]), wait_final(client, b["id"])
    found = client.get("/api/runs", params={"q": "needle"}).json()
    assert found["count"] == 2
    assert [r["id"] for r in found["data"]] == [b["id"], a["id"]]
    assert found["data"][0]["config"] is None  # a list stays light: configs on request
    full = client.get("/api/runs", params={"q": "needle", "config": "true"}).json()
    assert full["data"][0]["config"]["algorithm"]["name"] == "fedavg"
    mifa = client.get("/api/runs", params={"q": "needle", "algorithm": "mifa"}).json()
    assert [r["id"] for r in mifa["data"]] == [a["id"]]
    page = client.get("/api/runs", params={"q": "needle", "limit": 1, "offset": 1}).json()
    assert (page["count"], [r["id"] for r in page["data"]]) == (2, [a["id"]])
    assert client.get("/api/runs", params={"status": "bogus"}).status_code == 422


def test_the_search_matches_a_tag(client: TestClient) -> None:
    """Text in a tag finds the run, in any case; the run is listed once with two tags."""
    ids = [
        client.post("/api/runs", json={"source": "external", "name": name, "n_clients": 1}).json()[
            "id"
        ]
        for name in ("plain", "other")
    ]
    client.patch(f"/api/runs/{ids[0]}", json={"tags": ["Hay-Stack", "stack-2"]})
    found = client.get("/api/runs", params={"q": "stack"}).json()
    assert (found["count"], [r["id"] for r in found["data"]]) == (1, [ids[0]])


def test_runs_ranked_by_a_summary_value(client: TestClient) -> None:
    # Four short classification runs whose accuracies differ, and Example 1, which has a
    # loss and a gap but no accuracy; the experiment filter keeps other tests' runs out.
    body = {
        "name": "ranked",
        "base": {
            "rounds": 4,
            "device": "cpu",
            "data": {"n_clients": 6},
            "algorithm": {"participation": 3},
        },
        "grid": {"client.lr": [0.001, 0.3]},
        "seeds": [0, 1],
    }
    experiment = client.post("/api/experiments", json=body).json()
    runs = [wait_final(client, i) for i in experiment["run_ids"]]
    ids = {r["id"] for r in runs}

    def ranked(key: str) -> list[int]:
        params = {"rank_by": key, "experiment_id": experiment["id"]}
        return [r["id"] for r in client.get("/api/runs", params=params).json()["data"]]

    acc = {r["id"]: r["summary"]["best_test_acc"] for r in runs}
    assert len(set(acc.values())) > 1
    assert ranked("best_test_acc") == sorted(ids, key=lambda i: (-acc[i], -i))
    loss = {r["id"]: r["summary"]["final_test_loss"] for r in runs}
    assert ranked("final_test_loss") == sorted(ids, key=lambda i: (loss[i], -i))
    assert client.get("/api/runs", params={"rank_by": "param"}).status_code == 422

    example = wait_final(client, submit(client, example1(5))["id"])
    listed = client.get("/api/runs", params={"rank_by": "best_test_acc", "limit": 500}).json()
    order = [r["id"] for r in listed["data"]]
    with_acc = [i for i in order if i in ids]
    assert with_acc == ranked("best_test_acc")
    assert order.index(example["id"]) > max(order.index(i) for i in ids)  # no accuracy: last


def test_rankings_come_from_the_catalogue(client: TestClient, tmp_path: Path) -> None:
    """The schema's enum and the values accepted are the catalogue's rankings, and a
    plug-in's ranked metric is one of them once registered."""
    with metrics_added(MetricSpec("score", "score", summary=True, rank=True, better="higher")) as c:
        names = [s.name for s in metrics.rankings()]
        app = create_app(embedded_settings(f"sqlite:///{tmp_path / 'schema.sqlite3'}"), c)
        params = app.openapi()["paths"]["/api/runs"]["get"]["parameters"]
        (rank_by,) = [p["schema"]["anyOf"][0] for p in params if p["name"] == "rank_by"]
        assert rank_by["enum"] == names
        assert names[:3] == ["best_test_acc", "final_test_acc", "time_avg_test_acc"]
        assert "score_avg" in names
        assert client.get("/api/runs", params={"rank_by": "score_avg"}).status_code == 200
    assert client.get("/api/runs", params={"rank_by": "score_avg"}).status_code == 422


def test_body_size_limit(client: TestClient) -> None:
    response = client.post("/api/runs", json={"config": {}, "notes": "x" * 2_000_000})
    assert response.status_code == 413


def test_a_chunked_body_past_the_limit_is_413_too(client: TestClient) -> None:
    # 5 MB in chunks, with no Content-Length: refused once the limit is passed.
    def chunks() -> Iterator[bytes]:
        yield b'{"config": {}, "notes": "'
        for _ in range(50):
            yield b"x" * 100_000

    before = client.get("/api/runs").json()["count"]
    headers = {"Content-Type": "application/json"}
    response = client.post("/api/runs", content=chunks(), headers=headers)
    assert "content-length" not in response.request.headers
    limit = client.app.state.settings.max_body_bytes  # type: ignore[attr-defined]
    assert response.status_code == 413
    detail = f"request body larger than {limit} bytes (FEDWATCH_MAX_BODY_BYTES)"
    assert response.json() == {"detail": detail}
    assert client.get("/api/runs").json()["count"] == before


def test_a_deleted_run_s_id_is_not_given_out_again(client: TestClient) -> None:
    # The newest run is deleted: SQLite would hand its id to the next run (old links and
    # shared compare URLs would show another run) unless the table has AUTOINCREMENT.
    old = wait_final(client, submit(client, example1(3))["id"])
    assert client.delete(f"/api/runs/{old['id']}").status_code == 204
    new = submit(client, example1(3))
    assert new["id"] > old["id"]
    assert client.get(f"/api/runs/{old['id']}").status_code == 404
    wait_final(client, new["id"])


def test_token_guards_writes_only(db_url: str) -> None:
    app = create_app(embedded_settings(db_url, api_token="s3cret"))
    with TestClient(app) as c:
        assert c.post("/api/runs", json={"config": example1(3)}).status_code == 401
        wrong = {"Authorization": "Bearer nope"}
        assert c.post("/api/runs", json={"config": example1(3)}, headers=wrong).status_code == 401
        right = {"Authorization": "Bearer s3cret"}
        created = c.post("/api/runs", json={"config": example1(3)}, headers=right)
        assert created.status_code == 201
        assert c.get(f"/api/runs/{created.json()['id']}").status_code == 200
        wait_final(c, created.json()["id"])


def test_protected_reads_need_the_token_but_the_page_loads(db_url: str) -> None:
    app = create_app(embedded_settings(db_url, api_token="s3cret", protect_reads=True))
    right = {"Authorization": "Bearer s3cret"}
    with TestClient(app) as c:
        assert c.get("/api/runs").status_code == 401
        assert c.get("/api/runs/1/events").status_code == 401
        assert c.get("/api/runs", headers=right).status_code == 200
        assert c.get("/").status_code == 200
        assert c.get("/vendor/plotly.min.js").status_code == 200
        assert c.get("/healthz").status_code == 200


def test_health_schema_presets_and_static(client: TestClient, db_url: str) -> None:
    health = client.get("/healthz").json()
    free = health.pop("disk_free_mb")  # of a SQLite file's disk; a server's is its own
    assert (free is None) == db_url.startswith("postgresql")
    assert isinstance(health.pop("warm"), bool)  # warming in the background from the start
    assert health == {"status": "ok", "database": "ok", "broker": "embedded"}
    eventually(lambda: client.get("/healthz").json()["warm"], "the fork server warm", 180)
    schema = client.get("/api/schema/run-config").json()
    assert {"rounds", "algorithm", "availability"} <= set(schema["properties"])
    presets = client.get("/api/presets").json()
    assert "example1" in [p["name"] for p in presets]
    preset = client.get("/api/presets/example1").json()
    assert preset["config"]["data"]["mean_estimation"]["means"] == [1.0, -1.0]
    assert preset["compare"] == ["fedavg", "fedlaavg", "mifa"]
    plotly = client.get("/vendor/plotly.min.js")
    assert plotly.status_code == 200 and "javascript" in plotly.headers["content-type"]
    assert client.get("/docs").status_code == 200


def test_edit_name_notes_and_tags_then_filter_by_tag(client: TestClient) -> None:
    run = submit(client, example1(3, algorithm__name="fedavg"), notes="first")
    other = submit(client, example1(3), notes="second")
    assert run["tags"] == []
    edited = client.patch(
        f"/api/runs/{run['id']}", json={"name": "baseline", "tags": ["paper", "fig-2", "paper"]}
    )
    assert edited.status_code == 200, edited.text
    body = edited.json()
    assert (body["name"], body["notes"], body["tags"]) == ("baseline", "first", ["fig-2", "paper"])
    assert body["config"]["name"] == "baseline"  # a copy of the run keeps its new name
    client.patch(f"/api/runs/{other['id']}", json={"tags": ["paper"], "notes": ""})
    tagged = client.get("/api/runs", params={"tag": "paper"}).json()
    assert {r["id"] for r in tagged["data"]} == {run["id"], other["id"]}
    fig = client.get("/api/runs", params={"tag": "fig-2"}).json()
    assert ([r["id"] for r in fig["data"]], fig["count"]) == ([run["id"]], 1)
    # Replacing the tags keeps what stays and drops the rest.
    again = client.patch(f"/api/runs/{run['id']}", json={"tags": ["paper", "final"]}).json()
    assert again["tags"] == ["final", "paper"]
    assert client.get("/api/runs", params={"tag": "fig-2"}).json()["count"] == 0
    assert client.get(f"/api/runs/{other['id']}").json()["notes"] == ""
    wait_final(client, run["id"])
    wait_final(client, other["id"])


def test_edit_refuses_bad_fields_and_unknown_runs(client: TestClient) -> None:
    run = submit(client, example1(3))
    for body, field in (
        ({"name": ""}, "name"),
        ({"tags": ["has space"]}, "tags"),
        ({"tags": ["x" * 41]}, "tags"),
        ({"tags": [f"t{i}" for i in range(21)]}, "tags"),
        ({"status": "succeeded"}, "status"),
    ):
        answer = client.patch(f"/api/runs/{run['id']}", json=body)
        assert answer.status_code == 422, body
        assert field in answer.text
    assert client.patch("/api/runs/999999", json={"name": "x"}).status_code == 404
    assert client.get(f"/api/runs/{run['id']}").json()["name"] == run["name"]
    wait_final(client, run["id"])


def test_edit_needs_the_token(db_url: str) -> None:
    app = create_app(embedded_settings(db_url, api_token="s3cret"))
    with TestClient(app) as c:
        right = {"Authorization": "Bearer s3cret"}
        run = c.post("/api/runs", json={"config": example1(3)}, headers=right).json()
        assert c.patch(f"/api/runs/{run['id']}", json={"name": "x"}).status_code == 401
        assert (
            c.patch(f"/api/runs/{run['id']}", json={"name": "x"}, headers=right).status_code == 200
        )
        wait_final(c, run["id"])
