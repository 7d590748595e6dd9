"""What a run needs, estimated from its config alone: memory, itemised by the config
field that drives each part, and work in floating-point operations.

`estimate(config)` takes milliseconds and allocates none of the run's tensors: the
model is profiled on the `meta` device (`models/profile.py`). Every term bounds what it
stands for from above. Some are held throughout, others only in a phase (loading the
data, a round's local training, an evaluation); the peak counts the largest phase in
full, and of the others what the allocator may keep of their freed blocks for reuse
(`allocator.py`: at most its trim threshold). `bench/estimate.py` compares estimates
with the measured peaks of real runs.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from worker.engine.algorithms import ALGORITHMS
from worker.engine.algorithms.base import Footprint
from worker.engine.allocator import TRIM_THRESHOLD
from worker.engine.availability.trace import FIELD as TRACE_FIELD
from worker.engine.availability.trace import interval_count, parse_trace
from worker.engine.config import N_CLASSES, RunConfig
from worker.engine.data.vision import POOL_SIZES
from worker.engine.errors import ConfigError
from worker.engine.models.profile import ModelProfile, model_profile
from worker.engine.simulate import resolve_backend

Phase = Literal["run", "loading", "training", "evaluating"]  # "run": held throughout

FLOAT, LONG = 4, 8
# Measured in fresh processes (bench/estimate.py): what a run adds besides its tensors
# (autograd and kernel state, allocator slack), and the modules it loads on first use:
# torch.func's for models vmap cannot stack, scikit-learn for digits, torchvision's
# datasets for the other images.
RUNTIME_BYTES = 64 << 20
MODULE_BYTES = {"torch.func": 176 << 20, "scikit-learn": 96 << 20, "torchvision": 32 << 20}
CLIENT_BYTES = 512  # per client: availability, tracker and estimator vectors (float64)
RECORD_BYTES = 4096  # a round's record besides its per-client arrays
EVALUATION_BYTES = 128  # an evaluation kept for the run's summary
INTERVAL_BYTES = 128  # a trace interval while π is counted (intervals.py's int64 arrays)

_DEFAULTS = RunConfig()


@dataclass(frozen=True)
class Term:
    field: str  # dotted config path of the setting that drives it
    label: str
    amount: float  # bytes, or floating-point operations
    phase: Phase = "run"
    device: bool = False  # held by the accelerator when the run uses one


@dataclass(frozen=True)
class Estimate:
    memory: tuple[Term, ...]
    work: tuple[Term, ...]
    d: int
    on_device: bool  # config.device is "cuda": device terms are not the host's

    @property
    def host_terms(self) -> tuple[Term, ...]:
        return tuple(t for t in self.memory if not (self.on_device and t.device))

    @property
    def host_bytes(self) -> int:
        return _peak(self.host_terms)

    @property
    def device_bytes(self) -> int:
        return _peak(t for t in self.memory if self.on_device and t.device)

    @property
    def flops(self) -> float:
        return sum(t.amount for t in self.work)

    def describe(self) -> str:
        """The estimate in a few lines, for people."""
        lines = [f"d = {self.d} parameters", f"memory, peak: {format_bytes(self.host_bytes)}"]
        if self.on_device:
            lines.append(f"accelerator memory, peak: {format_bytes(self.device_bytes)}")
        lines += [f"  {self._line(t, format_bytes)}" for t in largest(self.memory)]
        lines.append(f"work: {format_flops(self.flops)}")
        lines += [f"  {self._line(t, format_flops)}" for t in largest(self.work)]
        return "\n".join(lines)

    def _line(self, term: Term, unit: Callable[[float], str]) -> str:
        where = "" if term.phase == "run" else f", while {term.phase}"
        if self.on_device and term.device:
            where += ", on the accelerator"
        return f"{unit(term.amount)}: {term.label} ({term.field}{where})"


def largest(terms: Iterable[Term], n: int | None = None) -> list[Term]:
    """The `n` largest terms (all of them by default), largest first."""
    return sorted(terms, key=lambda t: -t.amount)[:n]


def _peak(terms: Iterable[Term]) -> int:
    """What is held throughout, the largest phase, and what the allocator may keep of
    the other phases (freed blocks it did not hand back, at most its trim threshold)."""
    held, phases = 0.0, dict.fromkeys(("loading", "training", "evaluating"), 0.0)
    for t in terms:
        if t.phase == "run":
            held += t.amount
        else:
            phases[t.phase] += t.amount
    largest = max(phases.values())
    return int(held + largest + min(sum(phases.values()) - largest, TRIM_THRESHOLD))


def format_bytes(n: float) -> str:
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n / 2**10:.1f} KiB"


def format_flops(n: float) -> str:
    for unit, size in (("PFLOP", 1e15), ("TFLOP", 1e12), ("GFLOP", 1e9)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n / 1e6:.1f} MFLOP"


def sample_shape(config: RunConfig) -> tuple[int, ...]:
    data = config.data
    if data.dataset == "synthetic_clustered":
        return (data.dimension,)
    if data.dataset == "mean_estimation":
        return (1,)
    return POOL_SIZES[data.dataset].shape


def _scale(config: RunConfig, path: str) -> float:
    """How far a setting is above its default (1 where it is not a number)."""
    value, default = _get(config, path), _get(_DEFAULTS, path)
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (value, default))
    return value / default if numbers and default > 0 else 1.0


def _get(config: RunConfig, path: str) -> Any:
    node: Any = config
    for key in path.split("."):
        node = getattr(node, key)
    return node


def _driver(config: RunConfig, *paths: str) -> str:
    """Of the settings a term grows with, the one furthest above its default (the
    first where none is)."""
    return max(paths, key=lambda p: _scale(config, p))


@dataclass(frozen=True)
class _Run:
    """The sizes every term is computed from."""

    config: RunConfig
    profile: ModelProfile
    footprint: Footprint
    backend: str
    n: int  # clients
    k: int  # clients that train in a round
    k_field: str
    features: int  # of one sample
    n_train: int
    n_test: int
    steps: int  # local steps of the client with the most data
    d_fields: tuple[str, ...]  # what drives d

    @property
    def d(self) -> int:
        return self.profile.d

    @property
    def batch(self) -> int:
        return self.config.client.batch_size

    @property
    def evaluations(self) -> int:
        return math.ceil(self.config.rounds / self.config.eval.every) + 1


def estimate(config: RunConfig, *, held_rounds: int = 1, held_states: int = 1) -> Estimate:
    """Memory and work of `config`, with the sink keeping `held_rounds` records and
    `held_states` copies of a checkpoint at once."""
    run = _sizes(config)
    memory = (
        *_data(run),
        *_model(run),
        *_training(run),
        *_evaluation(run),
        *_bookkeeping(run, held_rounds, held_states),
        *_modules(run),
    )
    return Estimate(memory, _work(run), run.d, config.device == "cuda")


def _sizes(config: RunConfig) -> _Run:
    data = config.data
    shape = sample_shape(config)
    regression = data.dataset == "mean_estimation"
    d_fields: tuple[str, ...] = ("model.hidden",) if config.model.name == "mlp" else ()
    if data.dataset == "synthetic_clustered":
        d_fields += ("data.dimension",)
    d_fields += ("model.name",)
    try:
        profile = model_profile(
            config.model.name, config.model.hidden, shape, N_CLASSES[data.dataset], regression
        )
    except RuntimeError as err:  # a tensor of more than 2^63 elements
        raise ConfigError(
            f"{_driver(config, *d_fields)}: the model cannot be built ({err})"
        ) from None
    footprint = ALGORITHMS[config.algorithm.name].footprint
    n = data.n_clients
    if data.dataset in POOL_SIZES:
        pool = POOL_SIZES[data.dataset]
        n_train, n_test = min(pool.train, data.max_train_samples or pool.train), pool.test
    else:
        n_train, n_test = n * data.train_per_client, n * data.test_per_client
    if footprint.trainees == "central":
        k, k_field, largest = 1, "algorithm.name", n_train
    elif footprint.trainees == "available":
        k, k_field, largest = n, "data.n_clients", _largest_client(config, n_train)
    else:
        k, k_field = min(config.n_selected(), n), "algorithm.participation"
        largest = _largest_client(config, n_train)
    client = config.client
    steps = client.local_steps
    if client.unit == "epochs":
        steps *= math.ceil(largest / client.batch_size)
    return _Run(
        config=config,
        profile=profile,
        footprint=footprint,
        backend=resolve_backend(config.backend, profile.module),
        n=n,
        k=k,
        k_field=k_field,
        features=math.prod(shape),
        n_train=n_train,
        n_test=n_test,
        steps=steps,
        d_fields=d_fields,
    )


def _largest_client(config: RunConfig, n_train: int) -> int:
    """Train samples of the client with the most, from above."""
    data = config.data
    spread = 1.0
    if data.partition == "by_class":
        spread = 2 + 4 * data.size_std if data.sizes == "normal" else 2
    elif data.partition == "dirichlet":
        spread = 1 + 2 / data.dirichlet_alpha
    return min(n_train, math.ceil(n_train / data.n_clients * spread))


def _data(run: _Run) -> list[Term]:
    c, data = run.config, run.config.data
    f = run.features
    samples = run.n_train + run.n_test
    if data.dataset in POOL_SIZES:
        pool = POOL_SIZES[data.dataset]
        field = _driver(c, "data.dataset")
        # decoded bytes and two float copies per split; then the pool and its
        # per-client copy; and the partition's index arrays
        loading = f * max(10 * pool.train, 4 * pool.train + 10 * pool.test)
        loading = max(loading, 4 * f * (pool.train + pool.test)) + 16 * pool.train
        held = samples * (f * FLOAT + LONG)
        what = f"{run.n_train} + {run.n_test} samples of {f} values"
    else:
        sizes = ("data.n_clients", "data.train_per_client", "data.test_per_client")
        field = _driver(c, "data.dimension", *sizes) if f > 1 else _driver(c, *sizes)
        per_client = max(data.train_per_client, data.test_per_client)
        loading = LONG * (data.n_clients * per_client * (f + 4) + f)  # drawn in float64
        held = samples * (f * FLOAT + (FLOAT if data.dataset == "mean_estimation" else LONG))
        what = f"{data.n_clients} clients × ({data.train_per_client} + {data.test_per_client})"
        what += f" samples of {f} values"
    return [
        Term(field, f"train and test data: {what}", held, device=True),
        Term(field, "generating or reading the data", loading, "loading"),
    ]


def _model(run: _Run) -> list[Term]:
    c, fp = run.config, run.footprint
    d_field = _driver(c, *run.d_fields)
    vectors = 4 + fp.vectors  # parameters, the global model, its next value, a step
    label = f"model and server vectors: {vectors} × d"
    terms = [Term(d_field, label, vectors * run.d * FLOAT, device=True)]
    if fp.client_rows:
        label = f"{c.algorithm.name}'s client memory: {fp.client_rows} × N × d = "
        label += f"{fp.client_rows} × {run.n} × {run.d} floats"
        field = _driver(c, "data.n_clients", *run.d_fields)
        memory = fp.client_rows * run.n * run.d * FLOAT
        terms.append(Term(field, label, memory, device=True))
    return terms


def _training(run: _Run) -> list[Term]:
    c, fp, p = run.config, run.footprint, run.profile
    k, b = run.k, run.batch
    # per client: its parameters, their gradient as autograd returns it and as stored,
    # a contiguous copy of the weights for the batched products (measured), the
    # momentum buffer, the proximal difference; vmap trains the K clients at once,
    # sequential one after the other into the (K, d) deltas
    client = 4 + (c.client.momentum > 0) + (c.algorithm.name == "fedprox")
    vmap = run.backend == "vmap"
    rows, vectors = (client + fp.round_rows, 0) if vmap else (1 + fp.round_rows, client)
    together = k if vmap else 1  # clients whose activations coexist
    activations = p.activation_bytes + 2 * p.largest_activation_bytes
    terms = [
        Term(
            _driver(c, run.k_field, *run.d_fields),
            f"local training: {rows} × K × d + {vectors} × d, K = {k}",
            (rows * k + vectors) * run.d * FLOAT,
        ),
        Term(
            _driver(c, "client.batch_size", run.k_field),
            f"activations of {together} × {b} samples saved for backward, the largest's"
            " gradients, the inputs",
            together * b * (activations + 2 * run.features * FLOAT + LONG),
        ),
        Term(
            _driver(c, "client.local_steps", run.k_field, "client.batch_size"),
            f"batch indices: K × {run.steps} steps × {b}",
            k * run.steps * b * (LONG + FLOAT),
        ),
    ]
    return [Term(t.field, t.label, t.amount, "training", True) for t in terms]


def _evaluation(run: _Run) -> list[Term]:
    c = run.config
    batch = min(c.eval.batch_size, run.n_test)
    per_client = 2 * LONG if c.eval.client_every else 0
    return [
        Term(
            _driver(c, "eval.batch_size"),
            f"evaluation of {batch} samples at once",
            batch * run.profile.activation_bytes + run.n_test * (2 * FLOAT + per_client),
            "evaluating",
            True,
        )
    ]


def _bookkeeping(run: _Run, held_rounds: int, held_states: int) -> list[Term]:
    c, fp = run.config, run.footprint
    state = (fp.client_rows * run.n + 1 + fp.vectors) * run.d * FLOAT + run.n * 64
    record = RECORD_BYTES + 3 * LONG * run.n + LONG * run.k
    accuracies = (
        math.ceil(held_rounds / c.eval.client_every) * 32 * run.n if c.eval.client_every else 0
    )
    terms = [
        Term("model.name", "autograd and kernel state, allocator slack", RUNTIME_BYTES),
        Term(
            _driver(c, "data.n_clients", *run.d_fields),
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
    ]
    if c.availability.kind == "trace":
        rows, intervals = _trace_size(c.availability.trace.csv)
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


def _modules(run: _Run) -> list[Term]:
    """Modules the run loads on first use (a fresh process pays for them)."""
    c = run.config
    used = []
    if run.backend == "vmap" and not run.profile.stacks:
        used.append(("torch.func", "model.name"))
    if c.data.dataset == "digits":
        used.append(("scikit-learn", "data.dataset"))
    elif c.data.dataset in POOL_SIZES:
        used.append(("torchvision", "data.dataset"))
    return [Term(field, f"{name}'s modules", MODULE_BYTES[name]) for name, field in used]


def _work(run: _Run) -> tuple[Term, ...]:
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
    sizes = ("rounds", run.k_field, "client.local_steps", "client.batch_size", *run.d_fields)
    return (
        Term(
            _driver(c, *sizes),
            f"local training: {rounds} rounds × K = {k} × {run.steps} steps × {run.batch}",
            train,
        ),
        Term(_driver(c, "data.n_clients", "rounds"), "server aggregation", server),
        Term(_driver(c, "rounds", *run.d_fields), f"{run.evaluations} evaluations", evaluation),
    )
