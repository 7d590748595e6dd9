"""A run's export, streamed a page of rounds at a time: the rounds as CSV
(`export.csv`), or everything with the config (`export.zip`, `export.json`).

The bundle holds:
- `run.json`: the run (name, status, tags, notes, times, error) and its summary;
- `config.json`: its config as stored;
- `rounds.csv`: every recorded round's metrics at full resolution (as `export.csv`);
- `clients.csv`: every recorded round's available and selected client ids and the
  aggregation weights (`id:weight`), space-separated.
`export.json` is the same as one document: `{"run", "config", "rounds", "clients"}`.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable, Iterator
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from db.client_rounds import ClientRound, client_rounds
from db.metric_values import round_rows
from worker.results.table import write_csv

PAGE = 5000
CLIENT_FIELDS = ("available", "selected", "weights")
README = __doc__.split("\n\n", 1)[1]


def pages(fetch: Callable[[int], list[Any]], key: Callable[[Any], int]) -> Iterator[list[Any]]:
    """Pages of `fetch(after)` until one comes back empty."""
    after = -1
    while rows := fetch(after):
        yield rows
        after = key(rows[-1])


def round_pages(sessions: sessionmaker[Session], run_id: int) -> Iterator[list[dict[str, Any]]]:
    def fetch(after: int) -> list[dict[str, Any]]:
        with sessions() as session:
            return round_rows(session, run_id, after, PAGE)

    return pages(fetch, lambda row: int(row["round"]))


def client_pages(
    sessions: sessionmaker[Session], run_id: int, n_clients: int
) -> Iterator[list[ClientRound]]:
    size = max(1, min(PAGE, 10_000_000 // max(1, n_clients)))

    def fetch(after: int) -> list[ClientRound]:
        with sessions() as session:
            return client_rounds(session, run_id, n_clients, after, size, CLIENT_FIELDS)

    return pages(fetch, lambda row: row.round)


def csv_text(rows: list[Any], columns: list[str] | None) -> str:
    """Rows as CSV lines (lists, or dicts with `columns`), each cell made safe for a
    spreadsheet (`cells.csv_cell`)."""
    if columns is not None:
        rows = [[row.get(c) for c in columns] for row in rows]
    return write_csv(rows)


def rounds_csv(
    sessions: sessionmaker[Session], run_id: int, metric_names: list[str]
) -> Iterator[str]:
    columns = ["round", *metric_names]
    yield csv_text([columns], None)
    for rows in round_pages(sessions, run_id):
        yield csv_text(rows, columns)


def client_row(r: ClientRound) -> list[Any]:
    weights = " ".join(f"{k}:{v!r}" for k, v in (r.weights or {}).items())
    return [r.round, _ids(r.available), _ids(r.selected), weights]


def _ids(ids: list[int] | None) -> str:
    return " ".join(map(str, ids or []))


def clients_csv(sessions: sessionmaker[Session], run_id: int, n_clients: int) -> Iterator[str]:
    yield "round,available,selected,weights\n"
    for rows in client_pages(sessions, run_id, n_clients):
        yield csv_text([client_row(r) for r in rows], None)


class _Pipe(io.RawIOBase):
    """Where the zip is written: what it gets is taken out as it comes (not seekable, so
    the zip writes each entry's sizes after its data)."""

    def __init__(self) -> None:
        self.chunks: list[bytes] = []

    def writable(self) -> bool:
        return True

    def write(self, b: Any) -> int:
        self.chunks.append(bytes(b))
        return len(b)

    def take(self) -> bytes:
        out = b"".join(self.chunks)
        self.chunks.clear()
        return out


def bundle_zip(
    sessions: sessionmaker[Session], run: dict[str, Any], config: dict[str, Any]
) -> Iterator[bytes]:
    """The zip of `run` (its public fields, summary included) and `config`."""
    pipe = _Pipe()
    with zipfile.ZipFile(pipe, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("README.txt", README)
        archive.writestr("run.json", json.dumps(run, indent=2))
        archive.writestr("config.json", json.dumps(config, indent=2))
        yield pipe.take()
        entries = {
            "rounds.csv": rounds_csv(sessions, run["id"], run["metric_names"]),
            "clients.csv": clients_csv(sessions, run["id"], run["n_clients"]),
        }
        for name, parts in entries.items():
            with archive.open(name, "w", force_zip64=True) as entry:
                for part in parts:
                    entry.write(part.encode())
                    yield pipe.take()
    yield pipe.take()


def bundle_json(
    sessions: sessionmaker[Session], run: dict[str, Any], config: dict[str, Any]
) -> Iterator[str]:
    """The same as one JSON document, streamed."""
    yield '{"run": ' + json.dumps(run) + ', "config": ' + json.dumps(config) + ', "rounds": ['
    first = True
    for rows in round_pages(sessions, run["id"]):
        yield ("" if first else ",") + ",".join(json.dumps(row) for row in rows)
        first = False
    yield '], "clients": ['
    first = True
    for crows in client_pages(sessions, run["id"], run["n_clients"]):
        items = (
            json.dumps({"round": r.round, "available": r.available, "selected": r.selected,
                        "weights": {str(k): v for k, v in (r.weights or {}).items()}})
            for r in crows
        )  # fmt: skip
        yield ("" if first else ",") + ",".join(items)
        first = False
    yield "]}"
