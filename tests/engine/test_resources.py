"""The run estimate: hand-computed terms of small configs, the configs that exhausted
the service's memory, an estimate that allocates nothing, and each algorithm's
declared footprint against the state it keeps."""

from pathlib import Path
from typing import Any

import pytest
import torch
from torch.nn import functional as F
from torch.utils.flop_counter import FlopCounterMode

from tests.engine.contexts import make_algorithm
from worker.engine import ConfigError, RunConfig, build_config, section_class
from worker.engine.components import current
from worker.engine.models import build_model
from worker.engine.resources import Estimate, Term, estimate, largest
from worker.engine.resources.model_profile import model_profile
from worker.engine.resources.work import STEP_FLOP
from worker.engine.sections import ModelSection
from worker.engine.training.flat import FlatModel
from worker.engine.training.stacked import clients_at_once
from worker.presets import get_preset

SMALL = {
    "rounds": 100,
    "data": {"dataset": "synthetic_clustered", "n_clients": 24, "dimension": 10},
    "model": {"name": "linear"},
    "algorithm": {"name": "fedlaavg", "participation": 6},
    "client": {"local_steps": 5, "batch_size": 32},
}
WIDE = {"data": {"synthetic_clustered": {"dimension": 1_000_000_000}}}
MANY_CLIENTS = {
    "data": {"n_clients": 100_000},
    "model": {"name": "mlp", "mlp": {"hidden": 2000}},
    "algorithm": {"name": "fedlaavg"},
}
LONG_TRACE = {"availability": {"kind": "trace", "trace": {"csv": "0,0,1500000000"}}}
# client 0's periods repeat together every 2·99991·99989 rounds: 7.5e8 intervals of
# the period-2 row within the 1.5e9-round horizon
PERIODIC_TRACE = {
    "availability": {
        "kind": "trace",
        "trace": {"csv": "0,0,1,2\n0,0,1,99991\n0,0,1,99989\n1,0,1500000000"},
    }
}


def term(found: Estimate, label: str, work: bool = False) -> Term:
    [match] = [t for t in (found.work if work else found.memory) if t.label.startswith(label)]
    return match


def dominant(config: dict[str, Any]) -> Term:
    found = estimate(build_config(config, []))
    return largest(found.host_terms, 1)[0]


def test_linear_model_on_synthetic_data_by_hand() -> None:
    found = estimate(build_config(SMALL, []))

    d = (10 + 1) * 2  # weights and bias of 2 classes
    assert found.d == d
    assert term(found, "fedlaavg's client memory").amount == 24 * d * 4
    assert term(found, "train and test data").amount == 24 * (50 + 150) * (10 * 4 + 8)
    drawn = 24 * 150 * (10 + 4) + 10  # the larger split in float64, w* and the labels' draws
    assert term(found, "generating or reading the data").amount == 8 * drawn
    steps = 100 * 6 * 5  # rounds x K x local steps
    assert term(found, "local training", work=True).amount == steps * (32 * 80 + 6 * d)
    # each step of the vmap backend trains the K clients at once
    assert term(found, "fixed cost of 500 local steps", work=True).amount == 100 * 5 * STEP_FLOP


def test_the_fixed_cost_of_a_step_counts_where_arithmetic_is_nothing() -> None:
    """Example 1 trains one parameter: 4000 rounds × 10^7 steps (10^6 epochs of 10 rows)
    are 480 GFLOP of arithmetic, but each step costs dispatching (before, it was admitted
    and did no round in 30 s)."""
    config = get_preset("example1").run_config(["client.local_steps=1000000", "client.unit=epochs"])
    found = estimate(config)

    fixed = term(found, "fixed cost of 40000000000 local steps", work=True)
    assert fixed.amount == 4000 * 10**7 * STEP_FLOP and fixed.field == "client.local_steps"
    sequential = estimate(config.model_copy(update={"backend": "sequential"}))
    steps = 4000 * 10**7 * 2  # once per client
    assert term(sequential, "fixed cost", work=True).amount == steps * STEP_FLOP


MODEL = section_class(current(), ModelSection)


def model_json(name: str) -> str:
    return MODEL(name=name).model_dump_json()


def test_flops_of_a_linear_layer() -> None:
    profile = model_profile(MODEL, model_json("linear"), (10,), 2, False)

    assert profile.forward_flops == 2 * 10 * 2  # one sample: a (1, 10) x (10, 2) product
    assert profile.train_flops == 2 * (2 * 10 * 2)  # and the weights' gradient
    assert profile.d == 22


def test_operations_counted_as_flop_counter_mode_counts_them() -> None:
    with torch.device("meta"):
        model = build_model(MODEL(name="cnn"), (3, 32, 32), 10)
        x = torch.empty(2, 3, 32, 32)
    with FlopCounterMode(display=False) as counter:
        F.cross_entropy(model(x), torch.zeros(2, dtype=torch.long, device="meta")).backward()

    profile = model_profile(MODEL, model_json("cnn"), (3, 32, 32), 10, False)

    assert profile.train_flops == counter.get_total_flops() // 2


