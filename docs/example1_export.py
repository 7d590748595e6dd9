"""The manual's Example 1 exports (docs/results.md): the README's steps 2 and 3 done
against a real `fedwatch serve` (embedded, SQLite in a scratch directory), then the
comparison of every `example1` run exported as the README's snippet and the compare
page's buttons export it: the LaTeX table and the figure (PDF, and PNG for the manual).

1. Step 2: Example 1 with FedAvg, seed 0 (one run).
2. Step 3: the sweep of `algorithm.name` over fedavg and fedlaavg, seeds 0, 1, 2.
3. `fw.compare(list(fw.runs(query="example1").id))`, and the same runs' table
   (`format=tex`) and figure (`/api/compare/figure.pdf`, x: the dataset's parameter).

    python docs/example1_export.py [--out docs/figures]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import httpx

from fedwatch.client import FedWatch
from tests.api.helpers import example1
from tests.frontend.conftest import serve

OUT = Path(__file__).resolve().parent / "figures"


def wait_final(api: httpx.Client, ids: list[int], timeout: float = 900) -> None:
    deadline = time.monotonic() + timeout
    while True:
        runs = [api.get(f"/api/runs/{i}").json() for i in ids]
        if all(r["status"] == "succeeded" for r in runs):
            return
        failed = [r for r in runs if not r["active"] and r["status"] != "succeeded"]
        assert not failed and time.monotonic() < deadline, failed
        time.sleep(1)


def export(out: Path) -> None:
    """README steps 2 and 3 against a fresh server, then the comparison's LaTeX table and
    figure (PDF, PNG) into `out`; the SDK's table printed."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder, serve(Path(folder)) as url:
        api = httpx.Client(base_url=url, timeout=60)
        single = api.post("/api/runs", json={"config": example1(4000, algorithm__name="fedavg")})
        base = example1(4000)
        sweep = {
            "name": "example1",
            "base": base,
            "grid": {"algorithm.name": ["fedavg", "fedlaavg"]},
            "seeds": [0, 1, 2],
        }
        experiment = api.post("/api/experiments", json=sweep).raise_for_status().json()
        ids = [single.raise_for_status().json()["id"], *experiment["run_ids"]]
        wait_final(api, ids)
        fw = FedWatch(url, spool_dir=Path(folder) / "spool")
        runs = fw.runs(query="example1")
        table = fw.compare(list(runs.id))
        print(table.to_string())
        print({k: v for k, v in table.attrs.items()})
        query = {"runs": ",".join(map(str, runs.id)), "metric": "param"}
        tex = api.get("/api/compare", params={**query, "format": "tex"}).raise_for_status()
        (out / "example1-table.tex").write_text(tex.text)
        print(tex.text)
        for fmt in ("pdf", "png"):
            figure = api.get(f"/api/compare/figure.{fmt}", params={**query, "band": "ci"})
            (out / f"example1-curves.{fmt}").write_bytes(figure.raise_for_status().content)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    export(parser.parse_args().out)


if __name__ == "__main__":
    main()
