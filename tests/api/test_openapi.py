"""The OpenAPI schema documents every error an operation can answer; the docs pages load
their assets from this server; a 405 lists every method of the path."""

from __future__ import annotations

import re
from typing import Any

from fastapi.testclient import TestClient

ERROR = "#/components/schemas/ErrorPublic"
VALIDATION_ERROR = "#/components/schemas/ValidationErrorPublic"
CONFLICTS = {
    ("post", f"/api/runs/{{run_id}}/{action}")
    for action in ("cancel", "resume", "rounds", "finish", "model")
} | {
    ("get", "/api/runs/{run_id}/partition"),  # an external run's data never came here
    ("get", "/api/runs/{run_id}/privacy/clients"),  # before the run's first round
    ("get", "/api/tunes/{tune_id}/tables"),  # a tune not done yet
}


def documented_errors(operation: dict[str, Any]) -> dict[int, str]:
    """Each error status of the operation and the schema of its body."""
    return {
        int(status): response["content"]["application/json"]["schema"]["$ref"]
        for status, response in operation["responses"].items()
        if int(status) >= 400
    }


def expected_errors(method: str, path: str, operation: dict[str, Any]) -> dict[int, str]:
    # every /api operation reads the database: 503 while it is away, 507 when it is full
    expected = {401: ERROR, 503: ERROR, 507: ERROR} if path.startswith("/api/") else {}
    if "{" in path or path == "/api/compare":  # names a resource (compare: its runs)
        expected |= {404: ERROR}
    if operation.get("parameters"):
        expected |= {422: VALIDATION_ERROR}
    if "requestBody" in operation:
        expected |= {400: ERROR, 413: ERROR, 422: VALIDATION_ERROR}
    if (method, path) in CONFLICTS:
        expected |= {409: ERROR}
    return expected


def test_every_operation_documents_its_errors(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    operations = [
        (method, path, operation)
        for path, methods in schema["paths"].items()
        for method, operation in methods.items()
    ]
    assert len(operations) > 20
    for method, path, operation in operations:
        if path == "/healthz":
            assert set(operation["responses"]) == {"200", "503"}
            continue
        assert documented_errors(operation) == expected_errors(method, path, operation), (
            method,
            path,
        )
    fields = schema["components"]["schemas"]["FieldError"]["properties"]
    assert set(fields) == {"loc", "msg", "type"}


def test_documented_error_bodies_are_what_the_api_sends(client: TestClient) -> None:
    not_found = client.get("/api/runs/999999")
    assert not_found.status_code == 404
    assert set(not_found.json()) == {"detail"} and isinstance(not_found.json()["detail"], str)
    invalid = client.get("/api/runs", params={"limit": 0})
    assert invalid.status_code == 422
    assert [set(e) for e in invalid.json()["detail"]] == [{"loc", "msg", "type"}]


def test_docs_pages_load_their_assets_from_this_server(client: TestClient) -> None:
    for page in ("/docs", "/redoc"):
        html = client.get(page).text
        urls = re.findall(r"""(?:src|href)=["']?([^"' >]+)""", html)
        urls += re.findall(r"""url: ?['"]([^'"]+)['"]""", html)
        assert urls and all(u.startswith("/") for u in urls), (page, urls)
        for url in urls:
            assert client.get(url).status_code == 200, url
    assert client.get("/vendor/docs/swagger-ui.css").headers["content-type"].startswith("text/css")
    assert client.get("/vendor/docs/nothing.js").status_code == 404


def test_method_not_allowed_names_every_method_of_the_path(client: TestClient) -> None:
    for method, path, allowed in [
        ("OPTIONS", "/api/runs", "GET, POST"),
        ("PUT", "/api/runs", "GET, POST"),
        ("PUT", "/api/runs/1", "GET, PATCH, DELETE"),
        ("GET", "/api/runs/1/cancel", "POST"),
    ]:
        response = client.request(method, path)
        assert (response.status_code, response.headers["allow"]) == (405, allowed), path
        assert response.json() == {"detail": "Method Not Allowed"}
