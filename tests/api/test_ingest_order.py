"""External rounds in any order: batches out of order and parallel writers lose nothing
and end equal to the same rounds sent in order; staleness waits for the rounds before;
a finish racing with batches counts every batch that was answered 200; a round far ahead
is refused at once."""

from __future__ import annotations

import random
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event

from api.external import to_record
from api.main import create_app
from api.schemas.ingest import RoundIn
from db.models import Run
from tests.api.helpers import embedded_settings
from worker.ingest import ingest_rounds

N = 8
VIEWS = ("availability", "selection", "staleness")


def round_(t: int) -> dict[str, Any]:
    """Round t of a deterministic run: who is available and selected depends on t."""
    rng = random.Random(t)
    available = sorted(rng.sample(range(N), 5))
    selected = available[:2] if t % 3 else available[-1:]
    weights = {str(k): 1 / len(selected) for k in selected}
    metrics = {"test_acc": (t % 17) / 17, "train_loss": 1 / (t + 1)}
    return {"round": t, "metrics": metrics, "available": available, "selected": selected,
            "weights": weights, "wall_s": 0.01 * (t + 1)}  # fmt: skip


def new_run(client: TestClient, name: str) -> int:
    body = {"source": "external", "name": name, "n_clients": N, "config": {"target_acc": 0.5}}
    response = client.post("/api/runs", json=body)
    assert response.status_code == 201, response.text
    run_id: int = response.json()["id"]
    return run_id


def post(client: TestClient, run_id: int, rounds: list[dict[str, Any]]) -> Any:
    return client.post(f"/api/runs/{run_id}/rounds", json={"rounds": rounds})


def everything(client: TestClient, run_id: int) -> dict[str, Any]:
    """What every view shows of the run."""
    out: dict[str, Any] = {"metrics": client.get(f"/api/runs/{run_id}/metrics").json()}
    for view in VIEWS:
        out[view] = client.get(f"/api/runs/{run_id}/{view}", params={"max_rounds": 5000}).json()
    distribution = client.get(f"/api/runs/{run_id}/staleness/distribution").json()
    out["distribution"] = distribution
    rounds = client.get(f"/api/runs/{run_id}/rounds", params={"limit": 5000}).json()["data"]
    out["rounds"] = rounds
    for view in out.values():
        if isinstance(view, dict):
            view.pop("run_id", None)
    return out


def finished(client: TestClient, run_id: int) -> dict[str, Any]:
    done = client.post(f"/api/runs/{run_id}/finish", json={"status": "succeeded"})
    assert done.status_code == 200, done.text
    summary: dict[str, Any] = done.json()["summary"]
    return summary


@pytest.fixture(scope="module")
def in_order(client: TestClient) -> dict[str, Any]:
    """The reference: 2000 rounds sent in order, then finished."""
    run_id = new_run(client, "in order")
    for start in range(0, 2000, 50):
        assert (
            post(client, run_id, [round_(t) for t in range(start, start + 50)]).json()["stored"]
            == 50
        )
    summary = finished(client, run_id)
    return {"views": everything(client, run_id), "summary": summary}


def test_batches_out_of_order_end_equal_to_batches_in_order(
    client: TestClient, in_order: dict[str, Any]
) -> None:
    # Before: 409 "round 0 was skipped: rounds after it are stored already", for ever.
    run_id = new_run(client, "shuffled")
    starts = list(range(0, 2000, 50))
    random.Random(3).shuffle(starts)
    for start in starts:
        answer = post(client, run_id, [round_(t) for t in range(start, start + 50)])
        assert answer.status_code == 200, answer.text
    assert client.get(f"/api/runs/{run_id}").json()["rounds_done"] == 2000
    assert everything(client, run_id) == in_order["views"]  # settled before the finish
    summary = finished(client, run_id)
    assert summary == in_order["summary"] | {"wall_s": summary["wall_s"]}


def test_parallel_writers_lose_nothing(client: TestClient, in_order: dict[str, Any]) -> None:
    # Before: 28 of 40 batches got a 409, and their rounds could never be stored.
    run_id = new_run(client, "parallel")
    batches = iter(range(0, 2000, 50))
    lock = threading.Lock()

    def writer() -> list[int]:
        codes: list[int] = []
        while True:
            with lock:
                start = next(batches, None)
            if start is None:
                return codes
            answer = post(client, run_id, [round_(t) for t in range(start, start + 50)])
            codes.append(answer.status_code)

    with ThreadPoolExecutor(16) as pool:
        codes = [c for got in pool.map(lambda _: writer(), range(16)) for c in got]
    assert codes == [200] * 40
    assert everything(client, run_id) == in_order["views"]


