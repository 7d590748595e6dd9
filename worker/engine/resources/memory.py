"""Memory terms: the data, the model and the algorithm's memories, local training,
evaluation, and what the run keeps on the side (records, checkpoints, modules)."""

from __future__ import annotations

import functools
import math

from worker.engine.algorithms.asynchronous import AsyncParams
from worker.engine.availability.trace import FIELD as TRACE_FIELD
from worker.engine.availability.trace import interval_count, parse_trace
from worker.engine.config import RunConfig, dataset_facts
from worker.engine.privacy.mechanism import PRIVATISED_ROWS
from worker.engine.registry import selected
from worker.engine.resources.sizes import RunSizes, driver, file_sizes, generated_rows
from worker.engine.resources.terms import Term
from worker.engine.summed_training import trains_into_sum
from worker.engine.training.evaluate import PACK_BYTES, evaluation_rows
from worker.engine.training.stacked import clients_at_once

FLOAT, LONG = 4, 8
# Measured in fresh processes (bench/estimate.py): what a run adds besides its tensors
# (autograd and kernel state, allocator slack), and the modules it loads on first use:
# torch.func's for models vmap cannot stack, scikit-learn for digits, torchvision's
# datasets for the other images (with torch 2.14, scikit-learn 1.9 and torchvision 0.29,
# after the engine's imports: torch.func's 165 MiB, load_digits 145 MiB, torchvision's
# datasets 162 MiB, sympy and triton among them).
RUNTIME_BYTES = 64 << 20
MODULE_BYTES = {"torch.func": 176 << 20, "scikit-learn": 160 << 20, "torchvision": 176 << 20}
CLIENT_BYTES = 512  # per client: availability, tracker and estimator vectors (float64)
RECORD_BYTES = 4096  # a round's record besides its per-client arrays
EVALUATION_BYTES = 128  # an evaluation kept for the run's summary
INTERVAL_BYTES = 128  # a trace interval while π is counted (intervals.py's int64 arrays)


def memory_terms(run: RunSizes, held_rounds: int, held_states: int) -> tuple[Term, ...]:
    return (
        *_data(run),
        *_model(run),
        *_training(run),
        *_evaluation(run),
        *_bookkeeping(run, held_rounds, held_states),
        *_modules(run),
    )


def _data(run: RunSizes) -> list[Term]:
    c, data, facts = run.config, run.config.data, dataset_facts(run.config)
    f = run.features
    samples = run.n_train + run.n_test
    if facts.train is not None and facts.test is not None:
        field = driver(c, "data.dataset")
        # decoded bytes and two float copies per split; then the pool and its
        # per-client copy; and the partition's index arrays. Held: each sample's values
        # as its dataset holds them (`DatasetFacts.value_bytes`) and its label
        files = file_sizes(c)
        if files is not None:  # the dataset's own reader's cost, from its files
            loading = files.reading_bytes + 16 * facts.train
        else:
            loading = f * max(10 * facts.train, 4 * facts.train + 10 * facts.test)
            loading = max(loading, 4 * f * (facts.train + facts.test)) + 16 * facts.train
        held = samples * (f * facts.value_bytes + LONG)
        what = f"{run.n_train} + {run.n_test} samples of {f} values"
    else:
        rows, paths = generated_rows(c)
        sizes = ("data.n_clients", *paths)
        dimension = (f"data.{data.dataset}.dimension",) if facts.shape is None else ()
        field = driver(c, *dimension, *sizes) if f > 1 else driver(c, *sizes)
        per_client = max(rows.train_per_client, rows.test_per_client)
        loading = LONG * (data.n_clients * per_client * (f + 4) + f)  # drawn in float64
        held = samples * (f * FLOAT + (FLOAT if facts.kind == "regression" else LONG))
        what = f"{data.n_clients} clients × ({rows.train_per_client} + {rows.test_per_client})"
        what += f" samples of {f} values"
    return [
        Term(field, f"train and test data: {what}", held, device=True),
        Term(field, "generating or reading the data", loading, "loading"),
    ]


