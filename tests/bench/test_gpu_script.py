"""`bench/gpu.sh`, the GPU path's one-go script, checked on the CPU at tiny sizes."""

import os
import re
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from bench.peers import WORKLOADS
from worker.engine.components import current

ROOT = Path(__file__).resolve().parents[2]


def test_dry_run_shrinks_a_workload_and_keeps_its_setting() -> None:
    w = replace(WORKLOADS["W1-100"], rounds=5)

    tiny = w.tiny()

    assert (tiny.n_clients, tiny.per_client, tiny.k, tiny.rounds) == (10, 4, 5, 1)
    assert (tiny.model, tiny.steps, tiny.batch, tiny.lr) == ("cnn", 5, 32, 0.01)
    assert WORKLOADS["W2"].tiny().k == 5 and replace(w, k=3).tiny().k == 3


@pytest.mark.slow
def test_cpu_dry_run_prints_every_part_in_one_table() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}

    done = subprocess.run(
        [str(ROOT / "bench" / "gpu.sh"), "--device", "cpu", "--dry-run"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=540,
    )

    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    table = done.stdout.split("\npart ", 1)[1]
    for name in current().algorithms.names():
        assert re.search(rf"^algorithm\s+{name}\s+3/3 rounds same selection.*\bok$", table, re.M)
    for workload in ("W1-100", "W2"):
        assert re.search(rf"^peers\s+{workload} FedWatch\s+[\d.]+ ms/round", table, re.M)
    assert re.search(
        r"^fedlaavg-cifar\s+N 20, K 5, cnn, 3 rounds on cpu\s+[\d.]+ rounds/s", table, re.M
    )
    assert re.search(
        r"^population\s+N 1,000, FedLaAvg, K 100 on cpu\s+[\d.]+ ms/round", table, re.M
    )
