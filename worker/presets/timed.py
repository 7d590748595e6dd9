"""Rounds in simulated time: stragglers against a deadline, FedScale's device traces, and
asynchronous against synchronous methods."""

from __future__ import annotations

from typing import Any

from worker.presets.model import Method, preset

# Rounds in simulated time: 100 clients of the digits (Dirichlet 0.5), 10 per round,
# 10 local steps of 16 samples. Plain FedAvg waits for its slowest client; with a
# deadline of DEADLINE_S and 30 % over-commitment it keeps the first 10 updates in time;
# FedNova keeps what each client finished by the deadline, normalised by its steps.
DEADLINE_S = 1.5
TIMED: dict[str, Any] = {
    "rounds": 150,
    "data": {"dataset": "digits", "n_clients": 100, "partition": "dirichlet"},
    "model": {"name": "mlp"},
    "algorithm": {"name": "fedavg", "participation": 10},
    "client": {"local_steps": 10, "batch_size": 16, "lr": 0.05},
    "eval": {"every": 5, "target_acc": 0.9},
}


def timed_methods(deadline_s: float) -> tuple[Method, ...]:
    return (
        Method("fedavg"),
        Method(
            "fedavg",
            {"round.deadline_s": deadline_s, "round.over_commit": 0.3},
            label="fedavg-deadline",
        ),
        Method(
            "fednova",
            {"round.deadline_s": deadline_s, "client.partial_work": "keep"},
            label="fednova-partial",
        ),
    )


STRAGGLERS = preset(
    "stragglers",
    "Stragglers: FedAvg vs FedAvg with a deadline and over-commitment vs FedNova with partial "
    "work, devices of lognormal speed (σ = 1); compare simulated time to 90 % accuracy",
    {**TIMED, "system": {"kind": "profiles", "profiles": {"compute_spread": 1.0}}},
    timed_methods(DEADLINE_S),
    seeds=(0, 1, 2),
    headline=("time_to_target_s", "dropped_updates_avg"),
)

FEDSCALE_TRACE = preset(
    "fedscale-trace",
    "The stragglers comparison on FedScale-format device files: speeds and online sessions "
    "in seconds (the shipped synthetic pair; yours with system.fedscale.device_file and "
    "trace_file under the data root)",
    {**TIMED, "system": {"kind": "fedscale"}},
    timed_methods(8.0),
    seeds=(0, 1, 2),
    headline=("time_to_target_s", "dropped_updates_avg"),
)

# Asynchronous against synchronous on the stragglers' devices and 100 clients of the
# digits holding 2 classes each, in two groups by their smallest label, available in
# turns (diurnal): labels 0-4 for 10 rounds, the others for 5. A turn lasts that many
# rounds of FedAvg or FedBuff (10 updates each) and 10 times more of FedAsync (one update
# each), so that about as many updates arrive in a turn; 20 clients train at once in the
# async methods, whose 3600 arrivals take about the simulated time of FedAvg's 150 rounds.
ASYNC_VS_SYNC = preset(
    "async-vs-sync",
    "Asynchronous vs synchronous FL: FedAvg with a deadline and over-commitment vs FedBuff "
    "vs FedAsync, devices of lognormal speed (σ = 1), diurnal availability; compare "
    "simulated time to 90 % accuracy and participation bias",
    {
        **TIMED,
        "data": {
            "dataset": "digits",
            "n_clients": 100,
            "partition": "by_class",
            "by_class": {"classes_per_client": 2},
        },
        "availability": {
            "kind": "diurnal",
            "diurnal": {"strategy": "ratio", "period": 10, "ratio": 0.5},
        },
        "system": {"kind": "profiles", "profiles": {"compute_spread": 1.0}},
    },
    (
        Method(
            "fedavg",
            {"round.deadline_s": DEADLINE_S, "round.over_commit": 0.3},
            label="fedavg-deadline",
        ),
        Method(
            "fedbuff",
            {"algorithm.fedbuff.concurrency": 20, "algorithm.fedbuff.buffer": 10, "rounds": 360},
        ),
        Method(
            "fedasync",
            {
                "algorithm.fedasync.concurrency": 20,
                "rounds": 3600,
                "availability.diurnal.period": 100,
                "eval.every": 50,
            },
        ),
    ),
    seeds=(0, 1, 2),
    headline=("time_to_target_s", "update_staleness_mean_avg"),
)
