"""`bench/summed.py` end to end on W2, in seconds: both ways run in their own processes
and the summary line gives the ratios."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_bench_prints_both_ways_and_their_ratios() -> None:
    out = subprocess.run(
        [sys.executable, "bench/summed.py", "--settings", "W2", "--repeats", "1", "--rounds", "2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    ).stdout

    assert re.search(r"W2 repeat 1 summed: +[\d.]+ ms/round, training peak \+ *-?[\d.]+ MB", out)
    assert re.search(r"W2 repeat 1 deltas: +[\d.]+ ms/round", out)
    assert re.search(r"deltas ÷ summed: time [\d.]+×, memory [\d.]+×", out)


def test_an_unknown_setting_is_refused_by_name() -> None:
    done = subprocess.run(
        [sys.executable, "bench/summed.py", "--settings", "W9"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.returncode == 2 and "unknown ['W9']" in done.stderr
