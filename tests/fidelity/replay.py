"""A preset's run replayed on the availability of one of its bundled reference runs
(`worker/reproduction/data/<preset>.json`): a trace of the official run's `active` sets,
π and λ from the dataset's population (what the authors' oracle estimator reads), from
the official run's seed. The checks the fidelity tests make of such a replay."""

from __future__ import annotations

from functools import cache

import pytest

from worker.engine import ListSink, simulate
from worker.engine.records import RoundRecord
from worker.presets import get_preset
from worker.reproduction.figures import rmse, run_curve
from worker.reproduction.references import ReferenceRun, reference

Replay = tuple[ReferenceRun, tuple[RoundRecord, ...]]


@cache
def replayed(preset: str, algorithm: str, seed: int, assignments: tuple[str, ...] = ()) -> Replay:
    """The official run of `algorithm` and `seed`, and FedWatch's records of its replay
    (with `assignments` on top of the preset's method)."""
    p = get_preset(preset)
    ref = reference(preset)
    assert ref is not None
    (official,) = [r for r in ref.runs[algorithm] if r.seed == seed]
    method = next(m for m in p.compare if m.algorithm == algorithm)
    n_clients = p.run_config().data.n_clients
    config = p.run_config(
        [
            *method.as_overrides(),
            f"seed={seed}",
            "device=cpu",
            *assignments,
            *official.replay(n_clients),
        ]
    )
    sink = ListSink()
    simulate(config, sink)
    return official, tuple(sink.records)


def assert_same_availability(replay: Replay) -> None:
    official, records = replay
    for record, theirs in zip(records, official.rounds, strict=True):
        assert record.available.tolist() == sorted(theirs["active"])


def assert_same_entries(replay: Replay) -> None:
    """Every round's entered clients and their weights are the official ones."""
    official, records = replay
    for t, (record, theirs) in enumerate(zip(records, official.rounds, strict=True)):
        assert record.weights.ids.tolist() == sorted(theirs["sampled"]), f"round {t}"
        ours = dict(zip(record.weights.ids.tolist(), record.weights.values.tolist(), strict=True))
        expected = dict(zip(theirs["sampled"], theirs["weights"], strict=True))
        for k, w in expected.items():
            assert ours[k] == pytest.approx(w, rel=1e-6), f"round {t}, client {k}"


def curve_error_pp(replay: Replay) -> float:
    """RMSE of the logged accuracy curve against the official one, in percentage points
    (after checking both log the same rounds)."""
    official, records = replay
    curve = run_curve(official.seed, ((r.round, r.metrics) for r in records))
    assert curve.rounds == official.curve.rounds
    return 100 * rmse(curve, (list(official.curve.rounds), list(official.curve.acc)))
