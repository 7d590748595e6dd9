"""Everything a FedWatch plug-in imports: the round contract, the base classes, the
register decorators and the helpers the built-in components use.

A plug-in is a distribution with an entry point in one of the groups
`fedwatch.algorithms`, `fedwatch.availability`, `fedwatch.systems`, `fedwatch.datasets`,
`fedwatch.partitions`, `fedwatch.models`, `fedwatch.schedules`; the entry point's name
is the component's name and its object the registered component. The API, the workers
and the `fedwatch` command load every installed plug-in at start (`fedwatch plugins`
lists them); one that fails to load is skipped with a one-line warning naming its entry
point and the reason.

A minimal algorithm, FedAvg over every available client with a damped server step::

    # mypkg/damped.py
    import torch
    from pydantic import Field
    from torch import Tensor

    from fedwatch.plugins import (
        Algorithm, Available, AlgorithmContext, MetricSpec, Params, Plan, Step,
        algorithm, renormalised, weighted_step,
    )

    class DampedParams(Params):
        damping: float = Field(0.5, gt=0, le=1, description="Share of the mean delta applied.")

    TRAINED = MetricSpec("damped_trained", "clients trained", panel="algorithm", unit="clients")

    @algorithm("damped", params=DampedParams, label="damped FedAvg")
    class Damped(Algorithm):
        metric_specs = (TRAINED,)
        params: DampedParams

        def select(self, t: int, w: Tensor, available: Available, gen: torch.Generator) -> Plan:
            return Plan(available.ids)

        def aggregate(self, t: int, w: Tensor, plan: Plan, deltas: Tensor, lr: float) -> Step:
            ids = plan.selected.to(self.facts.device)
            a = self.params.damping * renormalised(self.facts.alpha, ids)
            return weighted_step(self.facts.n, ids, a, deltas, {TRAINED.name: float(len(ids))})

and in the distribution's `pyproject.toml`::

    [project.entry-points."fedwatch.algorithms"]
    damped = "mypkg.damped:Damped"

After `pip install`, `algorithm.name=damped` and `algorithm.damped.damping=0.8` are valid
everywhere a run config is (the web form, `--set`, sweeps), and `damped_trained` is
recorded every round and drawn on the run page.

The contract, in short:

- `Algorithm(params, facts)`: `params` is the validated instance of the params model
  given to `@algorithm` (None without one), `facts` an `AlgorithmContext` (sizes, α, π/λ, server
  lr, a loss probe). State that a checkpoint must hold is listed in `state`; resuming
  from a checkpoint must give the same rounds as an uninterrupted run.
- `select(t, w, available, gen) -> Plan`: who trains (ascending ids on the CPU), or the
  centralised case, from the round's `Available` clients (`available.mask`, the (N,)
  bool mask, and `available.ids`, its ascending ids on the CPU, found once a round);
  optionally a (K, d) gradient correction and a proximal weight.
  Draw random choices from `gen` only (`uniform_sample`, `oldest_first`).
- `aggregate(t, w, plan, deltas, lr) -> Step` (`plan.planned` and `plan.steps`: the
  clients' planned and completed local steps, for normalising by the work done): the
  loop applies
  w ← w + η_s·`direction`; `weights` (N,) are the weights the clients' updates entered
  with (or, with `entered` naming the clients, theirs alone, as `weighted_step` gives
  them; `step.dense_weights(n)` reads (N,) either way); `metrics` the per-round scalars
  declared in the class's `metric_specs`.
- `summed(t, plan) -> Summed | None` (optional): where the step is a weighted sum of
  the deltas whose weights are known before the clients train (FedAvg's α renormalised
  over them), return `Summed(weights)`; the loop then trains the clients into that sum
  alone, never holding the (K, d) deltas, and makes the step from it (your `aggregate`
  can make the same step from the deltas with `summed(...).step(n, ids, deltas)`). A
  subclass that overrides `aggregate` but not `summed` is given the deltas. Where the
  step is such a sum under some params only, the class method
  `trains_into_sum(params) -> bool` says which (the loop asks `summed` only then, and
  the run's memory estimate counts no (K, d) deltas); by default, wherever the class
  gives `summed`.
- `Params.check_run(run)` validates params against the rest of the run (a
  `RunShape`): raise `ValueError("algorithm.<name>.<param>: ...")`.

Availability models subclass `Availability` (`mask(t)`, `pi`, optionally `lam`; built by
`from_params(params, AvailabilityContext)`, by default `cls(params, facts)`) and register
with `@availability`. System models subclass `SystemModel` (per client `s_per_sample`,
`down_bps`, `up_bps`, optionally `sessions`, availability in seconds; built by
`from_params(params, SystemContext)`) and register with `@system`. Datasets register a
loader `load(params, data, rng)` returning a `Pool` (x, y, x_test, y_test, partitioned
by `data.partition`) or a `FederatedData`, with `DatasetFacts`; models a builder
`build(params, model, shape, n_classes)` returning an `nn.Module`, with `ModelFacts`.

Partitions subclass `Partition` and register with `@partition`: most say which pool
rows each client trains on (`rows(labels, n_clients, rng)`, every draw from `rng`), and
the engine gives each client the test rows of its labels; one that does more overrides
`split(pool, ctx, rng) -> FederatedData`, reading of the run only its `PartitionContext`
(`dataset`, `n_clients`, `n_classes`, `max_train_samples`). A partition that puts every class
on its own client::

    # mypkg/solo.py
    import numpy as np

    from fedwatch.plugins import Partition, partition

    @partition("solo", label="one class a client")
    class Solo(Partition):
        def rows(self, labels, n_clients, rng):
            return [rng.permutation(np.flatnonzero(labels == k)) for k in range(n_clients)]

with, in `pyproject.toml`, `solo = "mypkg.solo:Solo"` under
`[project.entry-points."fedwatch.partitions"]`; then `data.partition=solo` is valid for
every dataset that gives a pool, and the form lists it.

The manual's plug-in page (`docs/plugins.md`) has a worked example of every kind, each
run by a test.
"""

