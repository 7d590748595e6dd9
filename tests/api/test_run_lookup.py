"""One lookup (`api.deps.get_run`) finds a run by id for every route: an unknown id is
the same 404 everywhere, and no route reads a run by id on its own."""

from __future__ import annotations

import ast
from pathlib import Path

from fastapi.testclient import TestClient

ROUTES = Path(__file__).resolve().parents[2] / "api" / "routes"
UNKNOWN = 987_654


def test_every_route_of_a_run_answers_the_same_404(client: TestClient) -> None:
    described = client.get("/openapi.json").json()["paths"]
    paths = sorted(
        path.format(run_id=UNKNOWN, fmt="json" if "export" in path else "svg")
        for path, operations in described.items()
        if "{run_id}" in path and "get" in operations
    )
    assert len(paths) >= 15  # the run, its rounds, metrics, exports, clients, model, events, ...
    answers = {path: client.get(path) for path in paths}
    answers["/api/compare"] = client.get("/api/compare", params={"runs": str(UNKNOWN)})
    wrong = {p: (r.status_code, r.text) for p, r in answers.items() if r.status_code != 404}
    assert wrong == {}
    assert {r.json()["detail"] for r in answers.values()} == {f"run {UNKNOWN} not found"}


def test_no_route_gets_a_run_by_itself() -> None:
    found = []
    for path in sorted(ROUTES.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "get"):
                continue
            if [getattr(a, "id", None) for a in node.args[:1]] == ["Run"]:
                found.append(f"{path.name}:{node.lineno}")
    assert found == []
