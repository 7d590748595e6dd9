"""FedScale's files: parsed into speeds and sessions, run client k following the
(k mod M)-th client by id, read by a restricted unpickler; the shipped sample."""

from __future__ import annotations

import math
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from torch.testing import assert_close

from tests.engine.system import files
from worker.engine import ConfigError, build_config
from worker.engine.components import current
from worker.engine.registry import selected
from worker.engine.system.base import SystemContext
from worker.engine.system.fedscale import SAMPLE, SAMPLE_FILES, FedScale, FedScaleParams
from worker.engine.system.sample import synthetic
from worker.engine.system.sessions import Sessions
from worker.engine.system.unpickle import MAX_VALUES, expanded_size, load_data_pickle


def model(folder: Path, n: int, **params: Any) -> FedScale:
    return FedScale(FedScaleParams(**params), SystemContext(n=n, seed=0, root=str(folder)))


def test_run_clients_follow_the_files_in_id_order(tmp_path: Path) -> None:
    # ids out of order in the dict: 30, 10, 20 → run clients 0, 1, 2, 3 follow 10, 20, 30, 10
    device_file = files.devices(tmp_path, {30: (300.0, 8.0), 10: (100.0, 16.0), 20: (200.0, 24.0)})
    trace_file = files.trace(tmp_path, {2: [(0.0, 10.0)], 1: [(5.0, 8.0)]}, period=100.0)

    m = model(tmp_path, 4, device_file=device_file, trace_file=trace_file)

    # 3 × ms / 1000 s per sample; kbit/s × 1000 / 8 bytes per second
    assert_close(m.s_per_sample, torch.tensor([0.3, 0.6, 0.9, 0.3], dtype=torch.float64))
    assert_close(m.down_bps, torch.tensor([2000.0, 3000.0, 1000.0, 2000.0], dtype=torch.float64))
    assert_close(m.up_bps, m.down_bps)
    assert m.sessions is not None
    # trace clients 1, 2 in id order: run clients 0, 2 follow 1 (5–8 s), 1 and 3 follow 2
    assert m.sessions.online(6.0).tolist() == [True, True, True, True]
    assert m.sessions.online(9.0).tolist() == [False, True, False, True]
    assert_close(m.sessions.pi, torch.tensor([0.03, 0.1, 0.03, 0.1], dtype=torch.float64))


def test_without_trace_availability_no_sessions(tmp_path: Path) -> None:
    device_file = files.devices(tmp_path, {1: (10.0, 8.0)})

    m = model(
        tmp_path, 2, device_file=device_file, trace_file="absent.pkl", trace_availability=False
    )

    assert m.sessions is None


def test_sessions_by_hand() -> None:
    # trace client 0: 10–20 and 15–30 (merged: 10–30), period 100; client 1: 50–60, period 80
    s = Sessions(
        client=np.array([0, 0, 1]),
        start=np.array([10.0, 15.0, 50.0]),
        end=np.array([20.0, 30.0, 60.0]),
        period=np.array([100.0, 80.0]),
        owner=np.array([0, 1, 0]),
    )

    assert s.online(5.0).tolist() == [False, False, False]
    assert s.online(110.0).tolist() == [True, False, True]  # 110 mod 100 = 10
    assert s.online(135.0).tolist() == [False, True, False]  # 135 mod 80 = 55
    assert s.session_end(np.array([0, 2]), 112.0).tolist() == [130.0, 130.0]
    assert s.session_end(np.array([1]), 135.0).tolist() == [140.0]
    everyone = torch.ones(3, dtype=torch.bool)
    assert s.next_online(0.0, everyone) == 10.0
    assert s.next_online(31.0, everyone) == 50.0  # client 1's session
    assert s.next_online(31.0, torch.tensor([True, False, True])) == 110.0  # the next period
    assert s.next_online(61.0, torch.tensor([False, True, False])) == 130.0  # 80 + 50
    assert_close(s.pi, torch.tensor([0.2, 0.125, 0.2], dtype=torch.float64))


