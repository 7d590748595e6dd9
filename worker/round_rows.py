"""Rounds packed into the rows that store them (client rows with their selection gaps,
staleness marks, metric chunks) and written with the run's progress: the one write path
of the engine's recorder and of ingested rounds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from db.marks import SelectionTally
from db.matrices import selection_tally
from db.models import MetricChunk, RoundClients, Run, StalenessMark, utcnow
from db.packing import (
    pack_acc,
    pack_available_many,
    pack_begins,
    pack_facts,
    pack_gaps_many,
    pack_ids_many,
    pack_timeline,
    pack_weights,
)
from db.run_models import save_model
from db.runs import pack_checkpoint, save_checkpoint
from db.series import CHUNK, ChunkWriter
from db.upsert import insert_ignore, upsert_many
from worker.engine import ClientTimeline, ClientWeights, RoundRecord


class RunLost(RuntimeError):
    """The run was deleted, or another execution claimed it (this one went silent past
    the lease)."""


@dataclass
class Rows:
    """A batch packed for its transaction: written again whole if that is retried."""

    rounds_done: int
    names: set[str] | None
    clients: list[dict[str, Any]]
    marks: list[dict[str, Any]]
    chunks: list[dict[str, Any]]
    checkpoint: tuple[int, bytes] | None
    model: bytes | None = None


class RoundRows:
    """Packs a run's rounds, a batch at a time, continuing the history already stored
    (read by `load`): the selection tally that gives gaps and staleness marks, the open
    metric chunks, and the metric names seen. Rounds must come in increasing order,
    after the last stored one."""

    def __init__(self, run_id: int, n_clients: int, tally: SelectionTally, chunks: ChunkWriter):
        self.run_id = run_id
        self.n_clients = n_clients
        self.tally = tally
        self.chunks = chunks
        self.names: set[str] = set()  # metric names seen so far
        self.last_weights: tuple[tuple[str, bytes, str, bytes], bytes] | None = None

    @classmethod
    def load(cls, session: Session, run_id: int, n_clients: int) -> RoundRows:
        """The selection tally and the open metric chunks of the run's stored rounds."""
        tally = selection_tally(session, run_id, n_clients)
        c = MetricChunk
        open_chunks = session.execute(
            select(c.name, c.chunk, c.present, c.values).where(
                c.run_id == run_id, c.chunk == max(tally.next_round - 1, 0) // CHUNK
            )
        ).all()
        return cls(run_id, n_clients, tally, ChunkWriter(run_id, open_chunks))

    @property
    def next_round(self) -> int:
        """The round after the last one stored or packed."""
        return self.tally.next_round

    def pack(
        self,
        rounds: list[RoundRecord],
        rounds_done: int,
        checkpoint: dict[str, Any] | None = None,
        model: bytes | None = None,
    ) -> Rows:
        """The rounds' rows (with the run's final model file, if given); moves the
        selection tally and the metric chunks on."""
        gaps, marks = self.tally.advance_many(
            [r.round for r in rounds], [r.selected for r in rounds]
        )
        for r in rounds:
            self.chunks.add(r.round, {**r.metrics, "wall_s": r.wall_s})
        packed_gaps = pack_gaps_many(gaps, [len(r.selected) for r in rounds])
        return Rows(
            rounds_done=rounds_done,
            names=self._new_names(rounds),
            clients=self.client_rows(rounds, packed_gaps),
            marks=marks,
            chunks=self.chunks.take(),
            checkpoint=None
            if checkpoint is None
            else (int(checkpoint["round"]), pack_checkpoint(checkpoint)),
            model=model,
        )

    def store(self, session: Session, rows: Rows, claim: str | None = None) -> bool:
        """Write the rows with the run's progress and heartbeat (only while the run carries
        `claim`, if given); returns whether a cancel is requested. The progress update
        comes first, so it locks the run's row for the rest of the transaction."""
        progress: dict[str, Any] = {"rounds_done": rows.rounds_done, "heartbeat_at": utcnow()}
        if rows.names is not None:
            known = session.scalar(select(Run.metric_names).where(Run.id == self.run_id))
            progress["metric_names"] = sorted(rows.names | set(known or ()))
        stmt = update(Run).where(Run.id == self.run_id)
        if claim is not None:
            stmt = stmt.where(Run.claim == claim)
        # On the connection: a Core statement, without the ORM's bulk-update machinery.
        returning = stmt.values(**progress).returning(Run.cancel_requested)
        row = session.connection().execute(returning).first()
        if row is None:
            raise RunLost(f"run {self.run_id} was deleted or taken over by another execution")
        insert_ignore(session, RoundClients.__table__, rows.clients)  # type: ignore[arg-type]
        insert_ignore(session, StalenessMark.__table__, rows.marks)  # type: ignore[arg-type]
        keys = ["run_id", "name", "chunk"]
        upsert_many(session, MetricChunk.__table__, rows.chunks, keys)  # type: ignore[arg-type]
        if rows.checkpoint is not None:
            save_checkpoint(session, self.run_id, *rows.checkpoint)
        if rows.model is not None:
            save_model(session, self.run_id, rows.model)
        return bool(row[0])

    def client_rows(
        self, rounds: list[RoundRecord], packed_gaps: list[bytes]
    ) -> list[dict[str, Any]]:
        """The rounds' packed rows, with their packed selection gaps (`PENDING_GAPS` where
        they are not known yet: an ingested round whose earlier rounds have not all
        arrived)."""
        available = pack_available_many([r.available for r in rounds], self.n_clients)
        selected = pack_ids_many([r.selected for r in rounds], self.n_clients)
        return [
            {
                "run_id": self.run_id,
                "round": record.round,
                "available": available[i],
                "selected": selected[i],
                "gaps": packed_gaps[i],
                "weights": self._pack_weights(record.weights),
                "client_acc": pack_acc(record.client_acc),
                "timeline": self._pack_timeline(record.timeline),
                "timeline_begin": _pack_begins(record.timeline),
                "clients": _pack_facts(record),
            }
            for i, record in enumerate(rounds)
        ]

    def _pack_timeline(self, timeline: ClientTimeline | None) -> bytes | None:
        if timeline is None:
            return None
        t = timeline
        ends = np.stack([t.download_end, t.compute_end, t.end])
        return pack_timeline(t.start, t.ids, ends, t.outcome, self.n_clients)

    def _new_names(self, rounds: list[RoundRecord]) -> set[str] | None:
        """All metric names seen so far, if these rounds brought new ones."""
        seen = {"wall_s"}.union(*(r.metrics for r in rounds)) if rounds else set()
        if self.names.issuperset(seen):
            return None
        self.names |= seen
        return set(self.names)

    def _pack_weights(self, weights: ClientWeights) -> bytes:
        """Memory algorithms weight the same clients alike round after round: the last
        packed weights are reused while their raw bytes do not change (comparing bytes
        costs a tenth of comparing the arrays)."""
        ids, values = weights.ids, weights.values
        raw = (ids.dtype.str, ids.tobytes(), values.dtype.str, values.tobytes())
        if self.last_weights is None or self.last_weights[0] != raw:
            packed = pack_weights(weights.ids, weights.values, self.n_clients)
            self.last_weights = (raw, packed)
        return self.last_weights[1]


def _pack_facts(record: RoundRecord) -> bytes | None:
    facts = record.clients
    if facts is None:
        return None
    return pack_facts(facts.data_share, facts.work_s, facts.privacy_rate)


def _pack_begins(timeline: ClientTimeline | None) -> bytes | None:
    """Where a timeline's clients began, if not all at its start."""
    if timeline is None or timeline.begin is None:
        return None
    return pack_begins(timeline.start, timeline.begin)
