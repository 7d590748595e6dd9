"""A run's participation per client, and its participation bias (`worker.engine.bias`)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class BinPublic(BaseModel):
    """A bin of clients ranked by a key (their availability, or their device time)."""

    clients: int
    key_low: float = Field(description="The smallest key of its clients.")
    key_high: float = Field(description="The largest key of its clients.")
    data_share: float = Field(description="Its clients' share of the data, Σ α.")
    aggregate_share: float = Field(description="Its clients' share of the aggregate, Σ p̄.")
    gap: float = Field(
        description="aggregate_share − data_share: negative where its clients weigh less "
        "in the model than their data."
    )


class ParticipationPublic(BaseModel):
    """Per client over the recorded rounds (index: client id): how often it was there,
    how its updates fared, and its share of the aggregate against its share of the data;
    then the run's bias: overall, and split into fifths by availability and by device
    time."""

    rounds: int
    available_share: list[float] = Field(description="Share of the rounds it was available in.")
    kept: list[int] = Field(description="Rounds its fresh update entered the model.")
    dropped: list[int] = Field(
        description="Rounds the server asked for its update and it did not enter: late for "
        "the deadline, gone, or past the updates over-commitment keeps (runs with a system "
        "model)."
    )
    stale: list[int] = Field(
        description="Rounds an earlier update of it entered from the server's memory "
        "(memory methods: FedLaAvg, MIFA, FedVARP, ...)."
    )
    aggregate_share: list[float] | None = Field(
        description="p̄: its normalised aggregation weight, averaged over the rounds (null "
        "before any round aggregated)."
    )
    data_share: list[float] = Field(description="α: its target weight.")
    data_known: bool = Field(
        description="Whether the run recorded its data shares; if not (external runs), "
        "each client's is 1 / N."
    )
    work_s: list[float] | None = Field(
        description="Seconds its device takes for a round's whole work (download, local "
        "steps, upload); null without a system model."
    )
    participation_tv: float | None = Field(description="TV(α, p̄), in [0, 1].")
    by_availability: list[BinPublic] | None = Field(
        description="Fifths of the clients, least available first; null where every client "
        "was available as often."
    )
    by_device_time: list[BinPublic] | None = Field(
        description="Fifths of the clients, slowest device first; null without a system model."
    )
