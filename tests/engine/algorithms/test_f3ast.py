import torch
from torch.testing import assert_close

from tests.engine.contexts import aggregate, gen, make_algorithm, mask
from worker.engine.algorithms.f3ast import F3ast


def test_top_k_by_alpha_over_pi_hat() -> None:
    algo = make_algorithm(
        F3ast, [0.4, 0.3, 0.2, 0.1], dim=1, k=1, assignments=["algorithm.f3ast.beta=0.5"]
    )

    first = algo.select(0, torch.zeros(1), mask(1, 0, 1, 1), gen()).selected
    # π̂ = 0.5·0.5 + 0.5·on = (0.75, 0.25, 0.75, 0.75): α/π̂ largest for client 0
    second = algo.select(1, torch.zeros(1), mask(1, 1, 1, 0), gen()).selected
    # π̂ = (0.875, 0.625, 0.875, 0.375): α/π̂ = (0.457, 0.48, 0.229) among the available
    step = aggregate(algo, 1, torch.zeros(1), second, torch.tensor([[1.0]]), lr=0.1)

    assert first.tolist() == [0]
    assert second.tolist() == [1]
    assert_close(algo.pi, torch.tensor([0.875, 0.625, 0.875, 0.375], dtype=torch.float64))
    assert_close(step.weights, torch.tensor([0.0, 0.48, 0.0, 0.0]))
    assert_close(step.w, torch.tensor([0.48]))


def test_beta_defaults_to_one_over_rounds() -> None:
    algo = make_algorithm(F3ast, [0.5, 0.5], dim=1, k=2, assignments=["rounds=4"])

    algo.select(0, torch.zeros(1), mask(1, 0), gen())

    assert_close(algo.pi, torch.tensor([0.625, 0.375], dtype=torch.float64))


def test_oracle_smoothed_pi_restarts_from_the_true_pi_every_round() -> None:
    """The CA-Fed authors' π̂: (1 − β)π + β·1[available], not a running average."""
    pi = torch.tensor([0.1, 0.9], dtype=torch.float64)
    algo = make_algorithm(
        F3ast,
        [0.5, 0.5],
        dim=1,
        k=1,
        assignments=["algorithm.f3ast.pi_estimate=oracle_smoothed", "rounds=4"],
        pi=pi,
    )

    algo.select(0, torch.zeros(1), mask(1, 0), gen())
    assert_close(algo.pi, torch.tensor([0.325, 0.675], dtype=torch.float64))  # ¾π + ¼·on
    picked = algo.select(1, torch.zeros(1), mask(1, 1), gen()).selected
    assert_close(algo.pi, torch.tensor([0.325, 0.925], dtype=torch.float64))
    # α/π̂ = (1.54, 0.54): the rarely available client 0 is the one chosen
    assert picked.tolist() == [0]
