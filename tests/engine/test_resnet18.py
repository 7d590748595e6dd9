"""ResNet-18 (batch norm) through the sequential backend, chosen by `backend: auto`."""

from typing import Any

import pytest
import torch

from worker.engine import ListSink, RunConfig, build_config, section_class, simulate
from worker.engine.components import current
from worker.engine.loop import Simulation
from worker.engine.models import build_model, has_buffers
from worker.engine.sections import ModelSection

ModelConfig = section_class(current(), ModelSection)


def config(*extra: str) -> RunConfig:
    base: dict[str, Any] = {
        "rounds": 3,
        "data": {"dataset": "digits", "partition": "iid", "n_clients": 4},
        "model": {"name": "resnet18"},
        "algorithm": {"name": "fedavg", "participation": 2},
        "client": {"local_steps": 1, "batch_size": 4, "lr": 0.05},
        "eval": {"checkpoint_every": 1, "batch_size": 512},
    }
    return build_config(base, list(extra))


@pytest.mark.slow
def test_resnet18_has_11m_parameters_and_batch_norm_buffers() -> None:
    model = build_model(ModelConfig(name="resnet18"), (3, 32, 32), 10)

    assert sum(p.numel() for p in model.parameters()) == 11_173_962
    assert has_buffers(model)


def test_auto_backend_picks_sequential_and_averages_the_statistics() -> None:
    sim = Simulation(config())
    before = {n: b.clone() for n, b in sim.model.buffers.items()}

    sim.round(0)

    assert sim.backend == "sequential"
    mean = "stem.1.running_mean"
    assert not torch.equal(sim.model.buffers[mean], before[mean])
    assert int(sim.model.buffers["stem.1.num_batches_tracked"]) == 1  # mean of 1 and 1


def test_resume_restores_the_batch_norm_statistics() -> None:
    cfg = config()
    straight, first = ListSink(), ListSink()
    simulate(cfg, straight)
    simulate(cfg, first, should_stop=lambda: len(first.records) >= 1)
    assert first.checkpoint is not None and first.checkpoint["round"] == 1

    resumed = ListSink()
    simulate(cfg, resumed, checkpoint=first.checkpoint)

    combined = [r.deterministic() for r in first.records[:1] + resumed.records]
    assert combined == [r.deterministic() for r in straight.records]
