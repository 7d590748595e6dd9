"""FedWatch's faithful CA-Fed preset against the authors' own runs (bundled reference
runs, `worker/reproduction/data/cafed-synthetic.json`): on the same data (data seed 42),
from the same run seeds, with the availability each official run drew replayed round by
round (a trace of its `active` sets, π and λ from the generator's population, as the
official oracle estimator reads them).

- Unbiased, AdaFed and F3AST choose and weigh clients from availability alone: every
  round's entered clients and weights must be the official ones.
- The logged accuracy curves (28 points, the initial model's included) must lie within
  an RMSE of 0.5 pp of the official ones (2.5 pp for CA-Fed, whose exclusions follow
  the losses, so that small numeric differences can flip one).
"""

from __future__ import annotations

from functools import cache

import pytest

from worker.engine import ListSink, simulate
from worker.engine.presets import get_preset
from worker.engine.records import RoundRecord
from worker.reproduction.figures import rmse, run_curve
from worker.reproduction.references import ReferenceRun, reference

PRESET = get_preset("cafed-synthetic")
BOUND_PP = {"unbiased": 0.5, "adafed": 0.5, "f3ast": 0.5, "cafed": 2.5}
DETERMINISTIC = ("unbiased", "adafed", "f3ast")


@cache
def replayed(algorithm: str, seed: int) -> tuple[ReferenceRun, tuple[RoundRecord, ...]]:
    ref = reference(PRESET.name)
    assert ref is not None
    (official,) = [r for r in ref.runs[algorithm] if r.seed == seed]
    method = next(m for m in PRESET.compare if m.algorithm == algorithm)
    config = PRESET.run_config(
        [
            *method.as_overrides(),
            f"seed={seed}",
            "device=cpu",
            *official.replay(24),
        ]
    )
    sink = ListSink()
    simulate(config, sink)
    return official, tuple(sink.records)


CASES = [(m.algorithm, s) for m in PRESET.compare for s in PRESET.seeds]


@pytest.mark.parametrize(("algorithm", "seed"), CASES)
def test_the_replayed_availability_is_the_official_one(algorithm: str, seed: int) -> None:
    official, records = replayed(algorithm, seed)

    for record, theirs in zip(records, official.rounds, strict=True):
        assert record.available.tolist() == theirs["active"]


@pytest.mark.parametrize("algorithm", DETERMINISTIC)
@pytest.mark.parametrize("seed", PRESET.seeds)
def test_entered_clients_and_weights_are_the_official_ones(algorithm: str, seed: int) -> None:
    official, records = replayed(algorithm, seed)

    for t, (record, theirs) in enumerate(zip(records, official.rounds, strict=True)):
        assert record.weights.ids.tolist() == sorted(theirs["sampled"]), f"round {t}"
        ours = dict(zip(record.weights.ids.tolist(), record.weights.values.tolist(), strict=True))
        expected = dict(zip(theirs["sampled"], theirs["weights"], strict=True))
        for k, w in expected.items():
            assert ours[k] == pytest.approx(w, rel=1e-6), f"round {t}, client {k}"


@pytest.mark.parametrize(("algorithm", "seed"), CASES)
def test_the_accuracy_curve_follows_the_official_one(algorithm: str, seed: int) -> None:
    official, records = replayed(algorithm, seed)

    curve = run_curve(seed, ((r.round, r.metrics) for r in records))

    assert curve.rounds == official.curve.rounds
    error_pp = 100 * rmse(curve, (list(official.curve.rounds), list(official.curve.acc)))
    assert error_pp <= BOUND_PP[algorithm], f"RMSE {error_pp:.2f} pp"