def test_a_client_with_no_session_is_never_online() -> None:
    s = Sessions(
        np.array([0]), np.array([1.0]), np.array([2.0]), np.array([10.0, 10.0]), np.array([1, 0])
    )

    assert s.online(1.5).tolist() == [False, True]
    assert s.next_online(5.0, torch.tensor([True, False])) == math.inf


class Payload:
    """Unpickling this would run `exec`, which writes the marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (exec, (f"open({str(self.marker)!r}, 'w').write('ran')",))


def test_a_pickle_that_would_run_code_is_refused_and_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    path = tmp_path / "evil.pkl"
    path.write_bytes(pickle.dumps({1: {"computation": Payload(marker)}}))
    assert not marker.exists()

    with pytest.raises(ConfigError) as err:
        load_data_pickle(path, "system.fedscale.device_file", "file 'evil.pkl'")

    assert str(err.value).startswith(
        "system.fedscale.device_file: file 'evil.pkl': holds builtins.exec"
    )
    assert not marker.exists()
    pickle.loads(path.read_bytes())  # the plain unpickler would have run it
    assert marker.read_text() == "ran"


@pytest.mark.parametrize(
    ("value", "named"),
    [
        ({1: (1.0, 2.0)}, "a tuple"),
        ({1: {"x": None}}, "a NoneType"),
        ({1: {"x": True}}, "a bool"),
        ([b"bytes"], "a bytes"),
        ({1: np.float64(1.0)}, "holds numpy"),
    ],
)
def test_only_dicts_lists_numbers_and_strings_are_admitted(
    tmp_path: Path, value: Any, named: str
) -> None:
    path = tmp_path / "data.pkl"
    path.write_bytes(pickle.dumps(value))

    with pytest.raises(ConfigError, match=named):
        load_data_pickle(path, "system.fedscale.trace_file", "data.pkl")


def test_shared_containers_are_sized_as_copied_and_visited_once(tmp_path: Path) -> None:
    shared = [1.0, 2.0]  # 3 values: the list and its items
    assert expanded_size([shared, shared, shared]) == 1 + 3 * 3
    assert expanded_size({"a": shared, "b": shared}) == 1 + 2 + 2 * 3  # keys count too
    assert expanded_size(7.0) == 1
    looped: list[Any] = [1.0]
    looped.append(looped)
    assert expanded_size(looped) is None
    nested: list[Any] = [1.0]
    for _ in range(200):  # 2^200 paths through a pickle of a few kilobytes
        nested = [nested, nested]
    path = tmp_path / "deep.pkl"
    path.write_bytes(pickle.dumps({1: nested}))

    # Before: read as it is (and a reader that copied it never ended).
    with pytest.raises(ConfigError) as err:
        load_data_pickle(path, "f", "deep.pkl")

    # s_0 = 2 and s_k = 1 + 2 s_(k-1): s_200 = 3·2^200 − 1, and the dict and its key
    assert str(err.value) == (
        f"f: deep.pkl: holds {3 * 2**200 + 1} values once the lists and dicts it shares "
        f"are copied, more than the {MAX_VALUES} a data file may hold"
    )


def test_a_file_at_the_limit_is_read(tmp_path: Path) -> None:
    path = tmp_path / "full.pkl"
    path.write_bytes(pickle.dumps([0] * (MAX_VALUES - 1)))
    assert len(load_data_pickle(path, "f", "full.pkl")) == MAX_VALUES - 1
    path.write_bytes(pickle.dumps([0] * MAX_VALUES))
    with pytest.raises(ConfigError, match=f"holds {MAX_VALUES + 1} values"):
        load_data_pickle(path, "f", "full.pkl")


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ([1, 2], "expected a non-empty dict of clients"),
        ({}, "expected a non-empty dict of clients"),
        ({1: {"computation": 5.0}}, "client 1 has no number 'communication'"),
        ({1: {"computation": 0.0, "communication": 5.0}}, "client 1 has computation 0, outside"),
        ({1: {"computation": 1.0, "communication": 5.0}, "a": {}}, "all integers or all strings"),
        ({1: 5.0}, "client 1 is not a dict"),
        # Before: a 500 (OverflowError), and runs at chance accuracy with a NaN warning.
        ({1: {"computation": 2**100000, "communication": 5.0}}, "an integer of 100001 bits"),
        ({1: {"computation": math.inf, "communication": 5.0}}, "computation inf, outside"),
        ({1: {"computation": 1.0, "communication": 5e-324}}, "communication 4.94066e-324,"),
        ({1: {"computation": 1.0, "communication": math.nan}}, "communication nan, outside"),
    ],
)
def test_malformed_device_files_name_the_problem(tmp_path: Path, table: Any, problem: str) -> None:
    files.write(tmp_path, "bad.pkl", table)

    with pytest.raises(
        ConfigError, match=f"system.fedscale.device_file: file 'bad.pkl': .*{problem}"
    ):
        model(tmp_path, 2, device_file="bad.pkl")


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ({"active": [1.0], "inactive": [2.0, 3.0], "finish_time": 9.0}, "1 'active' times"),
        ({"active": [5.0], "inactive": [2.0], "finish_time": 9.0}, "ends before it starts"),
        ({"active": [1.0], "inactive": [2.0]}, "no number 'finish_time'"),
        ({"active": [], "inactive": [], "finish_time": 9.0}, "no client has a session"),
        ({"active": "1", "inactive": [2.0], "finish_time": 9.0}, "needs lists"),
        ({"active": [1.0], "inactive": [2.0], "finish_time": 5e-324}, "finish_time 4.94066e-324"),
        ({"active": [1.0], "inactive": [2.0], "finish_time": math.inf}, "finish_time inf, out"),
        ({"active": [1.0], "inactive": [2**100000], "finish_time": 9.0}, "of 100001 bits"),
        ({"active": [-1.0], "inactive": [2.0], "finish_time": 9.0}, "'active' time of -1,"),
        ({"active": [1.0], "inactive": [math.inf], "finish_time": 9.0}, "'inactive' time of inf"),
    ],
)
def test_malformed_traces_name_the_problem(tmp_path: Path, entry: Any, problem: str) -> None:
    files.write(tmp_path, "trace.pkl", {7: entry})

    with pytest.raises(
        ConfigError, match=f"system.fedscale.trace_file: file 'trace.pkl': .*{problem}"
    ):
        model(tmp_path, 2, trace_file="trace.pkl")


def test_a_compute_factor_that_takes_a_sample_past_the_clock_is_refused(
    tmp_path: Path,
) -> None:
    device_file = files.devices(tmp_path, {1: (100.0, 8.0), 2: (200.0, 8.0)})

    # Before: 1e308 × 200 ms overflowed to an infinite time, and the run went on.
    with pytest.raises(ConfigError) as err:
        model(tmp_path, 2, device_file=device_file, compute_factor=1e308)

    assert str(err.value) == (
        "system.fedscale.compute_factor: 1e+308 times the slowest computation of its device "
        "file (200 ms) takes a sample past 1e+12 s"
    )
    assert (
        model(tmp_path, 2, device_file=device_file, compute_factor=5e12).s_per_sample.max() == 1e12
    )


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("/etc/passwd", "must be a path inside the data folder"),
        ("../x.pkl", "must be a path inside the data folder"),
        ("missing.pkl", "no file 'missing.pkl'"),
    ],
)
def test_files_come_from_the_data_folder(tmp_path: Path, name: str, problem: str) -> None:
    with pytest.raises(ConfigError, match=f"system.fedscale.device_file: .*{problem}"):
        model(tmp_path, 2, device_file=name)


def test_the_shipped_sample_is_what_its_generator_writes() -> None:
    devices, trace = synthetic()

    assert pickle.loads((SAMPLE / SAMPLE_FILES["device_file"]).read_bytes()) == devices
    assert pickle.loads((SAMPLE / SAMPLE_FILES["trace_file"]).read_bytes()) == trace


def test_the_sample_runs_by_default() -> None:
    config = build_config({"rounds": 1}, ["system.kind=fedscale"])

    _, params = selected(config.system, current().systems)
    m = FedScale(params, SystemContext(24, 0, "."))

    assert m.sessions is not None and float(m.sessions.pi.mean()) > 0.2
