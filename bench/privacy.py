"""What privacy costs a run: the accountant's work per round, and a round with central DP
against the same round without.

1. `Accountant.observe` for N clients, K = 100 a round, per-client ε composed over each
   client's rounds (unamplified) or amplified at each client's rate (Bernoulli): the
   one-time RDP of its events, then the median µs per round over `--rounds` rounds.
2. The histogram of per-client ε (`GET /api/runs/{id}/privacy/clients`'s work past its
   one read of the selections) for `--clients` clients after `--histogram-rounds` rounds:
   amplified at distinct rates drawn from U[0.1, 1] (no RDP cached: a fresh server), and
   composed over counts of contributions drawn at K/N a round.
3. Rounds of FedAvg (synthetic_clustered, N = 100, K = 10, linear model) with
   `privacy.kind` none and central, advanced in turn so that a machine busy with other
   work slows both alike; the median seconds per round of each and their ratio.

Prints the 1-minute load average beside the figures: run it on a quiet machine and on a
busy one and read the ratios side by side.

    python bench/privacy.py [--rounds 200]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: bench
from worker.engine import build_config
from worker.engine.loop import Simulation
from worker.engine.privacy.accountant import Accountant, round_rdp
from worker.engine.privacy.client_epsilons import epsilon_histogram

K = 100


def accountant_us(n: int, amplified: bool, rounds: int) -> tuple[float, float]:
    """Seconds to build the accountant and take its first round; median µs a round after."""
    rng = np.random.default_rng(0)
    rates = rng.uniform(0.1, 1.0, n) if amplified else None
    started = time.perf_counter()
    acc = Accountant(1.0, 1e-5, n, K, rates)
    acc.observe(rng.choice(n, K, replace=False))
    first = time.perf_counter() - started
    times = []
    for _ in range(rounds):
        ids = rng.choice(n, K, replace=False)
        t0 = time.perf_counter()
        acc.observe(ids)
        times.append(time.perf_counter() - t0)
    return first, statistics.median(times) * 1e6


def histogram_seconds(n: int, rounds: int, amplified: bool) -> float:
    """Seconds for the histogram of n clients' ε after `rounds` rounds, no RDP cached."""
    rng = np.random.default_rng(0)
    rates = rng.uniform(0.1, 1.0, n) if amplified else None
    counts = rng.binomial(rounds, K / n, n)
    round_rdp.cache_clear()
    started = time.perf_counter()
    epsilon_histogram(1.0, 1e-5, rounds, rates, counts)
    return time.perf_counter() - started


def round_seconds(rounds: int) -> tuple[float, float]:
    """Median seconds a round without and with central DP, the two advanced in turn."""
    base = ["algorithm.weights=uniform", "device=cpu", f"rounds={rounds + 1}", "eval.every=1000000"]
    plain = Simulation(build_config({}, base))
    private = Simulation(build_config({}, [*base, "privacy.kind=central"]))
    plain.round(0), private.round(0)  # the first round of each (the RDP of its events) dropped
    spent: dict[int, list[float]] = {0: [], 1: []}
    for t in range(1, rounds + 1):
        for which, sim in sorted(enumerate((plain, private)), key=lambda p: (p[0] + t) % 2):
            t0 = time.perf_counter()
            sim.round(t)
            spent[which].append(time.perf_counter() - t0)
    return statistics.median(spent[0]), statistics.median(spent[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--clients", type=int, default=100_000)
    parser.add_argument("--histogram-rounds", type=int, default=10_000)
    args = parser.parse_args()
    print(f"load average (1 min): {os.getloadavg()[0]:.1f}")
    print(f"accountant, K = {K}: clients  kind         first round (s)  µs/round")
    for n in (1_000, 100_000, 1_000_000):
        for amplified in (False, True):
            first, us = accountant_us(n, amplified, args.rounds)
            kind = "amplified" if amplified else "unamplified"
            print(f"{n:>31,}  {kind:<11}  {first:>15.2f}  {us:>8.0f}")
    n, rounds = args.clients, args.histogram_rounds
    for amplified in (False, True):
        kind = "amplified, distinct rates" if amplified else "composed over counts"
        seconds = histogram_seconds(n, rounds, amplified)
        print(f"ε histogram, N = {n:,}, {rounds:,} rounds, {kind}: {seconds:.2f} s")
    none_s, central_s = round_seconds(args.rounds)
    print(
        f"round, N = 100, K = 10: none {none_s * 1e3:.2f} ms, central {central_s * 1e3:.2f} ms, "
        f"ratio {central_s / none_s:.2f}"
    )


if __name__ == "__main__":
    main()
