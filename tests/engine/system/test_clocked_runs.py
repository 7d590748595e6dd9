"""Three clients over four rounds in simulated time, by hand, through whole runs.

FedScale-format files give the clients (compute factor 1; the model is one float32,
4 bytes = 0.032 kbit): client 0 computes 100 ms per sample at 0.032 kbit/s, client 1
300 ms at 0.064 kbit/s, client 2 500 ms at 0.016 kbit/s. Two local steps of 5 samples
then take download, compute and upload of (1, 1, 1), (0.5, 3, 0.5) and (2, 5, 2)
seconds: full work arrives 3, 4 and 9 s after a round starts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.engine.system import files
from worker.engine import ListSink, build_config, simulate

SPEEDS = {0: (100.0, 0.032), 1: (300.0, 0.064), 2: (500.0, 0.016)}
ALWAYS = {c: [(0.0, 1e6)] for c in SPEEDS}


def run(folder: Path, sessions: dict[int, list[tuple[float, float]]], *extra: str) -> ListSink:
    device_file = files.devices(folder, SPEEDS)
    trace_file = files.trace(folder, sessions, period=2e6)
    config = build_config(
        {"rounds": 4, "data": {"dataset": "mean_estimation", "n_clients": 3, "root": str(folder)}},
        [
            "model.name=scalar",
            "algorithm.participation=3",
            "client.local_steps=2",
            "client.batch_size=5",
            "system.kind=fedscale",
            f"system.fedscale.device_file={device_file}",
            f"system.fedscale.trace_file={trace_file}",
            "system.fedscale.compute_factor=1",
            *extra,
        ],
    )
    sink = ListSink()
    simulate(config, sink)
    return sink


def column(sink: ListSink, name: str) -> list[Any]:
    return [r.metrics[name] for r in sink.records]


def test_the_slowest_client_sets_the_round(tmp_path: Path) -> None:
    sink = run(tmp_path, ALWAYS)

    assert column(sink, "sim_time_s") == [9.0, 18.0, 27.0, 36.0]
    assert column(sink, "round_time_s") == [9.0] * 4
    assert column(sink, "bytes_down") == [12.0] * 4  # the 4-byte model to 3 clients
    assert column(sink, "bytes_up_total") == [12.0, 24.0, 36.0, 48.0]
    first = sink.records[0].timeline
    assert first is not None
    assert first.download_end.tolist() == [1.0, 0.5, 2.0]
    assert first.compute_end.tolist() == [2.0, 3.5, 7.0]
    assert first.end.tolist() == [3.0, 4.0, 9.0]
    assert sink.records[1].timeline.start == 9.0  # type: ignore[union-attr]


def test_deadline_drops_the_late_client(tmp_path: Path) -> None:
    sink = run(tmp_path, ALWAYS, "round.deadline_s=5")

    assert column(sink, "sim_time_s") == [5.0, 10.0, 15.0, 20.0]
    assert column(sink, "dropped_updates") == [1.0] * 4
    assert column(sink, "wasted_client_s") == [3.0] * 4  # client 2, from 2 s to 5 s
    assert column(sink, "bytes_up") == [8.0] * 4
    assert [r.selected.tolist() for r in sink.records] == [[0, 1]] * 4
    assert column(sink, "n_selected") == [2.0] * 4


def test_over_commit_keeps_the_first_two(tmp_path: Path) -> None:
    sink = run(tmp_path, ALWAYS, "algorithm.participation=2", "round.over_commit=0.5")

    # ⌈1.5 · 2⌉ = 3 selected, the round ends at the second arrival
    assert column(sink, "sim_time_s") == [4.0, 8.0, 12.0, 16.0]
    assert column(sink, "wasted_client_s") == [2.0] * 4  # client 2 computed from 2 s to 4 s
    assert [r.timeline.outcome.tolist() for r in sink.records] == [[1, 1, 4]] * 4  # type: ignore[union-attr]


# Client 2 is online from 0 to 7 s, then from 20 s on; the others always.
LEAVES = {0: [(0.0, 1e6)], 1: [(0.0, 1e6)], 2: [(0.0, 7.0), (20.0, 1e6)]}


def test_leaving_mid_round_under_drop(tmp_path: Path) -> None:
    sink = run(tmp_path, LEAVES)

    # Round 0: client 2 leaves at 7 before uploading. Round 1 starts at 7, when its
    # session ends: it is gone at once. Rounds 2 and 3: it is offline.
    assert column(sink, "sim_time_s") == [7.0, 11.0, 15.0, 19.0]
    assert column(sink, "n_available") == [3.0, 3.0, 2.0, 2.0]
    assert column(sink, "dropped_updates") == [1.0, 1.0, 0.0, 0.0]
    assert column(sink, "partial_updates") == [0.0] * 4
    assert column(sink, "wasted_client_s") == [5.0, 0.0, 0.0, 0.0]


def test_leaving_mid_round_under_keep(tmp_path: Path) -> None:
    sink = run(tmp_path, LEAVES, "client.partial_work=keep")

    # Round 0: client 2 has 7 − 2 − 2 = 3 s for steps of 2.5 s: one step, in by 6.5.
    # Round 1 starts at 6.5: client 2 has until 7, no step fits.
    assert column(sink, "sim_time_s") == [6.5, 10.5, 14.5, 18.5]
    assert column(sink, "partial_updates") == [1.0, 0.0, 0.0, 0.0]
    assert column(sink, "dropped_updates") == [0.0, 1.0, 0.0, 0.0]
    assert column(sink, "wasted_client_s") == [0.0] * 4
    assert sink.records[0].selected.tolist() == [0, 1, 2]
    assert sink.records[1].selected.tolist() == [0, 1]


@pytest.mark.parametrize("partial", ["drop", "keep"])
def test_staleness_in_seconds(tmp_path: Path, partial: str) -> None:
    sink = run(tmp_path, LEAVES, f"client.partial_work={partial}")

    # At the end of round 3 client 2 last entered at the end of round 0 (keep) or never.
    last = sink.records[3].metrics
    entered = 6.5 if partial == "keep" else 0.0
    assert last["staleness_s_max"] == pytest.approx(last["sim_time_s"] - entered)
    assert last["staleness_max"] == (3 if partial == "keep" else 4)
