"""Work terms: floating-point operations of local training, the server and evaluation."""

from __future__ import annotations

from worker.engine.resources.sizes import RunSizes, driver
from worker.engine.resources.terms import Term

# A local step's fixed cost beside its arithmetic: dispatching the forward, the backward
# and the update of a step took 0.2-1 ms on the 2-core CPU (Example 1's one-parameter
# model, where it is all the cost). Counted from below, as the operations that the
# default limit's rate, 40 GFLOP/s, does in 50 µs.
STEP_FLOP = 2e6


def work_terms(run: RunSizes) -> tuple[Term, ...]:
    """Per local step, the model's operations on the batch and about 6 per parameter for
    the update; the vmap backend runs every client as many steps as the one with the
    most data. Each step also costs `STEP_FLOP` (once for all the clients on the vmap
    backend, once per client on the sequential one). The server: products of the
    weights with the round's rows and passes over the memories."""
    c, fp, p = run.config, run.footprint, run.profile
    rounds, k, n, d = c.rounds, run.k, run.n, run.d
    samples = k * run.steps * run.batch
    train = rounds * (samples * p.train_flops + k * run.steps * 6 * d)
    server = rounds * 2 * d * (fp.memory_passes * n + (fp.round_rows + 1) * k)
    if fp.pairwise:
        server += rounds * 20 * n * n  # every exclusion tried re-weighs all N clients
    evaluation = run.evaluations * run.n_test * p.forward_flops
    if fp.pairwise:
        evaluation += rounds * n * run.batch * p.forward_flops  # clients' loss probes
    sequential = run.backend == "sequential"  # a step per client, not one for all
    per_step = k if sequential else 1
    dispatched = ("rounds", "client.local_steps", *((run.k_field,) if sequential else ()))
    sizes = ("rounds", run.k_field, "client.local_steps", "client.batch_size", *run.d_fields)
    return (
        Term(
            driver(c, *sizes),
            f"local training: {rounds} rounds × K = {k} × {run.steps} steps × {run.batch}",
            train,
        ),
        Term(
            driver(c, *dispatched),
            f"fixed cost of {rounds * run.steps * per_step} local steps",
            rounds * run.steps * per_step * STEP_FLOP,
        ),
        Term(driver(c, "data.n_clients", "rounds"), "server aggregation", server),
        Term(driver(c, "rounds", *run.d_fields), f"{run.evaluations} evaluations", evaluation),
    )
