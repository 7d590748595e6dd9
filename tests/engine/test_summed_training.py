"""Training into the sum Σ_i c_i Δ_i (`LocalSpec.combine`, `Algorithm.summed`): the same
update as summing the deltas, on both backends, every stacked path, and whole runs of
every algorithm that gives a sum; privacy's clipping still reads each delta. Whether a
run trains into the sum is decided in one place (`trains_into_sum`), which the loop and
the estimate read."""

from typing import Any

import pytest
import torch
from torch import Tensor
from torch.testing import assert_close

from worker.engine import ListSink, RunConfig, build_config
from worker.engine.algorithms import Algorithm, Plan, Step
from worker.engine.algorithms.fedavg import FedAvg, FedAvgParams
from worker.engine.components import current
from worker.engine.data import load_data
from worker.engine.loop import Simulation
from worker.engine.models import build_model
from worker.engine.summed_training import trains_into_sum
from worker.engine.training.batches import batch_indices
from worker.engine.training.flat import FlatModel
from worker.engine.training.local import LocalSpec, train_sequential, train_vmap

CLIENTS = torch.tensor([0, 3, 7, 12, 20, 31])
C = torch.tensor([0.1, 0.3, 0.05, 0.25, 0.2, 0.1])


def spec_for(model_name: str, unit: str, steps: int, **extra: Any) -> tuple[Any, ...]:
    cfg = build_config(
        {"data": {"dataset": "digits", "n_clients": 40, "partition": "dirichlet"}},
        [f"model.name={model_name}"],
    )
    data = load_data(cfg.data, seed=0)
    model = FlatModel(build_model(cfg.model, data.input_shape, data.n_classes), data.task)
    gen = torch.Generator().manual_seed(1)
    offsets, sizes = data.train_offsets[CLIENTS], data.sizes[CLIENTS]
    batches = batch_indices(offsets, sizes, steps, unit, 8, gen)
    spec = LocalSpec(
        w=model.initial(),
        batches=batches.rows,
        mask=batches.mask,
        real=batches.real,
        lr=0.1,
        x_values=data.x_values,
        **extra,
    )
    return model, data.x_train, data.y_train, spec


@pytest.mark.parametrize("train", [train_vmap, train_sequential])
@pytest.mark.parametrize("model_name", ["linear", "mlp", "cnn"])
@pytest.mark.parametrize(
    ("unit", "steps", "extra"),
    [("steps", 1, {}), ("epochs", 1, {}), ("steps", 2, {}), ("steps", 1, {"momentum": 0.9})],
)
def test_the_sum_is_the_weighted_sum_of_the_deltas(
    train: Any, model_name: str, unit: str, steps: int, extra: dict[str, float]
) -> None:
    model, x, y, spec = spec_for(model_name, unit, steps, **extra)
    deltas, losses = train(model, x, y, spec)
    spec.combine = C

    total, summed_losses = train(model, x, y, spec)

    assert total.shape == (model.dim,)
    assert_close(total, C @ deltas, atol=1e-6, rtol=1e-4)
    assert_close(summed_losses, losses)
    assert float(total.abs().sum()) > 0


def test_the_softmax_regressions_sum_by_hand() -> None:
    """One sample a client on a 2-feature softmax regression at W = 0, b = 0: p = ½ each
    class, so ∇W_i = (p − e_y) xᵀ and Δ_i = −η ∇_i."""
    cfg = build_config({"data": {"dataset": "digits"}}, ["model.name=linear"])
    model = FlatModel(build_model(cfg.model, (2,), 2), "classification")
    x, y = torch.tensor([[1.0, 2.0], [3.0, -1.0]]), torch.tensor([0, 1])
    w = torch.zeros(model.dim)
    spec = LocalSpec(w=w, batches=torch.tensor([[[0]], [[1]]]), mask=torch.ones(2, 1), lr=0.5)
    spec.combine = torch.tensor([0.25, 0.75])

    total, _ = train_vmap(model, x, y, spec)

    # client 0: (p − e_0) = (−½, ½), x = (1, 2): ∇W = [[−½, −1], [½, 1]], ∇b = (−½, ½)
    # client 1: (p − e_1) = (½, −½), x = (3, −1): ∇W = [[3/2, −½], [−3/2, ½]], ∇b = (½, −½)
    # Σ c_i Δ_i = −0.5 (0.25 ∇_0 + 0.75 ∇_1)
    grad_w = 0.25 * torch.tensor([[-0.5, -1.0], [0.5, 1.0]]) + 0.75 * torch.tensor(
        [[1.5, -0.5], [-1.5, 0.5]]
    )
    grad_b = 0.25 * torch.tensor([-0.5, 0.5]) + 0.75 * torch.tensor([0.5, -0.5])
    expected = -0.5 * torch.cat([grad_w.flatten(), grad_b])
    assert_close(total, expected)