def test_image_model_sizes() -> None:
    assert model_profile(MODEL, model_json("cnn"), (3, 32, 32), 10, False).d == 62_006
    config = build_config({"data": {"dataset": "cifar10"}, "model": {"name": "cnn"}}, [])

    data = term(estimate(config), "train and test data")

    assert data.amount == (50_000 + 10_000) * (3 * 32 * 32 * 1 + 8)  # pixel bytes, labels


@pytest.mark.parametrize(
    ("config", "field"),
    [
        (WIDE, "data.synthetic_clustered.dimension"),
        (MANY_CLIENTS, "data.n_clients"),
        (PERIODIC_TRACE, "availability.trace.csv"),
    ],
)
def test_configs_that_exhausted_memory_name_their_field(config: dict[str, Any], field: str) -> None:
    found = estimate(build_config(config, []))

    assert found.host_bytes > 10 * 2**30
    assert dominant(config).field == field


def test_memories_of_many_clients_by_hand() -> None:
    memory = term(estimate(build_config(MANY_CLIENTS, [])), "fedlaavg's client memory")

    d = 10 * 2000 + 2000 + 2000 * 2 + 2
    assert memory.amount == 100_000 * d * 4  # 10.4 GB


def test_a_long_one_off_trace_costs_one_interval() -> None:
    found = estimate(build_config(LONG_TRACE, []))

    assert term(found, "trace").amount == 128 + 4 * 8
    assert found.host_bytes < 2**30


def peak_rss_kib() -> int:
    status = Path("/proc/self/status").read_text()
    return int(next(x for x in status.splitlines() if x.startswith("VmHWM:")).split()[1])


def test_estimating_allocates_none_of_the_run() -> None:
    configs = [build_config(c, []) for c in (WIDE, MANY_CLIENTS, PERIODIC_TRACE, SMALL)]
    estimate(configs[-1])  # modules loaded on first use
    Path("/proc/self/clear_refs").write_text("5")  # the peak restarts from here
    before = peak_rss_kib()

    found = [estimate(c) for c in configs]

    assert sum(f.host_bytes for f in found) > 2**40
    assert (peak_rss_kib() - before) * 1024 < 64 * 2**20


def test_a_model_too_large_to_describe_names_its_driver() -> None:
    model = {"name": "mlp", "mlp": {"hidden": 10**12}}  # furthest above its default (64)
    config = build_config({"data": {"synthetic_clustered": {"dimension": 10**9}}, "model": model})

    with pytest.raises(ConfigError, match=r"^model\.mlp\.hidden: the model cannot be built"):
        estimate(config)


def test_vmap_with_batch_norm_is_refused_before_running() -> None:
    config = build_config(
        {"data": {"dataset": "digits"}, "model": {"name": "resnet18"}, "backend": "vmap"}, []
    )

    with pytest.raises(ConfigError, match=r"^backend: vmap cannot train models with buffers"):
        estimate(config)


def test_a_softmax_regressions_packed_test_set_is_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    # SMALL's 24 × 150 test samples of 10 floats, packed once for the test logits'
    # product (`evaluate.pack`): 144 000 bytes more; none past the bound, and none for
    # an MLP
    packed = term(estimate(build_config(SMALL, [])), "evaluation of")
    mlp = term(estimate(build_config({**SMALL, "model": {"name": "mlp"}}, [])), "evaluation of")
    monkeypatch.setattr("worker.engine.resources.memory.PACK_BYTES", 24 * 150 * 10 * 4 - 1)
    bounded = term(estimate(build_config(SMALL, [])), "evaluation of")

    assert packed.label == "evaluation of 3600 samples at once, the test set packed once"
    assert packed.amount - bounded.amount == 24 * 150 * 10 * 4
    assert bounded.label == mlp.label == "evaluation of 3600 samples at once"


def test_training_memory_follows_the_backend() -> None:
    on = {**SMALL, "model": {"name": "mlp", "hidden": 100}}
    vmap = term(estimate(build_config(on, [])), "local training")
    one_by_one = term(estimate(build_config(on, ["backend=sequential"])), "local training")

    d = 10 * 100 + 100 + 100 * 2 + 2
    rows = 4 + 3  # per client 4 (K at once), fedlaavg's 3 rows of the round
    assert vmap.amount == rows * 6 * d * 4
    assert one_by_one.amount == ((1 + 3) * 6 + 4) * d * 4


# FedAvg of all 24 clients on an MLP of 2000 units: d = (10 + 1)·2000 + (2000 + 1)·2,
# and a sample's largest activation 2000 floats, so that a tile of the stacked form holds
# TILE_BYTES // (32 rows × 8000 bytes) = 10 clients on a CPU
EVERYONE = {**SMALL, "model": {"name": "mlp", "hidden": 2000}, "algorithm": {"name": "fedavg"}}
EVERYONE_D = 11 * 2000 + 2001 * 2