def _model(run: RunSizes) -> list[Term]:
    c, fp = run.config, run.footprint
    d_field = driver(c, *run.d_fields)
    # parameters, the global model, its next value, a step; the server's momentum
    vectors = 4 + fp.vectors + (c.server.momentum > 0)
    label = f"model and server vectors: {vectors} × d"
    terms = [Term(d_field, label, vectors * run.d * FLOAT, device=True)]
    if fp.client_rows:
        label = f"{c.algorithm.name}'s client memory: {fp.client_rows} × N × d = "
        label += f"{fp.client_rows} × {run.n} × {run.d} floats"
        field = driver(c, "data.n_clients", *run.d_fields)
        memory = fp.client_rows * run.n * run.d * FLOAT
        terms.append(Term(field, label, memory, device=True))
    if ring := ring_rows(c):
        label = f"{c.algorithm.name}'s ring of model versions: {ring} × d = {ring} × {run.d} floats"
        field = driver(c, f"algorithm.{c.algorithm.name}.ring", *run.d_fields)
        terms.append(Term(field, label, ring * run.d * FLOAT, device=True))
    if kept_momentum(c):
        label = f"client momentum buffers: N × d = {run.n} × {run.d} floats"
        field = driver(c, "data.n_clients", *run.d_fields)
        terms.append(Term(field, label, run.n * run.d * FLOAT, device=True))
    return terms


def ring_rows(c: RunConfig) -> int:
    """The model versions an async algorithm keeps for its clients to start from (0:
    a synchronous one)."""
    _, params = selected(c.algorithm, c.components.algorithms)
    return params.ring if isinstance(params, AsyncParams) else 0


def kept_momentum(c: RunConfig) -> bool:
    """Whether the run keeps every client's momentum buffer (`client.momentum_state`)."""
    return c.client.momentum > 0 and c.client.momentum_state == "keep"


def _training(run: RunSizes) -> list[Term]:
    c, fp, p = run.config, run.footprint, run.profile
    k, b = run.k, run.batch
    # per client in training: its parameters, their gradient as autograd returns it and
    # as stored, a contiguous copy of the weights for the batched products (measured),
    # the momentum buffer, the proximal difference. vmap trains a tile of clients
    # through all their steps at a time (all K off a CPU: `clients_at_once`; a run on
    # `auto` trains on the host only where it has no accelerator), sequential one client
    # at a time
    client = 4 + (c.client.momentum > 0) + fp.proximal
    vmap = run.backend == "vmap"
    device = "cuda" if c.device == "cuda" else "cpu"
    together = clients_at_once(p.stacked, device, k, b) if vmap else 1
    summed = trains_into_sum(c) and fp.trainees != "central"
    # held for all K: vmap's state of all K at once is their deltas and updates the K
    # kept momentum buffers in place; else the gathered kept buffers, and the deltas
    # where the run does not train into their sum; then the rows of the round's
    # aggregation and the copies privacy makes of the deltas
    whole = vmap and together >= k
    rows = 0 if whole else kept_momentum(c) + (not summed)
    if not summed:
        rows += fp.round_rows + PRIVATISED_ROWS.get(c.privacy.kind, 0)
    if not vmap:
        at_once = "one client at a time"
    elif whole:
        at_once = f"the {together} clients at once"
    else:
        at_once = f"a tile of {together} clients at a time"
    into = "into their weighted sum" if summed else "into (K, d) deltas"
    label = f"local training: {into}; {client} × d per client, {at_once}"
    label += f", + {rows} × K × d" if rows else ""
    label += ", + 1 × d" if summed else ""
    activations = p.activation_bytes + 2 * p.largest_activation_bytes
    terms = [
        Term(
            driver(c, run.k_field, *run.d_fields),
            f"{label}, K = {k}",
            (client * together + rows * k + int(summed)) * run.d * FLOAT,
        ),
        Term(
            driver(c, "client.batch_size", run.k_field),
            f"activations of {together} × {b} samples saved for backward, the largest's"
            " gradients, the inputs",
            together * b * (activations + 2 * run.features * FLOAT + LONG),
        ),
        Term(
            driver(c, "client.local_steps", run.k_field, "client.batch_size"),
            f"batch indices: K × {run.steps} steps × {b}",
            k * run.steps * b * (LONG + FLOAT),
        ),
    ]
    return [Term(t.field, t.label, t.amount, "training", True) for t in terms]


