"""Each partition against a split computed by hand, with a generator whose draws are
fixed (permutations are the identity, Dirichlet proportions given); old flat keys; a
plug-in partition; the view of a partition."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from worker.engine import (
    ConfigError,
    ListSink,
    build_config,
    run_config_for,
    section_class,
    simulate,
)
from worker.engine.components import builtin, current, using
from worker.engine.data import Grouped, PartitionError, load_data
from worker.engine.data.federated import FederatedData
from worker.engine.data.partitions.base import Partition, PartitionContext
from worker.engine.data.partitions.by_class import by_class
from worker.engine.data.partitions.dirichlet import dirichlet
from worker.engine.data.partitions.iid import iid
from worker.engine.data.partitions.natural import Natural, NaturalParams
from worker.engine.data.partitions.pathological import pathological
from worker.engine.data.view import MAX_SHOWN, partition_view, shown_clients
from worker.engine.facts import DatasetFacts
from worker.engine.registry import RegistrationError, dataset, declared, partition, selected
from worker.engine.resources import estimate
from worker.engine.sections import DataSection

DataConfig = section_class(current(), DataSection)


class Fixed(np.random.Generator):
    """Permutations are the identity; Dirichlet proportions are `props`."""

    def __init__(self, props: list[float] | None = None) -> None:
        super().__init__(np.random.PCG64(0))
        self.props = np.array(props or [])

    def permutation(self, x: Any, axis: int = 0) -> np.ndarray:
        return np.arange(x) if isinstance(x, int) else np.asarray(x)

    def dirichlet(self, alpha: Any, size: Any = None) -> np.ndarray:
        return self.props


def lists(parts: list[np.ndarray]) -> list[list[int]]:
    return [p.tolist() for p in parts]


def test_iid_cuts_the_shuffled_rows_larger_shares_first() -> None:
    assert lists(iid(5, 2, Fixed())) == [[0, 1, 2], [3, 4]]


def test_by_class_shares_each_class_among_its_holders() -> None:
    labels = np.array([0, 0, 1, 1, 0, 1])
    # clients 0, 2 hold class 0 (rows 0, 1, 4): 3 rows over 2 → 1 and 2; likewise class 1
    assert lists(by_class(labels, 4, 1, "balanced", 0.0, Fixed())) == [[0], [2], [1, 4], [3, 5]]


def test_dirichlet_cuts_each_class_at_the_cumulative_proportions() -> None:
    labels = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    # p = (½, ¼, ¼): each class's 4 rows cut at ⌊4·½⌋ = 2 and ⌊4·¾⌋ = 3
    parts = dirichlet(labels, 3, 0.5, Fixed([0.5, 0.25, 0.25]))

    assert lists(parts) == [[0, 1, 4, 5], [2, 6], [3, 7]]


def test_pathological_deals_classes_round_robin_and_halves_each_class() -> None:
    labels = np.array([0, 0, 1, 1, 2, 2, 3, 3])
    # slots (k·2 + j) mod 4: clients 0 and 2 hold {0, 1}, clients 1 and 3 hold {2, 3};
    # each class's 2 rows go one to each of its 2 holders
    assert lists(pathological(labels, 4, 2, Fixed())) == [[0, 2], [4, 6], [1, 3], [5, 7]]


def test_pathological_gives_a_class_with_fewer_holders_larger_shares() -> None:
    labels = np.array([0, 0, 0, 1, 1, 1])
    # one class a client, 3 clients over 2 classes: class 0 to clients 0 and 2, 1 to client 1
    assert lists(pathological(labels, 3, 1, Fixed())) == [[0, 1], [3, 4, 5], [2]]


def test_pathological_clients_hold_exactly_n_classes_evenly_held() -> None:
    labels = np.repeat(np.arange(10), 50)

    parts = pathological(labels, 25, 2, np.random.default_rng(3))

    held = [np.unique(labels[p]) for p in parts]
    assert all(len(h) == 2 for h in held)
    assert sorted(np.bincount(np.concatenate(held)).tolist()) == [5] * 10
    assert sorted(np.concatenate(parts).tolist()) == list(range(500))


def natural_pool() -> Grouped:
    x = torch.arange(5, dtype=torch.float32).view(-1, 1)  # x = train row
    xt = 10 + torch.arange(4, dtype=torch.float32).view(-1, 1)  # x = 10 + test row
    y, yt = torch.tensor([0, 1, 0, 1, 2]), torch.tensor([2, 0, 1, 1])
    users = {"users": np.array([7, 3, 7, 3, 9])}
    return Grouped((x, y, xt, yt), users, {"users": np.array([9, 3, 3, 5])})


def natural(n_clients: int) -> FederatedData:
    ctx = PartitionContext("digits", n_clients, n_classes=3)
    return Natural(NaturalParams()).split(natural_pool(), ctx, Fixed())


def test_natural_makes_one_client_per_user_with_its_own_test_rows() -> None:
    data = natural(3)

    # users 3, 7, 9 in order: train rows [1, 3], [0, 2], [4]; test rows [1, 2], none, [0];
    # test row 3 (user 5, who has no train rows) belongs to nobody
    assert data.x_train.flatten().tolist() == [1, 3, 0, 2, 4]
    assert data.train_offsets.tolist() == [0, 2, 4, 5]
    assert data.x_test.flatten().tolist() == [11, 12, 10, 13]
    assert data.test_offsets.tolist() == [0, 2, 2, 3]


def test_split_reads_the_cap_and_the_clients_from_its_context() -> None:
    class Halves(Partition):
        def rows(
            self, labels: np.ndarray, n_clients: int, rng: np.random.Generator
        ) -> list[np.ndarray]:
            return np.array_split(np.arange(len(labels)), n_clients)

    ctx = PartitionContext("digits", n_clients=2, n_classes=3, max_train_samples=3)
    data = Halves().split(natural_pool(), ctx, Fixed())

    # the identity permutation keeps train rows 0, 1, 2; halves give [0, 1] and [2]
    assert data.x_train.flatten().tolist() == [0, 1, 2]
    assert data.train_offsets.tolist() == [0, 2, 3]


def test_natural_with_another_number_of_clients_names_the_key() -> None:
    with pytest.raises(PartitionError, match=r"^data\.n_clients: digits has 3 users .*=3$"):
        natural(4)


def test_the_view_counts_each_clients_classes() -> None:
    view = partition_view(natural(3))

    assert (view.clients, view.sizes, view.test_sizes) == ([0, 1, 2], [2, 2, 1], [2, 0, 1])
    assert view.counts == [[0, 2, 0], [2, 0, 0], [0, 0, 1]]
    assert (view.total, view.smallest, view.largest, view.sampled) == (5, 1, 2, False)


def test_the_view_samples_evenly_above_its_cap() -> None:
    assert shown_clients(5, 3).tolist() == [0, 2, 4]
    assert shown_clients(3, 3).tolist() == [0, 1, 2]
    assert len(shown_clients(10**6, MAX_SHOWN)) == MAX_SHOWN

    view = partition_view(natural(3), max_clients=2)

    assert (view.clients, view.sizes, view.sampled, view.total) == ([0, 2], [2, 1], True, 5)


def test_the_view_of_one_client_and_of_a_regression_dataset() -> None:
    config = build_config(
        {
            "data": {"dataset": "mean_estimation", "n_clients": 1},
            "model": {"name": "scalar"},
            "algorithm": {"participation": 1},
        }
    )

    view = partition_view(load_data(config.data, config.seed))

    assert (view.n_clients, view.n_classes, view.counts) == (1, 0, [[]])
    assert view.smallest == view.largest == view.total == view.sizes[0]


OLD_KEYS = {
    "classes_per_client": 3,
    "sizes": "normal",
    "size_std": 0.2,
    "dirichlet_alpha": 0.1,
    "n_clusters": 3,
    "swap_pairs": 1,
    "population_g": 0.3,
    "population_nu": 0.5,
}


def test_old_flat_keys_load_where_they_live_now() -> None:
    config = build_config({"data": {"dataset": "digits", "partition": "dirichlet", **OLD_KEYS}})

    d: Any = config.data
    assert (d.by_class.classes_per_client, d.by_class.sizes, d.by_class.size_std) == (
        3,
        "normal",
        0.2,
    )
    assert d.dirichlet.alpha == 0.1
    assert d.clusters.n_clusters == d.label_swap.n_clusters == d.incongruent.n_clusters == 3
    assert d.label_swap.swap_pairs == d.incongruent.swap_pairs == 1
    assert (d.incongruent.population_g, d.incongruent.population_nu) == (0.3, 0.5)
    assert not set(OLD_KEYS) & set(config.model_dump()["data"])


def test_an_old_key_and_its_new_place_give_the_same_partition() -> None:
    base = {"dataset": "digits", "n_clients": 12, "partition": "dirichlet"}
    old = build_config({"data": {**base, "dirichlet_alpha": 0.2}})
    new = build_config({"data": {**base, "dirichlet": {"alpha": 0.2}}}, ["data.seed=5"])
    old = build_config(old.model_dump(), ["data.seed=5"])

    assert torch.equal(load_data(old.data, 0).train_offsets, load_data(new.data, 0).train_offsets)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"partition": "pathological", "pathological": {"classes_per_client": 11}},
            r"data\.pathological\.classes_per_client: 11 exceeds the 10 classes of digits",
        ),
        ({"partition": "natural"}, r"data\.natural\.by: digits has no users"),
        (
            {"partition": "natural", "natural": {"by": "writer"}},
            r"data\.natural\.by: digits has no column 'writer'",
        ),
        ({"partition": "clusters"}, r"data\.partition: digits supports 'by_class', .*'clusters'"),
    ],
)
def test_impossible_partitions_name_the_key(data: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        build_config({"data": {"dataset": "digits", **data}})


def test_a_dataset_with_users_defaults_to_them() -> None:
    config = build_config({"data": {"dataset": "synthetic_clustered"}})
    assert config.data.partition == "clusters"  # a generated dataset's own
    config = build_config({"data": {"dataset": "digits"}})
    assert config.data.partition == "iid"


class OneClass(Partition):
    """Client k holds the rows of class k."""

    def rows(
        self, labels: np.ndarray, n_clients: int, rng: np.random.Generator
    ) -> list[np.ndarray]:
        return [rng.permutation(np.flatnonzero(labels == k)) for k in range(n_clients)]


def test_a_plugin_partition_registers_shows_in_the_schema_and_runs() -> None:
    start = len(declared())
    partition("one_class", label="one class a client")(OneClass)
    components = builtin().include(*declared(start))

    with using(components):
        schema = run_config_for(components).model_json_schema()
        config = build_config(
            {"rounds": 2, "data": {"dataset": "digits", "n_clients": 10, "partition": "one_class"}}
        )
        data = load_data(config.data, config.seed)
        sink = ListSink()
        simulate(config, sink)

    field = schema["$defs"]["DataConfig"]["properties"]["partition"]
    assert "one_class" in field["enum"] and field["x-labels"]["one_class"] == "one class a client"
    assert selected(config.data, components.partitions)[0].name == "one_class"
    y, off = data.y_train, data.train_offsets
    assert [set(y[off[k] : off[k + 1]].tolist()) for k in range(10)] == [{k} for k in range(10)]
    assert [r.round for r in sink.records] == [0, 1]


def test_a_partition_cannot_take_a_datasets_name() -> None:
    start = len(declared())
    partition("digits")(OneClass)

    with pytest.raises(RegistrationError, match="already registered"):
        builtin().include(*declared(start))


def writers(params: Any, cfg: Any, rng: np.random.Generator) -> Grouped:
    """A dataset whose samples belong to users and sites: `natural_pool`'s, with a site
    column (users 3 and 7 at site 0, user 9 at site 1)."""
    pool = natural_pool()
    site = {"site": np.array([0, 0, 0, 0, 1])}
    test_site = {"site": np.array([1, 0, 0, 1])}
    return Grouped(pool.pool, {**pool.train_groups, **site}, {**pool.test_groups, **test_site})


def test_a_dataset_with_users_is_split_by_them_by_default_or_by_a_column() -> None:
    facts = DatasetFacts(
        3, "vector", "generated", shape=(1,), train=5, test=4, users=True, columns=("site",)
    )
    start = len(declared())
    dataset("writers", facts=facts)(writers)
    run = {"rounds": 1, "algorithm": {"participation": 1}}

    with using(builtin().include(*declared(start))):
        by_user = build_config({**run, "data": {"dataset": "writers", "n_clients": 3}})
        by_site = build_config(
            {
                **run,
                "data": {"dataset": "writers", "n_clients": 2, "natural": {"by": "site"}},
            }
        )
        users, sites = load_data(by_user.data, 0), load_data(by_site.data, 0)
        largest = estimate(by_user)  # a natural client may hold every row

    assert by_user.data.partition == "natural"
    assert (users.sizes.tolist(), users.test_offsets.diff().tolist()) == ([2, 2, 1], [2, 0, 1])
    # site 0: train rows 0–3, test rows 1, 2; site 1: train row 4, test rows 0, 3
    assert (sites.sizes.tolist(), sites.x_test.flatten().tolist()) == ([4, 1], [11, 12, 10, 13])
    assert largest.host_bytes > 0
