"""Datasets kept in memory across runs: a run's start-up in the service, with and without.

Writes CIFAR-10-format files under a temporary data root and primes the data root's
cache as `bench/startup.py` does, then starts `fedwatch serve` (embedded, SQLite) twice
per repeat: with `FEDWATCH_KEEP_DATASETS_MB=0` (every run reads the cache and
normalises) and with the default budget (the first run reads and keeps, later runs
map what it kept). Each server executes `fedlaavg-cifar10` with one round `--runs`
times, one after another, and the bench reads each run's `startup_s` (its process's age
at the first round: the data, the partition, the model) from the API. A server's first
run is slower with or without keeping, so first and later runs are shown apart.

    python bench/kept_pools.py [--repeats 3] [--runs 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: bench, tests

from bench.startup import prime_cache, spread, write_cifar
from db.settings import Settings
from tests.frontend.conftest import serve
from worker.presets import get_preset


def startups(tmp: Path, root: Path, runs: int, keep_mb: str) -> list[float]:
    """`startup_s` of `runs` one-round CIFAR-10 runs executed one after another."""
    config = get_preset("fedlaavg-cifar10").run_config(["rounds=1"]).model_dump(mode="json")
    env = {"FEDWATCH_DATA_ROOT": str(root), "FEDWATCH_KEEP_DATASETS_MB": keep_mb}
    out = []
    with serve(tmp, **env) as url, httpx.Client(base_url=url, timeout=30) as client:
        for _ in range(runs):
            created = client.post("/api/runs", json={"config": config})
            created.raise_for_status()
            run_id = created.json()["id"]
            while (run := client.get(f"/api/runs/{run_id}").json())["active"]:
                time.sleep(0.1)
            if run["status"] != "succeeded":
                sys.exit(f"run {run_id} failed: {run['error']}")
            out.append(float(run["summary"]["startup_s"]))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--runs", type=int, default=3, help="runs per server, one at a time")
    args = parser.parse_args()
    default = str(Settings.model_fields["keep_datasets_mb"].default)
    first: dict[str, list[float]] = {"0": [], default: []}
    later: dict[str, list[float]] = {"0": [], default: []}
    with tempfile.TemporaryDirectory(prefix="kept-bench-") as name:
        tmp = Path(name)
        root = tmp / "data"
        write_cifar(root)
        print(f"CIFAR-10-format files written; first parse {prime_cache(root):.2f} s")
        for repeat in range(args.repeats):
            for keep_mb in first:
                folder = tmp / f"serve-{repeat}-{keep_mb}"
                folder.mkdir()
                got = startups(folder, root, args.runs, keep_mb)
                first[keep_mb].append(got[0])
                later[keep_mb] += got[1:]
                print(f"repeat {repeat}, FEDWATCH_KEEP_DATASETS_MB={keep_mb}: {got}", flush=True)
    print(f"\n{'CIFAR-10 run in the service':>44} {'startup_s, median (range)':>28}")
    for keep_mb, label in (("0", "not kept"), (default, "kept")):
        print(f"{label + ': a server’s first run':>44} {spread(first[keep_mb]):>28}")
        if later[keep_mb]:
            print(f"{label + ': its later runs':>44} {spread(later[keep_mb]):>28}")


if __name__ == "__main__":
    main()