def training(*sets: str) -> tuple[Term, Term]:
    """The local training's term and its activations' of EVERYONE with `sets`."""
    found = estimate(build_config(EVERYONE, ["algorithm.participation=24", *sets]))
    return term(found, "local training"), term(found, "activations")


def test_a_sum_trained_a_tile_at_a_time_holds_no_rows_of_k() -> None:
    summed, activations = training()

    assert summed.amount == (4 * 10 + 1) * EVERYONE_D * 4  # 10 clients' state, the sum
    assert summed.label.startswith("local training: into their weighted sum; 4 × d per client,")
    assert "a tile of 10 clients at a time" in summed.label
    assert activations.label.startswith("activations of 10 × 32 samples")


def test_deltas_are_held_for_all_k_whatever_the_tile() -> None:
    # wait_for_all's step reads a buffer of earlier rounds: the deltas, its 2 round rows
    waiting, _ = training("algorithm.fedavg.wait_for_all=true")

    assert waiting.amount == (4 * 10 + (1 + 2) * 24) * EVERYONE_D * 4
    assert waiting.label.startswith("local training: into (K, d) deltas;")


@pytest.mark.parametrize(("kind", "copies"), [("central", 2), ("local", 3)])
def test_privacy_holds_the_deltas_and_its_copies_of_them(kind: str, copies: int) -> None:
    private, _ = training(f"privacy.kind={kind}", "algorithm.weights=uniform")

    assert private.amount == (4 * 10 + (1 + 2 + copies) * 24) * EVERYONE_D * 4


def test_an_accelerator_trains_all_k_at_once() -> None:
    # the K clients' state is their deltas there: no other row of K
    summed, activations = training("device=cuda")
    waiting, _ = training("device=cuda", "algorithm.fedavg.wait_for_all=true")

    assert summed.amount == (4 * 24 + 1) * EVERYONE_D * 4
    assert waiting.amount == (4 + 2) * 24 * EVERYONE_D * 4
    assert activations.amount == 24 / 10 * training()[1].amount


def test_sequential_training_into_the_sum_holds_one_client() -> None:
    summed, activations = training("backend=sequential")
    waiting, _ = training("backend=sequential", "algorithm.fedavg.wait_for_all=true")

    assert summed.amount == (4 + 1) * EVERYONE_D * 4
    assert waiting.amount == (4 + (1 + 2) * 24) * EVERYONE_D * 4
    assert activations.label.startswith("activations of 1 × 32 samples")


def test_the_estimate_tiles_as_the_backend_does() -> None:
    config = build_config(EVERYONE, ["algorithm.participation=24"])
    model = FlatModel(build_model(config.model, (10,), 2), "classification")

    tile = clients_at_once(model.stacked((10,)), "cpu", 24, 32)

    assert tile == 10
    assert f"a tile of {tile} clients" in training()[0].label


@pytest.mark.parametrize("name", sorted(current().algorithms.names()))
def test_footprint_counts_the_state_each_algorithm_keeps(name: str) -> None:
    n, d = 6, 5
    algorithm = make_algorithm(name, [1 / n] * n, dim=d, k=2)

    leaves = [t for t in _tensors(algorithm.state_dict()) if t.is_floating_point()]

    footprint = type(algorithm).footprint
    assert sum(t.shape == (n, d) for t in leaves) == footprint.client_rows
    assert sum(t.shape == (d,) for t in leaves) == footprint.vectors


def _tensors(value: Any) -> list[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors(v)]
    return []


def test_held_records_and_checkpoints_scale_their_terms() -> None:
    config: RunConfig = build_config(SMALL, ["rounds=1000"])

    one = estimate(config)
    many = estimate(config, held_rounds=600, held_states=4)

    assert term(many, "records").amount == 600 * term(one, "records").amount
    assert term(many, "checkpoint").amount == 4 * term(one, "checkpoint").amount


def test_an_async_ring_of_versions_is_counted_at_admission() -> None:
    sets = ["algorithm.name=fedbuff", "system.kind=profiles", "algorithm.fedbuff.buffer=4"]
    small = estimate(build_config(SMALL, [*sets, "algorithm.fedbuff.ring=4"]))
    large = estimate(build_config(SMALL, [*sets, "algorithm.fedbuff.ring=4000"]))

    ring = term(large, "fedbuff's ring of model versions")
    assert ring.amount == 1000 * term(small, "fedbuff's ring of model versions").amount
    assert ring.amount == 4000 * 2 * (10 + 1) * 4  # the linear model: d = 2 classes × 11
    assert ring.field == "algorithm.fedbuff.ring"
    assert term(small, "local training").label.endswith("K = 4")  # the buffer, at once


def test_a_run_holds_no_more_records_than_it_has_rounds() -> None:
    # the service may hold 600 rounds' records; a run of 3 rounds never makes more
    config: RunConfig = build_config(SMALL, ["rounds=3"])

    one = estimate(config)
    held = estimate(config, held_rounds=600)

    assert term(held, "records").amount == 3 * term(one, "records").amount
    assert term(held, "records").label.startswith("records of 3 rounds")
