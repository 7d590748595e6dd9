"""`server.momentum` and `server.weight_decay`: SGD on the pseudo-gradient −direction."""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor
from torch.testing import assert_close

from worker.engine import ListSink, build_config, simulate
from worker.engine.loop import Simulation
from worker.engine.resources import estimate
from worker.engine.sections import ServerConfig
from worker.engine.server import ServerOptimizer

W0 = torch.tensor([1.0, -2.0])
DIRECTIONS = [torch.tensor([0.5, 1.0]), torch.tensor([-1.0, 0.25])]


def buffer(server: ServerOptimizer) -> Tensor:
    assert server.buf is not None
    return server.buf


def test_two_rounds_by_hand_and_as_torch_sgd() -> None:
    server = ServerOptimizer(ServerConfig(lr=0.5, momentum=0.9, weight_decay=0.1), 2, W0.device)

    w1 = server.step(W0, DIRECTIONS[0])
    # g = −D + λw = (−0.5 + 0.1, −1 − 0.2) = (−0.4, −1.2); b = g; w = w − 0.5·b
    assert_close(buffer(server), torch.tensor([-0.4, -1.2]))
    assert_close(w1, torch.tensor([1.2, -1.4]))
    w2 = server.step(w1, DIRECTIONS[1])
    # g = (1 + 0.12, −0.25 − 0.14) = (1.12, −0.39); b = 0.9·(−0.4, −1.2) + g = (0.76, −1.47)
    assert_close(buffer(server), torch.tensor([0.76, -1.47]))
    assert_close(w2, torch.tensor([1.2 - 0.38, -1.4 + 0.735]))

    param = torch.nn.Parameter(W0.clone())
    sgd = torch.optim.SGD([param], lr=0.5, momentum=0.9, weight_decay=0.1)
    for direction in DIRECTIONS:
        param.grad = -direction
        sgd.step()
    assert_close(w2, param.detach())
    assert_close(buffer(server), sgd.state[param]["momentum_buffer"])


def test_no_direction_leaves_model_and_buffer() -> None:
    server = ServerOptimizer(ServerConfig(lr=1.0, momentum=0.9, weight_decay=0.1), 2, W0.device)
    w1 = server.step(W0, DIRECTIONS[0])
    buf = buffer(server).clone()

    assert server.step(w1, None) is w1
    assert torch.equal(buffer(server), buf)


def test_plain_step_is_bitwise_the_old_update() -> None:
    server = ServerOptimizer(ServerConfig(lr=0.3), 2, W0.device)
    direction = torch.randn(2, generator=torch.Generator().manual_seed(0))

    assert torch.equal(server.step(W0, direction), W0 + 0.3 * direction)
    assert server.buf is None and server.state_dict() == {}


def _records(*overrides: str) -> list[dict[str, Any]]:
    sink = ListSink()
    cfg = build_config({"rounds": 4, "eval": {"every": 1}}, ["seed=3", *overrides])
    simulate(cfg, sink)
    return [r.deterministic() for r in sink.records]


def test_momentum_changes_the_run_from_its_second_step() -> None:
    plain = _records()
    heavy = _records("server.momentum=0.9")

    # the first step's buffer is its pseudo-gradient: the same model after round 0
    assert heavy[0] == plain[0]
    assert heavy[1]["test_loss"] != plain[1]["test_loss"]


def test_buffer_is_checkpointed_and_an_old_checkpoint_loads_as_zeros() -> None:
    cfg = build_config({"rounds": 3}, ["server.momentum=0.9", "server.weight_decay=0.01"])
    sim = Simulation(cfg)
    sim.round(0)
    state = sim.state_dict(1)
    assert torch.equal(state["server"]["momentum"], buffer(sim.server).cpu())
    assert float(state["server"]["momentum"].abs().sum()) > 0

    fresh = Simulation(cfg)  # a checkpoint of version 1 had no server state
    fresh.load_state_dict({**{k: v for k, v in state.items() if k != "server"}, "version": 1})
    assert not buffer(fresh.server).any()
    fresh.load_state_dict(state)
    assert torch.equal(buffer(fresh.server).cpu(), state["server"]["momentum"])


def test_estimate_counts_the_buffer() -> None:
    def vectors(*overrides: str) -> float:
        memory = estimate(build_config({}, list(overrides))).memory
        [found] = [t for t in memory if t.label.startswith("model and server vectors")]
        return found.amount

    d = 10 * 2 + 2  # the default linear model on 10 features, 2 classes
    assert vectors("server.momentum=0.9") - vectors() == d * 4
    assert vectors("server.weight_decay=0.1") == vectors()
