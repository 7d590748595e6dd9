"""The new-run form shows the chosen dataset's and partition's own fields only."""

from __future__ import annotations

from typing import Any

import pytest

from tests.frontend.test_pages import open_preset

pytestmark = pytest.mark.browser


def shown(page: Any, path: str) -> bool:
    return bool(page.locator(f'.field[data-path="{path}"]').is_visible())


def test_fields_follow_the_dataset_and_the_partition(page: Any, server: str) -> None:
    open_preset(page, server, "example1")  # mean_estimation, iid
    assert shown(page, "data.mean_estimation.means") and shown(page, "data.mean_estimation.sigma")
    assert not shown(page, "data.synthetic_clustered.dimension") and not shown(page, "data.root")
    assert not shown(page, "data.by_class.classes_per_client")

    page.select_option('[name="data.dataset"]', "cifar10")
    assert shown(page, "data.root") and shown(page, "data.download")
    assert not shown(page, "data.mean_estimation.means") and not shown(
        page, "data.synthetic_clustered.train_per_client"
    )

    page.select_option('[name="data.partition"]', "by_class")
    assert shown(page, "data.by_class.classes_per_client") and shown(page, "data.by_class.sizes")
    assert not shown(page, "data.dirichlet.alpha")
    page.select_option('[name="data.partition"]', "dirichlet")
    assert shown(page, "data.dirichlet.alpha") and not shown(
        page, "data.by_class.classes_per_client"
    )
    page.select_option('[name="data.partition"]', "pathological")
    assert shown(page, "data.pathological.classes_per_client") and not shown(
        page, "data.dirichlet.alpha"
    )

    open_preset(page, server, "cafed-synthetic")  # filling the form shows the right set
    assert shown(page, "data.synthetic_clustered.dimension")
    assert shown(page, "data.clusters.n_clusters")
    page.select_option('[name="data.partition"]', "auto")  # the dataset's own: clusters
    assert shown(page, "data.clusters.n_clusters")
    assert not shown(page, "data.mean_estimation.means") and not shown(page, "data.root")
