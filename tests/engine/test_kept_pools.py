"""Datasets kept in memory across runs: loaded once, then mapped (shared, read-only);
the least recently used go first past the budget; runs loading the same pool at once
wait for the first; folders whose owner died are removed."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from tests.engine.test_data import write_tiny_mnist
from tests.eventually import eventually
from worker.engine import section_class
from worker.engine.components import current
from worker.engine.data import kept_pools, load_data
from worker.engine.data.federated import Pool
from worker.engine.data.kept_pools import PREFIX, KeptPools, keep_pools_in, kept_pool, pool_key
from worker.engine.sections import DataSection

DataConfig = section_class(current(), DataSection)


def pool(n: int, value: float = 1.0) -> Pool:
    """n float32 images of one value and n int64 labels, 1 test sample: 12n + 12 bytes."""
    x = torch.full((n,), value, dtype=torch.float32)
    return x, torch.arange(n), torch.zeros(1), torch.zeros(1, dtype=torch.long)


@pytest.fixture
def kept(tmp_path: Path) -> Iterator[KeptPools]:
    pools = KeptPools.create(tmp_path, budget=300)
    yield pools
    pools.close()


class Loads:
    """A loader that counts its calls."""

    def __init__(self, made: Pool) -> None:
        self.made, self.calls = made, 0

    def __call__(self) -> Pool:
        self.calls += 1
        return self.made


def mappings(path: Path) -> list[str]:
    """The permissions of this process's mappings of `path` ("r--s": read-only, shared)."""
    lines = Path("/proc/self/maps").read_text().splitlines()
    return [line.split()[1] for line in lines if line.endswith(str(path))]


def test_a_pool_is_loaded_once_then_mapped_from_the_kept_files(kept: KeptPools) -> None:
    load = Loads(pool(10, 2.5))

    first = kept.pool("a", load)
    second = kept.pool("a", load)

    assert load.calls == 1
    for got, want in zip((first, second), (load.made, load.made), strict=True):
        assert all(torch.equal(g, w) for g, w in zip(got, want, strict=True))
    assert set(mappings(kept.folder / "a" / "x.bin")) == {"r--s"}  # shared pages, not a copy


def test_the_least_recently_used_pools_go_first(kept: KeptPools) -> None:
    # each pool holds 12 * 10 + 12 = 132 bytes: the budget of 300 holds two
    for key in ("a", "b"):
        kept.pool(key, Loads(pool(10)))
    kept.pool("a", Loads(pool(10)))  # a is now more recent than b

    kept.pool("c", Loads(pool(10)))

    assert [e.name for e in kept.entries()] == ["a", "c"]
    again = Loads(pool(10))
    kept.pool("b", again)
    assert again.calls == 1  # b was dropped: loaded again, and a went in turn
    assert [e.name for e in kept.entries()] == ["c", "b"]


def test_a_pool_larger_than_the_budget_is_used_but_not_kept(kept: KeptPools) -> None:
    big = Loads(pool(30))  # 372 bytes > 300

    got = kept.pool("big", big)
    kept.pool("big", big)

    assert got is big.made and big.calls == 2
    assert kept.entries() == []


def load_and_report(kept: KeptPools, calls: Path, release: Path, out: Path) -> None:
    """In a process of its own: load pool "p" with a loader that records its call and
    waits for `release`; write the sum of what it got to `out`."""

    def load() -> Pool:
        (calls / str(os.getpid())).touch()
        eventually(release.exists, "the test releasing the load", every=0.01)
        return pool(5, 3.0)

    out.write_text(str(float(kept.pool("p", load)[0].sum())))


def test_runs_loading_the_same_pool_at_once_wait_for_the_first(
    kept: KeptPools, tmp_path: Path
) -> None:
    ctx = multiprocessing.get_context("fork")
    calls, release = tmp_path / "calls", tmp_path / "release"
    calls.mkdir()
    outs = [tmp_path / "first.out", tmp_path / "second.out"]
    first = ctx.Process(target=load_and_report, args=(kept, calls, release, outs[0]))
    first.start()
    eventually(lambda: len(list(calls.iterdir())) == 1, "the first load starting", every=0.01)
    second = ctx.Process(target=load_and_report, args=(kept, calls, release, outs[1]))
    second.start()

    def second_waits_or_loads() -> bool:
        locks = Path("/proc/locks").read_text().splitlines()  # "1: -> FLOCK ... WRITE <pid> ..."
        blocked = any("->" in line and f" {second.pid} " in line for line in locks)
        return blocked or len(list(calls.iterdir())) == 2

    eventually(
        second_waits_or_loads, "the second process waiting for the lock or loading", every=0.01
    )
    release.touch()
    for process in (first, second):
        process.join(60)
        assert process.exitcode == 0

    assert len(list(calls.iterdir())) == 1
    assert [out.read_text() for out in outs] == ["15.0", "15.0"]


def test_folders_whose_owner_is_gone_are_removed_at_the_next_start(tmp_path: Path) -> None:
    gone = multiprocessing.get_context("fork").Process(target=int)
    gone.start()
    gone.join()
    orphan = tmp_path / f"{PREFIX}{gone.pid}-x"
    live = tmp_path / f"{PREFIX}{os.getpid()}-y"
    for folder in (orphan, live):
        (folder / "a").mkdir(parents=True)

    pools = KeptPools.create(tmp_path, budget=1)

    assert not orphan.exists() and live.exists() and pools.folder.is_dir()
    pools.close()
    assert not pools.folder.exists()


def test_without_kept_pools_every_load_reads_again() -> None:
    load = Loads(pool(3))
    keep_pools_in(None)
    kept_pool("a", load)
    kept_pool("a", load)
    assert load.calls == 2


@pytest.fixture
def keeping(kept: KeptPools) -> Iterator[KeptPools]:
    kept = KeptPools(kept.folder, budget=1 << 20)
    keep_pools_in(kept)
    yield kept
    keep_pools_in(None)


def test_a_dataset_read_from_its_root_is_kept_until_a_source_file_changes(
    keeping: KeptPools, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "mnist"
    write_tiny_mnist(root, n_train=40, n_test=12)
    cfg = DataConfig(dataset="mnist", root=str(root), n_clients=4, partition="iid")
    first = load_data(cfg, seed=0)
    (entry,) = keeping.entries()
    assert entry.name.startswith("mnist-")
    assert (entry / "x.bin").stat().st_size == 40 * 28 * 28  # the images' bytes

    parse = Loads(pool(1))
    with monkeypatch.context() as patched:
        patched.setattr("worker.engine.data.vision._parse", parse)
        second = load_data(cfg, seed=0)
    assert parse.calls == 0
    assert torch.equal(first.x_train, second.x_train)

    labels = root / "MNIST" / "raw" / "train-labels-idx1-ubyte"
    os.utime(labels, ns=(1, 1))
    load_data(cfg, seed=0)
    assert len(keeping.entries()) == 2  # read again, under a new key


def test_a_pool_s_key_names_the_format_of_what_it_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = pool_key("mnist", tmp_path, [["train-images-idx3-ubyte", 16, 1]])
    monkeypatch.setattr(kept_pools, "FORMAT", kept_pools.FORMAT + 1)

    again = pool_key("mnist", tmp_path, [["train-images-idx3-ubyte", 16, 1]])

    assert key.startswith("mnist-") and again.startswith("mnist-") and again != key
