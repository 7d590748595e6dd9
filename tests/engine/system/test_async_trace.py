"""FedBuff and FedAsync on three clients, by hand, through whole runs.

The clients of `test_clocked_runs.py` (one float32 parameter, two local steps of 5
samples): full work takes 3, 4 and 9 s. All three always online, all three train at
once (concurrency 3): each starts again, on the version current then, as soon as its
update arrives (after a server update when its update completed the buffer).
Client i's data are the mean e_i ∈ (1, 2, 4) exactly, so two local steps of lr 0.1
on (x − e)² from x give Δ = (e − x)(1 − 0.8²) = 0.36 (e − x).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.engine.sinks import CheckpointsSink
from tests.engine.system import files
from tests.engine.system.test_clocked_runs import ALWAYS, SPEEDS, column
from worker.engine import ListSink, build_config, simulate
from worker.engine.config import RunConfig

MEANS = (1.0, 2.0, 4.0)


def config(
    folder: Path,
    algorithm: str,
    *extra: str,
    rounds: int = 4,
    sessions: dict[int, list[tuple[float, float]]] = ALWAYS,
) -> RunConfig:
    device_file = files.devices(folder, SPEEDS)
    trace_file = files.trace(folder, sessions, period=2e6)
    data = {"dataset": "mean_estimation", "n_clients": 3, "root": str(folder), "means": MEANS}
    return build_config(
        {"rounds": rounds, "data": data},
        [
            "model.name=scalar",
            "client.local_steps=2",
            "client.batch_size=5",
            "client.lr=0.1",
            f"algorithm.name={algorithm}",
            f"algorithm.{algorithm}.concurrency=3",
            "system.kind=fedscale",
            f"system.fedscale.device_file={device_file}",
            f"system.fedscale.trace_file={trace_file}",
            "system.fedscale.compute_factor=1",
            *extra,
        ],
    )


def run(cfg: RunConfig) -> ListSink:
    sink = ListSink()
    simulate(cfg, sink)
    return sink


def delta(client: int, x: float) -> float:
    return 0.36 * (MEANS[client] - x)


def f(s: int) -> float:
    """The default staleness function, polynomial with a = 0.5."""
    return (1 + s) ** -0.5


def weights(sink: ListSink) -> list[dict[int, float]]:
    return [r.weights.to_dict() for r in sink.records]


def test_fedbuff_trace(tmp_path: Path) -> None:
    # Buffer K = 2. Update 0: c0 (3 s) and c1 (4 s), both from v0; c0 restarted at 3 s
    # on v0 (ends 6 s). Update 1: c1 restarts at 4 s on v1 (ends 8 s); c0 arrives at 6 s
    # from v0 (s = 1), restarts on v1 (ends 9 s); c1 at 8 s from v1 (s = 0). Update 2:
    # c1 restarts at 8 s on v2 (ends 12 s); c2 (9 s, from v0, s = 2) and c0 (9 s, from
    # v1, s = 1) tie, c2 started first; c2 restarts on v2. Update 3: c0 restarts at 9 s
    # on v3 (ends 12 s); c1 (12 s, from v2, s = 1) and c0 (12 s, from v3, s = 0).
    sink = run(config(tmp_path, "fedbuff", "algorithm.fedbuff.buffer=2"))

    assert column(sink, "sim_time_s") == [4.0, 8.0, 9.0, 12.0]
    assert column(sink, "update_staleness_max") == [0.0, 1.0, 2.0, 1.0]
    assert column(sink, "update_staleness_mean") == [0.0, 0.5, 1.5, 0.5]
    assert column(sink, "in_flight") == [2.0] * 4  # the one that flushed waits for v_{u+1}
    x = [0.0]
    x.append(x[0] + (delta(0, x[0]) + delta(1, x[0])) / 2)
    x.append(x[1] + (f(1) * delta(0, x[0]) + f(0) * delta(1, x[1])) / 2)
    x.append(x[2] + (f(2) * delta(2, x[0]) + f(1) * delta(0, x[1])) / 2)
    x.append(x[3] + (f(1) * delta(1, x[2]) + f(0) * delta(0, x[3])) / 2)
    assert column(sink, "param") == pytest.approx(x[1:], rel=1e-6)
    expected = [{0: 0.5, 1: 0.5}, {0: f(1) / 2, 1: 0.5}, {0: f(1) / 2, 2: f(2) / 2}]
    expected.append({0: 0.5, 1: f(1) / 2})
    for got, want in zip(weights(sink), expected, strict=True):
        assert got == pytest.approx(want, rel=1e-6)


def test_fedbuff_timeline(tmp_path: Path) -> None:
    # The trace above, client by client: (client, began, download, compute and
    # activity ends); download, compute and upload take (1, 1, 1), (0.5, 3, 0.5) and
    # (2, 5, 2) s. Each update holds the clients that arrived since the one before.
    sink = run(config(tmp_path, "fedbuff", "algorithm.fedbuff.buffer=2"))

    expected = [
        (0.0, [(0, 0, 1, 2, 3), (1, 0, 0.5, 3.5, 4)]),
        (4.0, [(0, 3, 4, 5, 6), (1, 4, 4.5, 7.5, 8)]),
        (8.0, [(2, 0, 2, 7, 9), (0, 6, 7, 8, 9)]),
        (9.0, [(1, 8, 8.5, 11.5, 12), (0, 9, 10, 11, 12)]),
    ]
    for record, (start, rows) in zip(sink.records, expected, strict=True):
        t = record.timeline
        assert t is not None and t.begin is not None
        got = zip(t.ids, t.begin, t.download_end, t.compute_end, t.end, strict=True)
        assert t.start == start and [tuple(map(float, row)) for row in got] == rows
        assert t.outcome.tolist() == [1, 1]


def test_updates_older_than_the_ring_are_dropped(tmp_path: Path) -> None:
    # Ring of 2 versions: at update 2 it holds v1 and v2, so c2's update from v0 goes.
    sink = run(
        config(tmp_path, "fedbuff", "algorithm.fedbuff.buffer=2", "algorithm.fedbuff.ring=2")
    )

    assert column(sink, "stale_dropped") == [0.0, 0.0, 1.0, 0.0]
    assert weights(sink)[2] == pytest.approx({0: f(1)})  # the mean of the one left
    assert column(sink, "n_selected") == [2.0, 2.0, 1.0, 2.0]
    third = sink.records[2].timeline
    assert third is not None and third.ids.tolist() == [2, 0]
    assert third.outcome.tolist() == [4, 1]  # c2's arrived, discarded


def test_fedasync_mixes_each_arrival(tmp_path: Path) -> None:
    # One arrival an update. c0 at 3 s (v0, s = 0), restarts on v1 (ends 6 s); c1 at
    # 4 s (v0, s = 1), restarts on v2 (ends 8 s); c0 at 6 s (v1, s = 1), restarts on v3;
    # c1 at 8 s (v2, s = 1). w ← w + α f(s) (w_v + Δ − w), α = 0.5.
    sink = run(config(tmp_path, "fedasync", "algorithm.fedasync.mixing=0.5"))

    assert column(sink, "sim_time_s") == [3.0, 4.0, 6.0, 8.0]
    assert column(sink, "update_staleness_max") == [0.0, 1.0, 1.0, 1.0]
    x = [0.0]
    for client, v in ((0, 0), (1, 0), (0, 1), (1, 2)):
        s = len(x) - 1 - v
        origin = x[v]
        x.append(x[-1] + 0.5 * f(s) * (origin + delta(client, origin) - x[-1]))
    assert column(sink, "param") == pytest.approx(x[1:], rel=1e-6)
    expected = [{0: 0.5}, {1: 0.5 * f(1)}, {0: 0.5 * f(1)}, {1: 0.5 * f(1)}]
    for got, want in zip(weights(sink), expected, strict=True):
        assert got == pytest.approx(want, rel=1e-6)


@pytest.mark.parametrize("work", ["drop", "keep"])
def test_a_client_that_leaves_mid_training(tmp_path: Path, work: str) -> None:
    # Client 2 (download 2 s, two steps of 2.5 s, upload 2 s) is online until 6.5 s only.
    # keep: it does the one step whose upload arrives by then, a partial update at 6.5 s
    # from v0 entering update 1 with c0's (6 s); drop: it returns nothing, and update 1
    # waits for c1 (8 s, from v1), and update 2 for c0 (9 s) and c1 (12 s). Either way
    # it never starts again: its session ends as it stops.
    sessions = {**ALWAYS, 2: [(0.0, 6.5)]}
    cfg = config(
        tmp_path,
        "fedbuff",
        "algorithm.fedbuff.buffer=2",
        f"client.partial_work={work}",
        rounds=3,
        sessions=sessions,
    )
    sink = run(cfg)

    if work == "keep":
        assert column(sink, "sim_time_s") == [4.0, 6.5, 9.0]  # then c1 (8 s), c0 (9 s)
        assert column(sink, "partial_updates") == [0.0, 1.0, 0.0]
        assert weights(sink)[1] == pytest.approx({0: f(1) / 2, 2: f(1) / 2})
        outcomes = {0: 1, 2: 2}  # c2 partial
    else:
        assert column(sink, "sim_time_s") == [4.0, 8.0, 12.0]
        assert column(sink, "dropped_updates") == [0.0, 1.0, 0.0]
        assert weights(sink)[1] == pytest.approx({0: f(1) / 2, 1: 0.5})
        outcomes = {0: 1, 1: 1, 2: 3}  # c2 dropped, on the timeline after the arrivals
    second = sink.records[1].timeline
    assert second is not None and second.begin is not None
    assert dict(zip(second.ids.tolist(), second.outcome.tolist(), strict=True)) == outcomes
    assert list(outcomes) == second.ids.tolist()
    c2 = second.ids.tolist().index(2)
    assert (second.begin[c2], second.end[c2]) == (0.0, 6.5)  # gone as its session ends
    assert all(2 not in r.selected for r in sink.records[2:])


@pytest.mark.parametrize(("kind", "expected"), [("constant", 1.0), ("hinge", 1 / (0.5 * 1 + 1))])
def test_staleness_functions(tmp_path: Path, kind: str, expected: float) -> None:
    # hinge with b = 1: f(2) = 1 / (a·(2 − 1) + 1); update 2 holds c2 at s = 2
    sink = run(
        config(
            tmp_path,
            "fedbuff",
            "algorithm.fedbuff.buffer=2",
            f"algorithm.fedbuff.staleness={kind}",
            "algorithm.fedbuff.staleness_b=1",
        )
    )

    assert weights(sink)[2][2] == pytest.approx(expected / 2)
    assert weights(sink)[2][0] == pytest.approx(0.5)  # s = 1 ≤ b


def test_resume_mid_run_records_the_same(tmp_path: Path) -> None:
    cfg = config(
        tmp_path, "fedbuff", "algorithm.fedbuff.buffer=2", "eval.checkpoint_every=3", rounds=8
    )
    whole = CheckpointsSink()
    simulate(cfg, whole)
    mid = whole.checkpoints[0]
    assert mid["round"] == 3 and len(mid["flights"]["flying"]["ids"]) == 2  # two clients in flight
    resumed = ListSink()
    simulate(cfg, resumed, checkpoint=mid)

    assert [r.deterministic() for r in resumed.records] == [
        r.deterministic() for r in whole.records[3:]
    ]


def test_a_version_2_checkpoint_resumes_with_its_flights_at_their_arrival(
    tmp_path: Path,
) -> None:
    # Version 2 kept no start, download or compute time of the clients in flight: the
    # model's updates are the same, and those clients show as a point at their arrival.
    cfg = config(
        tmp_path, "fedbuff", "algorithm.fedbuff.buffer=2", "eval.checkpoint_every=3", rounds=8
    )
    whole = CheckpointsSink()
    simulate(cfg, whole)
    mid = whole.checkpoints[0]
    flying = {
        k: v
        for k, v in mid["flights"]["flying"].items()
        if k not in ("begin", "download_end", "compute_end")
    }
    old = {**mid, "version": 2, "flights": {**mid["flights"], "flying": flying}}
    resumed = ListSink()
    simulate(cfg, resumed, checkpoint=old)

    assert column(resumed, "param") == column(whole, "param")[3:]
    in_flight = set(zip(flying["ids"].tolist(), flying["end"].tolist(), strict=True))
    shown = []
    for record in resumed.records:
        t = record.timeline
        assert t is not None and t.begin is not None
        for row, pair in enumerate(zip(t.ids.tolist(), t.end.tolist(), strict=True)):
            if pair in in_flight:
                shown.append(pair)
                times = (t.begin[row], t.download_end[row], t.compute_end[row])
                assert times == (t.end[row],) * 3
    assert sorted(shown) == sorted(in_flight)


def test_async_needs_a_clock() -> None:
    with pytest.raises(Exception, match="runs asynchronously on the clock"):
        build_config(
            {"data": {"n_clients": 3}},
            ["algorithm.name=fedbuff", "algorithm.fedbuff.concurrency=3"],
        )


def test_vectorised_and_one_client_at_a_time_agree() -> None:
    # Digits on a CNN: updates from different versions train in one stacked step (vmap)
    # or one after the other (sequential), from the same starting models and batches.
    base = {"rounds": 6, "data": {"dataset": "digits", "n_clients": 30}}
    sets = [
        "model.name=cnn",
        "algorithm.name=fedbuff",
        "algorithm.fedbuff.concurrency=12",
        "algorithm.fedbuff.buffer=5",
        "system.kind=profiles",
        "client.local_steps=3",
        "client.batch_size=8",
        "client.lr=0.05",
    ]
    stacked = run(build_config(base, [*sets, "backend=vmap"]))
    one_by_one = run(build_config(base, [*sets, "backend=sequential"]))

    assert column(stacked, "update_staleness_max")[-1] > 0  # versions differ in a batch
    for name in ("train_loss", "test_loss", "test_acc"):
        assert column(stacked, name) == pytest.approx(column(one_by_one, name), rel=1e-4, abs=1e-5)


def test_both_learn_digits_from_the_same_arrivals() -> None:
    # 50 clients of lognormal speeds, 10 training at once: 300 arrivals make 60 FedBuff
    # updates of 5 or 300 FedAsync ones. Training does not change when clients arrive,
    # so both end at the same simulated time; both learn the digits.
    def final(algorithm: str, rounds: int, *extra: str) -> dict[str, float]:
        cfg = build_config(
            {"rounds": rounds, "data": {"dataset": "digits", "n_clients": 50}},
            [
                "model.name=linear",
                f"algorithm.name={algorithm}",
                f"algorithm.{algorithm}.concurrency=10",
                "system.kind=profiles",
                "client.local_steps=5",
                "client.batch_size=16",
                "client.lr=0.05",
                "eval.every=1000",
                *extra,
            ],
        )
        return run(cfg).records[-1].metrics

    buffered = final("fedbuff", 60, "algorithm.fedbuff.buffer=5")
    mixed = final("fedasync", 300)

    assert buffered["sim_time_s"] == mixed["sim_time_s"]
    assert buffered["test_acc"] > 0.75 and mixed["test_acc"] > 0.75
