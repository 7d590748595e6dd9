"""Many runs at once: delete, archive, tag, each in one transaction, missing ids named;
archived runs out of the default list; an experiment deleted with its runs."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.api.helpers import example1, submit, wait_final


def runs(client: TestClient, n: int, notes: str) -> list[int]:
    ids = [submit(client, example1(3), notes=notes)["id"] for _ in range(n)]
    for run_id in ids:
        wait_final(client, run_id)
    return ids


def listed(client: TestClient, **params: str) -> list[int]:
    body = client.get("/api/runs", params={"q": params.pop("q"), "limit": 500, **params}).json()
    return [r["id"] for r in body["data"]]


def test_bulk_archive_tag_and_delete(client: TestClient) -> None:
    a, b, c = runs(client, 3, "bulk-abc")

    archived = client.post("/api/runs/bulk", json={"ids": [a, b, 999999], "action": "archive"})
    tagged = client.post("/api/runs/bulk", json={"ids": [b, c], "action": "tag", "tag": "keep"})

    assert archived.json() == {"action": "archive", "done": [a, b], "missing": [999999]}
    assert listed(client, q="bulk-abc") == [c]  # archived runs are left out by default
    assert listed(client, q="bulk-abc", archived="yes") == [b, a]
    assert listed(client, q="bulk-abc", archived="any") == [c, b, a]
    assert client.get(f"/api/runs/{a}").json()["archived"] is True
    assert tagged.json()["done"] == [b, c]
    assert listed(client, q="bulk-abc", archived="any", tag="keep") == [c, b]
    again = client.post("/api/runs/bulk", json={"ids": [c], "action": "tag", "tag": "keep"})
    assert again.status_code == 200 and client.get(f"/api/runs/{c}").json()["tags"] == ["keep"]
    client.post("/api/runs/bulk", json={"ids": [b], "action": "untag", "tag": "keep"})
    assert client.get(f"/api/runs/{b}").json()["tags"] == []
    client.patch(f"/api/runs/{a}", json={"archived": False})
    assert listed(client, q="bulk-abc") == [c, a]

    deleted = client.post("/api/runs/bulk", json={"ids": [a, b], "action": "delete"})

    assert deleted.json()["done"] == [a, b]
    assert client.get(f"/api/runs/{a}").status_code == 404
    assert client.get(f"/api/runs/{a}/metrics").status_code == 404
    assert listed(client, q="bulk-abc", archived="any") == [c]


def test_bulk_refuses_bad_requests(client: TestClient) -> None:
    no_tag = client.post("/api/runs/bulk", json={"ids": [1], "action": "tag"})
    empty = client.post("/api/runs/bulk", json={"ids": [], "action": "delete"})
    unknown = client.post("/api/runs/bulk", json={"ids": [1], "action": "explode"})

    assert no_tag.status_code == empty.status_code == unknown.status_code == 422
    assert "needs a tag" in no_tag.json()["detail"][0]["msg"]


def test_an_experiment_is_deleted_with_its_runs(client: TestClient) -> None:
    base = example1(3)
    body = {"name": "doomed", "base": base, "grid": {"client.lr": [0.01, 0.02]}, "seeds": [0]}
    experiment = client.post("/api/experiments", json=body).json()
    for run_id in experiment["run_ids"]:
        wait_final(client, run_id)
    other = runs(client, 1, "not-doomed")[0]

    gone = client.delete(f"/api/experiments/{experiment['id']}")

    assert gone.status_code == 204
    assert client.get(f"/api/experiments/{experiment['id']}").status_code == 404
    assert all(client.get(f"/api/runs/{i}").status_code == 404 for i in experiment["run_ids"])
    assert client.get(f"/api/runs/{other}").status_code == 200
    assert client.delete(f"/api/experiments/{experiment['id']}").status_code == 404


def test_other_methods_on_bulk_are_not_allowed_and_archived_is_a_boolean(
    client: TestClient,
) -> None:
    # `bulk` is no run id: another method on it is a 405, not a 422 about an integer.
    for method in ("GET", "PATCH", "DELETE"):
        answer = client.request(method, "/api/runs/bulk", json={})
        assert answer.status_code == 405 and answer.headers["allow"] == "POST", method
    (run_id,) = runs(client, 1, "strict")
    for value in (0, 1, "true", None):
        edit = client.patch(f"/api/runs/{run_id}", json={"archived": value})
        assert edit.status_code == (200 if value is None else 422), value
    assert client.patch(f"/api/runs/{run_id}", json={"archived": True}).json()["archived"] is True
