"""Generated datasets: CA-Fed's clustered logistic data and FedLaAvg's mean estimation."""

from __future__ import annotations

import numpy as np
import torch
from pydantic import Field

from worker.engine.data.federated import FederatedData, offsets
from worker.engine.data.partitions.clusters import ClustersParams, contiguous_clusters
from worker.engine.data.population import PopulationG, PopulationNu, draw_cafed_population
from worker.engine.facts import DatasetFacts
from worker.engine.params import Params, RunShape
from worker.engine.registry import dataset, selected
from worker.engine.sections import DataSection


class GeneratedRows(Params):
    """The rows a generated dataset gives each client (the estimates read them)."""

    train_per_client: int = Field(50, ge=1, description="Train samples per client.")
    test_per_client: int = Field(150, ge=1, description="Test samples per client.")


class SyntheticClusteredParams(GeneratedRows):
    dimension: int = Field(10, ge=1, description="Feature dimension d.")
    hetero: float = Field(
        0.2,
        ge=0,
        le=1,
        description="h: in the clusters after the first, y ~ Bernoulli(h(1−σ) + (1−h)σ).",
    )
    population_g: PopulationG = 0.4
    population_nu: PopulationNu = 0.9


@dataset(
    "synthetic_clustered",
    facts=DatasetFacts(2, "vector", "generated", partitions=("clusters",), population=True),
    params=SyntheticClusteredParams,
    label="synthetic clustered (CA-Fed)",
)
def synthetic_clustered(
    params: SyntheticClusteredParams, cfg: DataSection, rng: np.random.Generator
) -> FederatedData:
    """CA-Fed's generator (`generate_synthetic_clustered`), with its random calls in order:

    w* ~ N(0, I_d); the train x, then the test x, ~ N(0, I_d) for every client;
    then the train labels, then the test labels, y ~ Bernoulli(p) with p = σ(<w*, x>)
    in cluster 0 and p = h(1−σ) + (1−h)σ in the others; then the population
    (`population.draw_cafed_population`). Clusters are contiguous blocks of clients
    (`contiguous_clusters`, `data.clusters.n_clusters` of them), so for N a multiple of
    `n_clusters` the draws in client order are CA-Fed's (clusters, clients per cluster,
    ...) arrays, and with 2 clusters
    the data and population are CA-Fed's exactly; other cluster counts (which CA-Fed
    does not support) make every cluster after the first equally noisy. The blocks line
    up with availability groups defined on client order (the Markov "halves"). Both
    labels occur in every client, so label-driven availability groups clients by
    cluster (`client_class` = cluster id).
    """
    n, dim, h = cfg.n_clients, params.dimension, params.hetero
    clusters: ClustersParams = selected(cfg, cfg.components.partitions)[1]
    w_star = rng.normal(size=dim)
    cluster = contiguous_clusters(n, clusters.n_clusters)
    x_train = rng.normal(size=(n, params.train_per_client, dim))
    x_test = rng.normal(size=(n, params.test_per_client, dim))
    noisy = (cluster > 0)[:, None]

    def labels(x: np.ndarray) -> np.ndarray:
        s = 1 / (1 + np.exp(-(x @ w_star)))
        return rng.binomial(n=1, p=np.where(noisy, h * (1 - s) + (1 - h) * s, s))

    y_train, y_test = labels(x_train), labels(x_test)
    population = draw_cafed_population(n, params.population_g, params.population_nu, rng)
    return FederatedData(
        x_train=torch.as_tensor(x_train.reshape(-1, dim), dtype=torch.float32),
        y_train=torch.as_tensor(y_train.reshape(-1), dtype=torch.long),
        train_offsets=offsets([params.train_per_client] * n),
        x_test=torch.as_tensor(x_test.reshape(-1, dim), dtype=torch.float32),
        y_test=torch.as_tensor(y_test.reshape(-1), dtype=torch.long),
        test_offsets=offsets([params.test_per_client] * n),
        n_classes=2,
        task="classification",
        client_class=torch.as_tensor(cluster),
        cluster=torch.as_tensor(cluster),
        population=population,
    )


class MeanEstimationParams(GeneratedRows):
    means: list[float] | None = Field(
        None, description="Client means e_i, one per client (default: N points in [1, -1])."
    )
    sigma: float = Field(0.0, ge=0, description="Sample noise σ (0 = exact).")

    def check_run(self, run: RunShape) -> None:
        if self.means is not None and len(self.means) != run.n_clients:
            raise ValueError(
                f"data.mean_estimation.means: {len(self.means)} values given for "
                f"{run.n_clients} clients"
            )


@dataset(
    "mean_estimation",
    facts=DatasetFacts(1, "regression", "generated", partitions=("iid",), shape=(1,)),
    params=MeanEstimationParams,
    label="mean estimation (FedLaAvg Example 1)",
)
def mean_estimation(
    params: MeanEstimationParams, cfg: DataSection, rng: np.random.Generator
) -> FederatedData:
    """Client i holds samples ξ ~ N(e_i, σ²); the loss is (x - ξ)², the optimum mean_i e_i.

    Each client is its own "class" (client_class = i), so label-driven availability
    models group clients by index.
    """
    n = cfg.n_clients
    means = np.asarray(params.means if params.means is not None else np.linspace(1, -1, n))

    def draw(per_client: int) -> torch.Tensor:
        xi = means[:, None] + params.sigma * rng.normal(size=(n, per_client))
        return torch.as_tensor(xi.reshape(-1), dtype=torch.float32)

    y_train, y_test = draw(params.train_per_client), draw(params.test_per_client)
    return FederatedData(
        x_train=torch.zeros(len(y_train), 1),
        y_train=y_train,
        train_offsets=offsets([params.train_per_client] * n),
        x_test=torch.zeros(len(y_test), 1),
        y_test=y_test,
        test_offsets=offsets([params.test_per_client] * n),
        n_classes=n,
        task="regression",
        client_class=torch.arange(n),
        cluster=torch.zeros(n, dtype=torch.long),
        optimum=float(y_train.view(n, -1).mean(dim=1).mean()),
    )
