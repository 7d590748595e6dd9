from __future__ import annotations

import numpy as np
import pytest

from db.packing import (
    pack_acc,
    pack_available,
    pack_available_many,
    pack_facts,
    pack_gaps,
    pack_gaps_many,
    pack_ids,
    pack_ids_many,
    pack_weights,
    unpack_acc,
    unpack_available,
    unpack_facts,
    unpack_gaps,
    unpack_ids,
    unpack_weights,
)
from worker.engine import ClientWeights


def pack(weights: dict[int, float], n_clients: int) -> bytes:
    w = ClientWeights.from_dict(weights)
    return pack_weights(w.ids, w.values, n_clients)


def test_availability_bitmap_takes_one_bit_per_client() -> None:
    blob = pack_available([0, 3, 9], 10)
    assert len(blob) == 2
    assert unpack_available([blob], 10).tolist() == [[1, 0, 0, 1, 0, 0, 0, 0, 0, 1]]


@pytest.mark.parametrize("n_clients", [10, 70_000])
def test_many_rounds_pack_as_each_alone(n_clients: int) -> None:
    lists = [[0, 3, 9], [], [n_clients - 1], [1, 2, 5, 7]]
    rounds = [np.array(r, dtype=np.int64) for r in lists]

    assert pack_available_many(rounds, n_clients) == [pack_available(r, n_clients) for r in lists]
    assert pack_ids_many(rounds, n_clients) == [pack_ids(r, n_clients) for r in lists]
    assert pack_available_many([], n_clients) == pack_ids_many([], n_clients) == []


@pytest.mark.parametrize(("n_clients", "itemsize"), [(1000, 2), (70_000, 4)])
def test_ids_use_two_bytes_until_65536_clients(n_clients: int, itemsize: int) -> None:
    blob = pack_ids([0, 5, n_clients - 1], n_clients)
    assert len(blob) == 3 * itemsize
    assert unpack_ids(blob, n_clients).tolist() == [0, 5, n_clients - 1]


def test_gaps_take_two_bytes_unless_one_reaches_65536() -> None:
    narrow = pack_gaps(np.array([1, 65_535]))
    wide = pack_gaps(np.array([3, 65_536]))
    empty = pack_gaps(np.array([], dtype=np.int64))
    assert (len(narrow), len(wide), len(empty)) == (4, 8, 0)
    # Rounds with 2, 0, 2 and 1 selected ids, the second non-empty one wide.
    rows = [narrow, empty, wide, pack_gaps(np.array([7]))]
    got = unpack_gaps(rows, np.array([2, 0, 2, 1]))
    assert got.tolist() == [1, 65_535, 3, 65_536, 7]
    assert unpack_gaps([narrow, empty], np.array([2, 0])).tolist() == [1, 65_535]


def test_many_rounds_gaps_pack_as_each_alone() -> None:
    # A wide round between narrow ones, an empty round, and a wide last round.
    lists = [[1, 65_535], [], [3, 65_536], [7], [70_000]]
    flat = np.array([g for gaps in lists for g in gaps], dtype=np.int64)
    got = pack_gaps_many(flat, [len(gaps) for gaps in lists])
    assert got == [pack_gaps(np.array(gaps, dtype=np.int64)) for gaps in lists]
    assert [len(b) for b in got] == [4, 0, 8, 2, 4]
    assert pack_gaps_many(np.zeros(0, dtype=np.int64), []) == []


def test_weights_round_trip_in_float32() -> None:
    weights = {7: 0.25, 2: 0.5, 900: 0.125}
    assert unpack_weights(pack(weights, 1000), 1000) == weights


@pytest.mark.parametrize("weights", [{}, {4: 1.0}, {0: 0.5, 3: 0.25, 65_000: 0.125}])
def test_weights_round_trip_sorted_single_and_empty(weights: dict[int, float]) -> None:
    assert unpack_weights(pack(weights, 70_000), 70_000) == weights


def test_dense_equal_weights_compress_well() -> None:
    blob = pack({c: 1 / 1000 for c in range(1000)}, 1000)
    assert len(blob) < 400  # 6000 bytes raw


def test_client_accuracy_keeps_missing_as_none() -> None:
    blob = pack_acc([0.5, float("nan"), 1.0])
    assert blob is not None
    assert unpack_acc(blob) == [0.5, None, 1.0]
    assert pack_acc(None) is None
    np.testing.assert_equal(len(blob), 12)


# Round 0's facts as the first layout stored them (before privacy rates): the shares
# (0.25, 0.75), then with device times (1.5, 2.0).
OLD_FACTS = bytes.fromhex("7801636000810bf6608ae1853d000c760237")
OLD_TIMED_FACTS = bytes.fromhex("7801636000810bf6608ae10594fe01a5191c003c0d03ae")


def test_facts_stored_in_the_first_layout_unpack_as_before() -> None:
    plain = unpack_facts(OLD_FACTS, 2)
    timed = unpack_facts(OLD_TIMED_FACTS, 2)

    assert plain.data_share.tolist() == [0.25, 0.75]
    assert (plain.work_s, plain.privacy_rate) == (None, None)
    assert timed.data_share.tolist() == [0.25, 0.75]
    assert timed.work_s is not None and timed.work_s.tolist() == [1.5, 2.0]
    assert timed.privacy_rate is None
    # without rates the layout is the first one, byte for byte
    assert pack_facts(np.array([0.25, 0.75]), np.array([1.5, 2.0])) == OLD_TIMED_FACTS


@pytest.mark.parametrize("work_s", [None, np.array([1.5, 2.0, 0.5])])
def test_facts_with_privacy_rates_round_trip(work_s: np.ndarray | None) -> None:
    shares, rates = np.array([0.5, 0.25, 0.25]), np.array([0.1, 0.9, 0.5])

    blob = pack_facts(shares, work_s, rates)
    facts = unpack_facts(blob, 3)

    assert blob[:2] == bytes([1, 2 if work_s is None else 3])
    assert facts.data_share.tolist() == [0.5, 0.25, 0.25]
    assert facts.privacy_rate is not None and facts.privacy_rate.tolist() == [0.1, 0.9, 0.5]
    if work_s is None:
        assert facts.work_s is None
    else:
        assert facts.work_s is not None and facts.work_s.tolist() == [1.5, 2.0, 0.5]
