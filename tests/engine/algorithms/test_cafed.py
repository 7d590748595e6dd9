import pytest
import torch
from torch.testing import assert_close

from tests.engine.contexts import aggregate, gen, make_algorithm, mask
from worker.engine.algorithms.cafed import CaFed, allocation, estimated_error
from worker.engine.algorithms.estimators import (
    empty_counts,
    filter_losses,
    lam_hat,
    observe,
    pi_hat,
)
from worker.engine.overrides import ConfigError, build_config

F64 = torch.float64
ALPHA = torch.full((3,), 1 / 3, dtype=F64)
# client 0: rarely available and strongly correlated; 1 and 2: often available, λ ≈ 0
PI = torch.tensor([0.1, 0.9, 0.9], dtype=F64)
LAM = torch.tensor([0.9, 0.0, 0.0], dtype=F64)


def test_bayesian_counts_give_pi_and_lambda() -> None:
    counts = empty_counts(1)
    for on in (1, 1, 0, 1):
        counts = observe(counts, mask(on).mask)

    # π̂ = (1 + 3)/(2 + 4); P̂(on→off) = (1+1)/(2+2), P̂(off→on) = (1+1)/(2+1)
    assert_close(pi_hat(counts, 1.0), torch.tensor([2 / 3], dtype=F64))
    assert_close(lam_hat(counts, 1.0), torch.tensor([1 - 0.5 - 2 / 3], dtype=F64))


def test_loss_filter_fills_then_smooths_and_tracks_the_minimum() -> None:
    zeros = torch.zeros(3, dtype=F64)

    loss, low = filter_losses(
        zeros, zeros, False, torch.tensor([0, 1]), torch.tensor([1.0, 3.0]), 0.5
    )
    assert_close(loss, torch.tensor([1.0, 3.0, 2.0], dtype=F64))  # client 2: the reporters' mean
    assert_close(low, torch.tensor([1.0, 3.0, 2.0], dtype=F64))

    loss, low = filter_losses(loss, low, True, torch.tensor([0, 2]), torch.tensor([2.0, 1.0]), 0.5)
    assert_close(loss, torch.tensor([1.5, 3.0, 1.5], dtype=F64))  # 0.5·1 + 0.5·2; 0.5·2 + 0.5·1
    assert_close(low, torch.tensor([1.0, 3.0, 1.0], dtype=F64))  # client 1 did not report


def test_estimated_error_by_hand() -> None:
    gap = torch.tensor([0.9, 0.1, 0.1], dtype=F64)
    q = torch.tensor([0.0, 1.0, 1.0], dtype=F64)

    # p = (0, ½, ½); TV = ½(⅓ + ⅙ + ⅙) = ⅓; ε̂ = 0.1 + (⅓)²·0.9
    assert abs(estimated_error(q, ALPHA, PI, gap, 0.9) - 0.2) < 1e-12


def test_excludes_the_rare_correlated_client_and_keeps_the_available_ones() -> None:
    gap = torch.tensor([0.9, 0.1, 0.1], dtype=F64)

    q = allocation(ALPHA, PI, LAM, gap, tau=0.0)

    # dropping client 0 lowers ε̂ from 1.1/3 to 0.2; dropping 1 or 2 too would raise it to 0.5
    assert_close(q, torch.tensor([0.0, 1 / 2.7, 1 / 2.7], dtype=F64))


def test_keeps_everyone_when_the_bias_outweighs_the_gain() -> None:
    gap = torch.full((3,), 0.3, dtype=F64)

    q = allocation(ALPHA, PI, LAM, gap, tau=0.0)

    # without client 0: 0.3 + 0.3/9 > 0.3
    assert_close(q, ALPHA / PI)


def test_orders_by_the_magnitude_of_lambda() -> None:
    # ε̂ falls most by dropping client 2 (gap 0.9); it leads the order only by |λ̂|
    gap = torch.tensor([0.1, 0.1, 0.9], dtype=F64)
    pi = torch.tensor([0.9, 0.9, 0.1], dtype=F64)

    by_size = allocation(ALPHA, pi, torch.tensor([0.0, 0.0, -0.9], dtype=F64), gap, tau=0.0)
    assert by_size[2] == 0.0


def test_ties_keep_an_exclusion_only_when_accepted() -> None:
    # all gaps 0: Γ̂ = 0 and ε̂ = 0 whatever q is, so every exclusion is a tie; with ties
    # accepted clients go in |λ̂| order until one is left (the sum may not reach 0)
    gap = torch.zeros(3, dtype=F64)

    assert_close(allocation(ALPHA, PI, LAM, gap, tau=0.0), ALPHA / PI)
    kept = allocation(ALPHA, PI, LAM, gap, tau=0.0, ties=True)
    assert_close(kept, torch.tensor([0.0, 0.0, 1 / 2.7], dtype=F64))