SUMMED = ["fedavg", "fedprox", "fednova", "f3ast", "unbiased", "fedavg_is", "adafed", "cafed"]


def config(name: str, *extra: str) -> RunConfig:
    return build_config(
        {"rounds": 4, "eval": {"every": 2}, "data": {"n_clients": 12}},
        [
            f"algorithm.name={name}",
            "availability.kind=bernoulli",
            "algorithm.participation=5",
            *extra,
        ],
    )


def records(cfg: RunConfig, summed: bool) -> tuple[list[dict[str, Any]], list[Tensor | None]]:
    """The run's records, and what each round's training was asked to sum into."""
    sim = Simulation(cfg)
    if not summed:
        sim.summed = lambda t, plan: None  # type: ignore[method-assign]
    asked: list[Tensor | None] = []
    train = sim.trainer.train

    def spy(*args: Any) -> Any:
        asked.append(args[6] if len(args) > 6 else None)
        return train(*args)

    sim.trainer.train = spy  # type: ignore[method-assign,assignment]
    sink = ListSink()
    sim.run(sink)
    return [r.deterministic() for r in sink.records], asked


def close(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> None:
    """The same rounds: equal ids and weights, the metrics equal to float rounding."""
    assert len(a) == len(b)
    for ra, rb in zip(a, b, strict=True):
        assert ra.keys() == rb.keys()
        for key, value in ra.items():
            if isinstance(value, float):
                assert value == pytest.approx(rb[key], rel=1e-4, abs=1e-6), key
            else:
                assert value == rb[key], key


@pytest.mark.parametrize("name", SUMMED)
@pytest.mark.parametrize(("backend", "steps"), [("vmap", 1), ("vmap", 2), ("sequential", 2)])
def test_a_run_summed_in_training_equals_the_run_that_sums_the_deltas(
    name: str, backend: str, steps: int
) -> None:
    cfg = config(name, f"backend={backend}", f"client.local_steps={steps}")
    fused, asked = records(cfg, summed=True)
    plain, asked_plain = records(cfg, summed=False)

    assert all(c is not None for c in asked) and all(c is None for c in asked_plain)
    close(fused, plain)


def test_partial_work_rescaled_by_fedavg_is_summed_as_it_is_aggregated() -> None:
    cfg = config(
        "fedavg",
        "algorithm.fedavg.rescale_partial=true",
        "system.kind=fedscale",
        "client.partial_work=keep",
        "client.local_steps=20",
    )
    fused, asked = records(cfg, summed=True)
    plain, _ = records(cfg, summed=False)

    assert asked and all(c is not None for c in asked)
    close(fused, plain)


@pytest.mark.parametrize("kind", ["central", "local"])
def test_privacy_clips_each_delta_so_nothing_is_summed_in_training(kind: str) -> None:
    cfg = config("fedavg", f"privacy.kind={kind}", "algorithm.weights=uniform")
    _, asked = records(cfg, summed=True)

    assert asked and all(c is None for c in asked)


def test_an_algorithm_without_a_sum_is_given_the_deltas() -> None:
    _, asked = records(config("mifa"), summed=True)

    assert asked and all(c is None for c in asked)
    assert Simulation(config("mifa")).algorithm.summed.__func__ is Algorithm.summed  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", sorted(current().algorithms.names()))
def test_a_run_trains_into_the_sum_where_its_algorithm_declares_one(name: str) -> None:
    on_clock = current().algorithms.get(name).component.asynchronous
    cfg = config(name, *(["system.kind=profiles"] if on_clock else []))

    assert trains_into_sum(cfg) == (name in SUMMED)


@pytest.mark.parametrize(
    "extra",
    [
        ["algorithm.fedavg.wait_for_all=true"],
        ["privacy.kind=central", "algorithm.weights=uniform"],
        ["privacy.kind=local", "algorithm.weights=uniform"],
    ],
)
def test_what_reads_each_delta_keeps_the_run_out_of_the_sum(extra: list[str]) -> None:
    cfg = config("fedavg", *extra)

    _, asked = records(cfg, summed=True)

    assert not trains_into_sum(cfg)
    assert asked and all(c is None for c in asked)


def test_a_subclass_with_its_own_aggregate_alone_sums_nothing() -> None:
    class Recount(FedAvg):
        def aggregate(self, t: int, w: Tensor, plan: Plan, deltas: Tensor, lr: float) -> Step:
            return super().aggregate(t, w, plan, deltas, lr)

    assert FedAvg.trains_into_sum(FedAvgParams())
    assert not Recount.trains_into_sum(FedAvgParams())


def test_a_sum_declared_but_not_given_stops_the_run() -> None:
    sim = Simulation(config("fedavg"))
    sim.algorithm.summed = lambda t, plan: None  # type: ignore[method-assign]

    with pytest.raises(RuntimeError, match="`trains_into_sum`"):
        sim.run(ListSink())