from __future__ import annotations

from worker.engine.algorithms.base import (
    Algorithm,
    AlgorithmContext,
    Footprint,
    Plan,
    Step,
    Summed,
    renormalised,
    scatter,
    weighted_step,
)
from worker.engine.algorithms.memory import MEMORY_FILLED, ClientMemory
from worker.engine.algorithms.selection import oldest_first, uniform_sample
from worker.engine.availability.base import Availability, AvailabilityContext
from worker.engine.components import current
from worker.engine.data.federated import FederatedData, byte_values
from worker.engine.data.partitions.base import Grouped, Partition, PartitionContext
from worker.engine.data.vision import Pool
from worker.engine.facts import DatasetFacts, ModelFacts
from worker.engine.masks import Available
from worker.engine.metrics import MetricSpec
from worker.engine.params import Params, RunShape
from worker.engine.registry import (
    Failed,
    Loaded,
    PluginReport,
    RegistrationError,
    algorithm,
    availability,
    dataset,
    model,
    partition,
    schedule,
    system,
)
from worker.engine.rng import torch_gen
from worker.engine.schedules import Schedule
from worker.engine.sections import DataSection, EvalSection, ModelSection
from worker.engine.system.base import SystemContext, SystemModel
from worker.engine.system.sessions import Sessions

__all__ = [
    "MEMORY_FILLED",
    "Algorithm",
    "AlgorithmContext",
    "Availability",
    "AvailabilityContext",
    "Available",
    "ClientMemory",
    "DataSection",
    "DatasetFacts",
    "EvalSection",
    "Failed",
    "FederatedData",
    "Footprint",
    "Grouped",
    "Loaded",
    "MetricSpec",
    "ModelFacts",
    "ModelSection",
    "Params",
    "Partition",
    "PartitionContext",
    "Plan",
    "PluginReport",
    "Pool",
    "RegistrationError",
    "RunShape",
    "Schedule",
    "Sessions",
    "Step",
    "Summed",
    "SystemContext",
    "SystemModel",
    "algorithm",
    "availability",
    "byte_values",
    "dataset",
    "model",
    "oldest_first",
    "partition",
    "renormalised",
    "report",
    "scatter",
    "schedule",
    "system",
    "torch_gen",
    "uniform_sample",
    "weighted_step",
]


def report() -> PluginReport:
    """The plug-ins of this process's components: loaded and skipped."""
    return current().plugins