def test_threshold_tau_blocks_small_gains() -> None:
    gap = torch.tensor([0.9, 0.1, 0.1], dtype=F64)

    q = allocation(ALPHA, PI, LAM, gap, tau=0.2)  # the gain is 1.1/3 − 0.2 ≈ 0.167 < 0.2

    assert_close(q, ALPHA / PI)


def test_probes_every_available_client_and_trains_the_kept_ones() -> None:
    script = {1: [0.5, 0.5, 0.5], 2: [1.4, 0.6, 0.6]}  # losses reported at rounds 1 and 2
    probed: list[list[int]] = []

    def probe(w: torch.Tensor, clients: torch.Tensor, t: int) -> torch.Tensor:
        probed.append(clients.tolist())
        return torch.tensor(script[t])[clients]

    algo = make_algorithm(
        CaFed,
        [1 / 3] * 3,
        dim=1,
        k=3,
        assignments=["algorithm.cafed.estimator=oracle", "algorithm.cafed.beta=0"],
        pi=PI,
        lam=LAM,
        probe_loss=probe,
    )
    everyone = mask(1, 1, 1)
    w = torch.zeros(1)
    for t in (0, 1):  # no loss yet at 0, all gaps 0 at 1: nobody excluded
        picked = algo.select(t, w, everyone, gen()).selected
        assert picked.tolist() == [0, 1, 2]
        applied = aggregate(algo, t, w, picked, torch.ones(3, 1), lr=0.1)
        assert applied.metrics == {"cafed_excluded": 0.0}
        w = applied.w

    picked = algo.select(2, w, everyone, gen()).selected
    step = aggregate(algo, 2, w, picked, torch.ones(2, 1), lr=0.1)

    assert probed == [[0, 1, 2], [0, 1, 2]]
    assert picked.tolist() == [1, 2]  # gaps (0.9, 0.1, 0.1) as in the constructed case
    assert_close(step.weights, torch.tensor([0.0, 1 / 2.7, 1 / 2.7]))
    assert step.metrics == {"cafed_excluded": 1.0}  # client 0, q_0 = 0


def test_probes_with_the_ids_on_the_cpu_whatever_the_device() -> None:
    """The trainer indexes its CPU rows with the probed ids: on a GPU run, ids moved to the
    device failed there ("indices should be either on cpu or on the same device"). A
    device the ids must not reach (meta) stands in for the GPU."""
    devices: list[str] = []

    def probe(w: torch.Tensor, clients: torch.Tensor, t: int) -> torch.Tensor:
        devices.append(clients.device.type)
        return torch.ones(len(clients))

    algo = make_algorithm(
        CaFed, [1 / 3] * 3, dim=1, k=3, pi=PI, lam=LAM, probe_loss=probe,
        device=torch.device("meta"),
    )  # fmt: skip
    for t in (0, 1, 2):
        algo.select(t, torch.zeros(1), mask(1, 1, 1), gen())

    assert devices == ["cpu", "cpu"]  # rounds 1 and 2 (the batch probe starts at 1)


def test_test_split_probe_and_local_optima_from_round_zero() -> None:
    """The authors' estimator: losses on the test split from round 0, F̂* solved once."""
    probed: list[tuple[int, list[int]]] = []

    def test_loss(w: torch.Tensor, clients: torch.Tensor) -> torch.Tensor:
        probed.append((len(probed), clients.tolist()))
        return torch.tensor([1.0, 0.2, 0.2])[clients]

    solved = []

    def optima() -> torch.Tensor:
        solved.append(1)
        return torch.tensor([0.1, 0.1, 0.1], dtype=F64)

    algo = make_algorithm(
        CaFed,
        [1 / 3] * 3,
        dim=1,
        k=3,
        assignments=[
            "algorithm.cafed.estimator=oracle",
            "algorithm.cafed.loss_probe=test_split",
            "algorithm.cafed.optimum=local_solver",
            "algorithm.cafed.beta=0.001",
        ],
        pi=PI,
        lam=LAM,
        test_loss=test_loss,
        local_optima=optima,
    )
    picked = algo.select(0, torch.zeros(1), mask(1, 1, 1), gen()).selected

    # gaps (0.9, 0.1, 0.1) at round 0 already: client 0 goes, as in the constructed case
    assert probed == [(0, [0, 1, 2])]
    assert picked.tolist() == [1, 2]
    algo.select(1, torch.zeros(1), mask(0, 1, 1), gen())
    assert probed[1] == (1, [1, 2]) and solved == [1]  # solved once


def test_local_solver_needs_a_classification_dataset() -> None:
    with pytest.raises(ConfigError, match=r"algorithm\.cafed\.optimum: local_solver"):
        build_config(
            {"data": {"dataset": "mean_estimation", "n_clients": 2}, "model": {"name": "scalar"}},
            [
                "algorithm.name=cafed",
                "algorithm.cafed.optimum=local_solver",
                "algorithm.participation=2",
            ],
        )
