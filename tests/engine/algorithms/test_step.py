"""A round's step by hand: the weighted step and the weights the record reads from it."""

import torch

from worker.engine.algorithms.base import Step, weighted_step


def test_weighted_step_names_the_clients_it_weights() -> None:
    deltas = torch.tensor([[1.0, 0.0], [0.0, 2.0]])

    step = weighted_step(4, torch.tensor([1, 3]), torch.tensor([0.5, 0.25]), deltas)

    assert step.direction is not None and step.direction.tolist() == [0.5, 0.5]
    assert step.entered is not None and step.entered.tolist() == [1, 3]
    assert step.weights.tolist() == [0.5, 0.25]  # those clients' alone: no (N,) vector
    assert step.dense_weights(4).tolist() == [0.0, 0.5, 0.0, 0.25]


def test_weighted_step_leaves_ids_out_of_order_to_the_search() -> None:
    # a repeated client: the (N,) weights hold its last weight only, so the record
    # must read them there rather than from the ids
    step = weighted_step(3, torch.tensor([2, 2]), torch.tensor([0.5, 0.25]), torch.eye(2))

    assert step.entered is None
    weights = step.client_weights()
    assert weights.ids.tolist() == [2] and weights.values.tolist() == [0.25]


def test_client_weights_by_hand() -> None:
    # the same weights, found by a search over N, or read at the clients named from the
    # (N,) vector or from theirs alone (client 2 entered with weight 0: it is left out,
    # as the search leaves it out)
    dense = torch.tensor([0.0, 0.5, 0.0, 0.25])
    searched = Step(None, dense).client_weights()
    read = Step(None, dense, entered=torch.tensor([1, 2, 3])).client_weights()

    sparse = Step(None, torch.tensor([0.5, 0.0, 0.25]), entered=torch.tensor([1, 2, 3]))
    assert sparse.dense_weights(4).tolist() == dense.tolist()

    for weights in (searched, read, sparse.client_weights()):
        assert weights.ids.tolist() == [1, 3] and weights.values.tolist() == [0.5, 0.25]
        assert weights.ids.dtype.name == "int64"
