"""A request without the token is answered 401 from its headers, through a real
`fedwatch serve`: the server does not wait for, nor read, the body it announces."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.client.conftest import Server

TOKEN = "s3cret"
ANNOUNCED = 100_000_000  # bytes: under the model cap, never sent


@pytest.fixture(scope="module")
def protected(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp: Path = tmp_path_factory.mktemp("protected")
    env = {"FEDWATCH_API_TOKEN": TOKEN, "FEDWATCH_PROTECT_READS": "1",
           "FEDWATCH_EMBEDDED_CONCURRENCY": "1"}  # fmt: skip
    running = Server(tmp, env)
    running.start()
    yield running
    running.kill()


def answer_to(server: Server, head: str, first_bytes: bytes) -> bytes:
    """The status line the server answers to `head` and the body's first bytes, the
    rest of the body never sent. A server that waited for it would answer nothing: the
    socket's timeout turns that into a failure, not a hang."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as sock:
        sock.sendall(head.encode() + b"\r\n" + first_bytes)
        return sock.makefile("rb").readline()


@pytest.mark.parametrize("path", ["/api/runs/1/model", "/api/runs"])
def test_a_large_body_without_the_token_gets_401_unread(protected: Server, path: str) -> None:
    head = (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n"
            f"Content-Length: {ANNOUNCED}\r\n")  # fmt: skip
    status = answer_to(protected, head, b"\0" * 65536)
    assert status.split()[1] == b"401"


def test_a_chunked_body_without_the_token_gets_401_unread(protected: Server) -> None:
    head = ("POST /api/runs/1/model HTTP/1.1\r\nHost: x\r\n"
            "Content-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n")  # fmt: skip
    status = answer_to(protected, head, b"10000\r\n" + b"\0" * 65536 + b"\r\n")
    assert status.split()[1] == b"401"


def test_with_the_token_a_body_past_the_cap_gets_413_unread(protected: Server) -> None:
    head = (f"POST /api/runs/1/model HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
            f"Content-Type: application/octet-stream\r\nContent-Length: {10**12}\r\n")  # fmt: skip
    assert answer_to(protected, head, b"\0" * 65536).split()[1] == b"413"


def test_with_the_token_a_chunked_body_is_cut_at_the_cap(protected: Server) -> None:
    head = ("POST /api/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN + "\r\n"
            "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n")  # fmt: skip
    chunk = b"100000\r\n" + b" " * 0x100000 + b"\r\n"  # 1 MiB: past the 1 MB cap
    assert answer_to(protected, head, chunk).split()[1] == b"413"


def test_the_answer_is_the_token_check_s(protected: Server) -> None:
    with httpx.Client(base_url=protected.url, timeout=30) as client:
        refused = client.post("/api/runs/1/model", content=b"x" * 1000)
        read = client.get("/api/runs/1/model")
        wrong = client.get("/api/runs", headers={"Authorization": "Bearer nope"})
        right = client.get("/api/runs", headers={"Authorization": f"Bearer {TOKEN}"})
        health = client.get("/healthz")
    for answer in (refused, read, wrong):
        assert answer.status_code == 401, answer.text
        assert answer.json() == {"detail": "missing or wrong bearer token"}
        assert answer.headers["www-authenticate"] == "Bearer"
        assert answer.headers["x-content-type-options"] == "nosniff"
    assert right.status_code == 200 and health.status_code == 200
