"""A run's spool: one append-only JSON-lines file per run, and its upload.

Lines, in the order they were written:

- `{"kind": "run", "name", "config", "n_clients", "experiment", "rounds", "created_at",
  "started_at"}` (and `"availability_period"` where the run declared one): the
  declaration, first (times in UTC, ISO 8601, from the machine's clock);
- `{"kind": "round", "round", "metrics", "available", "selected", "weights", ...}`;
- `{"kind": "created", "url", "run_id"}`: the id a server gave the run;
- `{"kind": "model", "file"}`: the run's final model, a safetensors file beside the
  spool (`run.log_model`);
- `{"kind": "finish", "status", "message", "finished_at"}`.

An upload of the spool (`fedwatch sync`) sends the server these times with the run and
its end, so a run uploaded later keeps when it happened; a live run sends none, and
takes the server's.

A line cut short by a killed process is ignored. Rounds are idempotent on the server, so
a spool can be uploaded again, and after part of it was sent live.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fedwatch import tensorfile
from fedwatch.transport import Refused, TooLarge, Transport

SUFFIX = ".jsonl"


def timestamp() -> str:
    """Now, in UTC, as the spool and the server write a time."""
    return datetime.now(UTC).isoformat()


class Spool:
    """Appends entries to one run's file; each `append` is one write, flushed to the
    operating system (so it survives the process being killed)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def create(cls, directory: Path, declaration: dict[str, Any]) -> Spool:
        directory.mkdir(parents=True, exist_ok=True)
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", declaration["name"])[:40].strip("-") or "run"
        stamp = time.strftime("%Y%m%dT%H%M%S")
        spool = cls(directory / f"{stamp}-{slug}-{uuid.uuid4().hex[:8]}{SUFFIX}")
        spool.append([{"kind": "run", **declaration}])
        return spool

    def append(self, entries: list[dict[str, Any]]) -> None:
        lines = "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in entries)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(lines)


@dataclass
class SpoolContents:
    declaration: dict[str, Any]
    rounds: list[dict[str, Any]] = field(default_factory=list)
    run_ids: dict[str, int] = field(default_factory=dict)  # by server URL
    finish: dict[str, Any] | None = None
    model: Path | None = None  # the model file, beside the spool


def read_spool(path: Path) -> SpoolContents:
    """The spool's entries; a round logged twice keeps its first record."""
    contents: SpoolContents | None = None
    seen: set[int] = set()
    with path.open(encoding="utf-8") as f:
        for line in f:
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # the last line of a killed process, cut short
            kind = entry.pop("kind", None)
            if kind == "run":
                contents = SpoolContents(declaration=entry)
            elif contents is None:
                raise ValueError(f"{path}: no run declaration before its first entry")
            elif kind == "round" and entry["round"] not in seen:
                seen.add(entry["round"])
                contents.rounds.append(entry)
            elif kind == "created":
                contents.run_ids[entry["url"]] = entry["run_id"]
            elif kind == "model":
                contents.model = path.parent / entry["file"]
            elif kind == "finish":
                contents.finish = entry
    if contents is None:
        raise ValueError(f"{path}: empty")
    return contents


# The declaration's times, from the clock of the machine that ran the run.
TIMES = ("created_at", "started_at")


class Uploader:
    """Sends one run to one server: creates it (once), its rounds in batches (fewer at
    once after a 413; a refused batch is split to find the refused rounds, which are
    reported to `refused` and skipped), then its end. `replay`: the run happened
    earlier (`fedwatch sync`), so the server is sent its times, from the spool; a live
    run's times are the server's own (a client whose clock runs ahead of the server's by
    more than the skew it allows would be refused)."""

    def __init__(
        self,
        transport: Transport,
        declaration: dict[str, Any],
        run_id: int | None = None,
        batch_rounds: int = 200,
        refused: Callable[[dict[str, Any], Refused], None] | None = None,
        *,
        replay: bool = False,
    ) -> None:
        self.transport = transport
        self.declaration = declaration
        self.run_id = run_id
        self.batch_rounds = batch_rounds
        self.refused = refused or (lambda _record, err: None)
        self.replay = replay

    @property
    def url(self) -> str:
        return self.transport.url

    def ensure_run(self) -> tuple[int, bool]:
        """The run's id on this server, and whether it was created just now."""
        if self.run_id is not None:
            return self.run_id, False
        sent = {k: v for k, v in self.declaration.items() if self.replay or k not in TIMES}
        body = {"source": "external", **sent}
        self.run_id = int(self.transport.post("/api/runs", body)["id"])
        return self.run_id, True

    def send(self, rounds: list[dict[str, Any]]) -> int:
        """Send the rounds (ensure_run first); returns how many the server stored new."""
        stored = 0
        while rounds:
            size = min(self.batch_rounds, len(rounds))
            stored += self._send(rounds[:size])
            rounds = rounds[size:]
        return stored

    def _send(self, batch: list[dict[str, Any]]) -> int:
        try:
            answer = self.transport.post(f"/api/runs/{self.run_id}/rounds", {"rounds": batch})
            return int(answer["stored"])
        except TooLarge:
            if len(batch) == 1:
                raise
            self.batch_rounds = max(1, len(batch) // 2)
            return self._halves(batch)
        except Refused as err:
            if len(batch) == 1:
                self.refused(batch[0], err)
                return 0
            return self._halves(batch)

    def _halves(self, batch: list[dict[str, Any]]) -> int:
        half = len(batch) // 2
        return self._send(batch[:half]) + self._send(batch[half:])

    def send_model(self, path: Path) -> int:
        """Attach the model file at `path` (ensure_run first); returns its size."""
        answer = self.transport.post_bytes(
            f"/api/runs/{self.run_id}/model", path.read_bytes(), tensorfile.MEDIA_TYPE
        )
        return int(answer["size"])

    def finish(
        self, status: str, message: str | None, finished_at: str | None = None
    ) -> dict[str, Any]:
        body = {"status": status, "message": message}
        if self.replay and finished_at is not None:
            body["finished_at"] = finished_at
        answer: dict[str, Any] = self.transport.post(f"/api/runs/{self.run_id}/finish", body)
        return answer


def sync(path: Path, transport: Transport, batch_rounds: int = 500) -> tuple[int, int, int]:
    """Upload one spool file: (run id, rounds in the spool, rounds newly stored). The
    server's id is appended to the spool, so a second upload finds the same run."""
    contents = read_spool(path)
    uploader = Uploader(
        transport,
        contents.declaration,
        contents.run_ids.get(transport.url),
        batch_rounds,
        replay=True,
    )
    run_id, created = uploader.ensure_run()
    if created:
        Spool(path).append([{"kind": "created", "url": transport.url, "run_id": run_id}])
    stored = uploader.send(contents.rounds)
    if contents.model is not None:
        uploader.send_model(contents.model)
    if contents.finish is not None:
        try:
            end = contents.finish
            uploader.finish(end["status"], end.get("message"), end.get("finished_at"))
        except Refused as err:
            if err.status != 409:  # 409: finished already, with another status
                raise
    return run_id, len(contents.rounds), stored
