import torch
from torch.testing import assert_close

from tests.engine.contexts import make_context
from worker.engine import ListSink, build_config, simulate
from worker.engine.algorithms import FedAvg, Scaffold


def test_zero_control_variates_give_the_fedavg_step() -> None:
    ctx = make_context([0.5, 0.25, 0.25], dim=2, k=2, assignments=["client.local_steps=2"])
    scaffold, fedavg = Scaffold(ctx), FedAvg(ctx)
    ids, deltas = torch.tensor([0, 2]), torch.tensor([[1.0, -2.0], [3.0, 0.5]])

    corr = scaffold.correction(ids)
    a = scaffold.aggregate(0, torch.zeros(2), ids, deltas, lr=0.5)
    b = fedavg.aggregate(0, torch.zeros(2), ids, deltas, lr=0.5)

    assert_close(corr, torch.zeros(2, 2))
    assert_close(a.w, b.w)
    assert_close(a.weights, b.weights)


def test_option_two_control_update_by_hand() -> None:
    ctx = make_context([0.5, 0.5], dim=2, k=1, assignments=["client.local_steps=2"])
    algo = Scaffold(ctx)

    algo.aggregate(0, torch.zeros(2), torch.tensor([0]), torch.tensor([[1.0, -2.0]]), lr=0.5)

    # c_0⁺ = 0 − 0 − Δ/(2·0.5) = (−1, 2); c = 0 + α_0·(−1, 2)
    assert_close(algo.controls, torch.tensor([[-1.0, 2.0], [0.0, 0.0]]))
    assert_close(algo.c, torch.tensor([-0.5, 1.0]))
    assert_close(algo.correction(torch.tensor([0, 1])), torch.tensor([[0.5, -1.0], [-0.5, 1.0]]))


def test_first_round_of_a_run_equals_fedavg() -> None:
    def first_round(name: str) -> dict[str, object]:
        cfg = build_config({"rounds": 1}, [f"algorithm.name={name}", "availability.kind=markov"])
        sink = ListSink()
        simulate(cfg, sink)
        return sink.records[0].deterministic()

    assert first_round("scaffold") == first_round("fedavg")