def _evaluation(run: RunSizes) -> list[Term]:
    c = run.config
    # host memory: on an accelerator the batch's activations are in the device's
    rows = evaluation_rows(c.eval.batch_size, run.profile.eval_row_bytes, True)
    batch = min(rows, run.n_test)
    per_client = 2 * LONG if c.eval.client_every else 0
    label = f"evaluation of {batch} samples at once"
    # a softmax regression's float test set, packed once for its product (`evaluate.pack`)
    packed = run.n_test * run.features * FLOAT
    if not run.profile.one_linear or dataset_facts(c).value_bytes != FLOAT or packed > PACK_BYTES:
        packed = 0
    if packed:
        label += ", the test set packed once"
    return [
        Term(
            driver(c, "eval.batch_size"),
            label,
            batch * run.profile.activation_bytes + run.n_test * (2 * FLOAT + per_client) + packed,
            "evaluating",
            True,
        )
    ]


def _bookkeeping(run: RunSizes, held_rounds: int, held_states: int) -> list[Term]:
    c, fp = run.config, run.footprint
    held_rounds = min(held_rounds, c.rounds)  # a sink cannot hold more than the run has
    vectors = 1 + fp.vectors + (c.server.momentum > 0)
    rows = fp.client_rows + kept_momentum(c)
    state = (rows * run.n + ring_rows(c) + vectors) * run.d * FLOAT + run.n * 64
    record = RECORD_BYTES + 3 * LONG * run.n + LONG * run.k
    accuracies = (
        math.ceil(held_rounds / c.eval.client_every) * 32 * run.n if c.eval.client_every else 0
    )
    terms = [
        Term("model.name", "autograd and kernel state, allocator slack", RUNTIME_BYTES),
        Term(
            driver(c, "data.n_clients", *run.d_fields),
            f"checkpoint: {held_states} cop{'y' if held_states == 1 else 'ies'} of the state",
            held_states * state,
        ),
        Term("data.n_clients", f"per-client state of {run.n} clients", run.n * CLIENT_BYTES),
        Term(
            "data.n_clients",
            f"records of {held_rounds} rounds, {run.n} clients each",
            held_rounds * record + accuracies,
        ),
        Term("rounds", f"{run.evaluations} evaluations kept", run.evaluations * EVALUATION_BYTES),
        Term(
            driver(c, *run.d_fields),
            "final model file: the parameters and their bytes, once",
            2 * run.d * FLOAT,
        ),
    ]
    if c.availability.kind == "trace":
        _, trace = selected(c.availability, c.components.availability)
        rows, intervals = _trace_size(trace.csv)
        terms.append(
            Term(
                TRACE_FIELD,
                f"trace: {rows} rows, {intervals} intervals within their cycles",
                intervals * INTERVAL_BYTES + rows * 4 * LONG,
                "loading",
            )
        )
    return terms


@functools.lru_cache(maxsize=16)
def _trace_size(csv: str) -> tuple[int, int]:
    """Rows and intervals of a trace (parsed once: a sweep repeats it in every cell)."""
    rows = parse_trace(csv)
    return len(rows), interval_count(rows)


def _modules(run: RunSizes) -> list[Term]:
    """Modules the run loads on first use (a fresh process pays for them)."""
    c = run.config
    used = []
    if run.backend == "vmap" and run.profile.stacked is None:
        used.append(("torch.func", "model.name"))
    source = dataset_facts(c).source
    if source == "bundled":
        used.append(("scikit-learn", "data.dataset"))
    elif source == "data_root":
        used.append(("torchvision", "data.dataset"))
    return [Term(field, f"{name}'s modules", MODULE_BYTES[name]) for name, field in used]
