"""JSON over HTTP for the SDK, with the standard library only (the SDK runs inside any
training code, on nodes that may have nothing but Python)."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import Any


class Refused(Exception):
    """The server answered with an error that sending again will not change (a 4xx but
    413): the batch or the run is wrong, not the network."""

    def __init__(self, status: int, detail: Any) -> None:
        super().__init__(f"HTTP {status}: {detail}")
        self.status = status
        self.detail = detail


class TooLarge(Exception):
    """413: the body passed the server's limit; send fewer rounds at once."""


class Unreachable(Exception):
    """No answer, or a server error: worth sending again later."""


class Transport:
    """Requests to `url` (the server's root), with the bearer token if any."""

    def __init__(self, url: str, token: str | None, timeout_s: float) -> None:
        self.url = url.rstrip("/")
        self.token = token
        self.timeout_s = timeout_s

    def post(self, path: str, body: Any) -> Any:
        """POST `body` as JSON; the JSON answer."""
        data = json.dumps(body, separators=(",", ":")).encode()
        return json.loads(self.send("POST", path, data, "application/json"))

    def post_bytes(self, path: str, data: bytes, media_type: str) -> Any:
        """POST a file's bytes; the JSON answer."""
        return json.loads(self.send("POST", path, data, media_type))

    def get(self, path: str, params: Mapping[str, Any] | None = None) -> bytes:
        """GET `path` with `params` (None values left out); the body as it comes."""
        query = {k: v for k, v in (params or {}).items() if v is not None}
        full = path + ("?" + urllib.parse.urlencode(query) if query else "")
        return self.send("GET", full, None, None)

    def get_json(self, path: str, params: Mapping[str, Any] | None = None) -> Any:
        return json.loads(self.get(path, params))

    def send(self, method: str, path: str, data: bytes | None, media_type: str | None) -> bytes:
        headers = {"Content-Type": media_type} if media_type else {}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.url + path, data, headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                body: bytes = response.read()
                return body
        except urllib.error.HTTPError as err:
            detail = _detail(err)
            if err.code == 413:
                raise TooLarge(detail) from None
            if 400 <= err.code < 500:
                raise Refused(err.code, detail) from None
            raise Unreachable(f"HTTP {err.code}: {detail}") from None
        except (OSError, ValueError) as err:  # refused, reset, timed out, cut short
            raise Unreachable(str(err)) from None


def _detail(err: urllib.error.HTTPError) -> Any:
    try:
        return json.loads(err.read()).get("detail")
    except (OSError, ValueError, AttributeError):
        return err.reason