def test_staleness_waits_for_the_rounds_before(client: TestClient) -> None:
    run_id = new_run(client, "waiting")
    assert post(client, run_id, [round_(t) for t in range(100, 200)]).status_code == 200
    # The rounds that arrived show at once; their staleness needs rounds 0-99.
    availability = client.get(f"/api/runs/{run_id}/availability", params={"max_rounds": 500})
    assert len(availability.json()["rounds"]) == 200
    assert client.get(f"/api/runs/{run_id}/staleness").json()["rounds"] == []
    assert client.get(f"/api/runs/{run_id}/metrics").json()["series"]["test_acc"]["round"][0] == 100
    assert post(client, run_id, [round_(t) for t in range(0, 100)]).status_code == 200
    staleness = client.get(f"/api/runs/{run_id}/staleness", params={"max_rounds": 500}).json()
    assert len(staleness["rounds"]) == 200
    assert client.get(f"/api/runs/{run_id}/staleness/distribution").json()["rounds"] == 200


@pytest.fixture
def windowed(db_url: str) -> Iterator[TestClient]:
    """A server whose external runs' rounds may arrive at most 1000 rounds ahead."""
    with TestClient(create_app(embedded_settings(db_url, ingest_window=1000))) as c:
        yield c


def test_a_round_far_ahead_is_refused_at_once(windowed: TestClient) -> None:
    # Before: round 10^8 of a one-client run made 3 million staleness marks, about 150 s
    # of the server's time, 4 GB of its memory and 140 MB of database.
    body = {"source": "external", "name": "far", "n_clients": 1}
    run_id = windowed.post("/api/runs", json=body).json()["id"]
    far = post(windowed, run_id, [{"round": 100_000_000, "metrics": {"test_acc": 0.5}}])
    assert far.status_code == 409
    assert far.json()["detail"] == (
        "round 100000000: too far past the last stored round -1 for 1 clients (at most 1000 "
        "rounds ahead); send the rounds in between first"
    )
    assert windowed.get(f"/api/runs/{run_id}").json()["rounds_done"] == 0
    # A job that logs every 999th round: the rounds missing more than the window behind
    # the latest one count as rounds nobody took part in.
    for t in range(0, 10_000, 999):
        assert post(windowed, run_id, [{"round": t}]).status_code == 200
    late = post(windowed, run_id, [{"round": 5}])
    assert late.status_code == 409 and "counts as a round nobody took part in" in late.text
    staleness = windowed.get(f"/api/runs/{run_id}/staleness").json()
    assert 8000 <= staleness["rounds"][-1] < 8991  # settled up to a window behind 9990
    assert finished(windowed, run_id)["rounds_done"] == 9991
    distribution = windowed.get(f"/api/runs/{run_id}/staleness/distribution").json()
    assert distribution["rounds"] == 9991  # the finish settles every round


def test_a_finish_counts_every_batch_answered_before_it(client: TestClient) -> None:
    # Before: a batch that committed while the finish read the rounds was answered 200
    # yet left out of the summary (`rounds_done` 4060 with 4080 rounds stored).
    run_id = new_run(client, "racing")
    assert post(client, run_id, [round_(t) for t in range(20)]).status_code == 200
    app: Any = client.app
    sessions = app.state.sessions
    engine = sessions.kw["bind"]
    here = threading.get_ident()
    finish_writes = threading.Event()

    def watch(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if threading.get_ident() != here and statement.lstrip().upper().startswith("UPDATE RUNS"):
            finish_writes.set()  # the finish's first write to the run: it locks the row

    event.listen(engine, "before_cursor_execute", watch)
    try:
        with sessions() as session, ThreadPoolExecutor(1) as pool:
            run = session.get(Run, run_id)
            records = [to_record(RoundIn.model_validate(round_(t))) for t in range(20, 40)]
            ingest_rounds(session, run, records, 65_536)  # a batch, its commit held back
            finish = pool.submit(finished, client, run_id)
            assert finish_writes.wait(60) or finish.done()
            session.commit()  # the batch is answered 200 now
            summary = finish.result(timeout=60)
    finally:
        event.remove(engine, "before_cursor_execute", watch)
    assert summary["rounds_done"] == 40
    assert summary["final_test_acc"] == round_(39)["metrics"]["test_acc"]
    assert summary["wall_s"] == round_(39)["wall_s"]
    assert finished(client, run_id) == summary  # again: nothing changes
