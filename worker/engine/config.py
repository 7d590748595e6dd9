"""`RunConfig`: the single, JSON-serialisable description of a simulation run.

Its JSON Schema generates the web form; dotted paths into it (`algorithm.name`,
`availability.markov.g`) are what `--set key=value` and sweeps address. Every parameter
of an algorithm or availability model lives in the sub-object named after it, so
switching `algorithm.name` never leaves an invalid field behind.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

DatasetName = Literal[
    "mean_estimation",
    "synthetic_clustered",
    "digits",
    "mnist",
    "fashion_mnist",
    "cifar10",
    "svhn",
]
PartitionName = Literal["auto", "iid", "by_class", "dirichlet", "label_swap", "clusters"]
ModelName = Literal["scalar", "linear", "mlp", "cnn", "lenet5", "resnet18"]
AlgorithmName = Literal[
    "fedavg",
    "fedavg_is",
    "fedlaavg",
    "mifa",
    "fedvarp",
    "fedar",
    "cafed",
    "unbiased",
    "adafed",
    "f3ast",
    "scaffold",
    "fedadam",
    "fedprox",
    "sgd",
]
AvailabilityKind = Literal["always", "bernoulli", "diurnal", "markov", "trace"]

MAX_SEED = 2**31 - 1

N_CLASSES: dict[str, int] = {
    "mean_estimation": 1,
    "synthetic_clustered": 2,
    "digits": 10,
    "mnist": 10,
    "fashion_mnist": 10,
    "cifar10": 10,
    "svhn": 10,
}


class Section(BaseModel):
    # NaN and ±Infinity are no parameter values, and would not survive a JSON round trip.
    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)


class DataConfig(Section):
    dataset: DatasetName = Field("synthetic_clustered", description="Dataset to partition.")
    n_clients: int = Field(24, ge=1, le=100_000, description="Number of clients N.")
    partition: PartitionName = Field(
        "auto",
        description="How data is split across clients (auto: clusters for "
        "synthetic_clustered, iid otherwise).",
    )
    classes_per_client: int = Field(
        1, ge=1, description="by_class: distinct labels held by each client."
    )
    sizes: Literal["balanced", "normal"] = Field(
        "balanced", description="by_class: equal shares or normal-distributed client sizes."
    )
    size_std: float = Field(0.5, ge=0, description="by_class/normal: relative std of client sizes.")
    dirichlet_alpha: float = Field(0.5, gt=0, description="dirichlet: concentration α.")
    n_clusters: int = Field(2, ge=1, description="label_swap/clusters: number of client clusters.")
    swap_pairs: int = Field(
        2, ge=1, le=5, description="label_swap: label pairs each further cluster swaps."
    )
    train_per_client: int = Field(
        50, ge=1, description="synthetic_clustered/mean_estimation: train samples per client."
    )
    test_per_client: int = Field(
        150, ge=1, description="synthetic_clustered/mean_estimation: test samples per client."
    )
    dimension: int = Field(10, ge=1, description="synthetic_clustered: feature dimension.")
    means: list[float] | None = Field(
        None, description="mean_estimation: client means e_i (default: N points in [1, -1])."
    )
    sigma: float = Field(0.0, ge=0, description="mean_estimation: sample noise σ (0 = exact).")
    root: str = Field("data", description="torchvision datasets: data root directory.")
    download: bool = Field(False, description="torchvision datasets: download when missing.")
    max_train_samples: int | None = Field(
        None, ge=1, description="Use at most this many training samples (quick runs)."
    )

    @model_validator(mode="after")
    def _resolve_partition(self) -> DataConfig:
        if self.partition == "auto":
            resolved = "clusters" if self.dataset == "synthetic_clustered" else "iid"
            object.__setattr__(self, "partition", resolved)
        return self


class ModelConfig(Section):
    name: ModelName = Field("linear", description="Model architecture.")
    hidden: int = Field(64, ge=1, description="mlp: hidden units.")
    init: float | None = Field(None, description="scalar: initial value x₀ (default 0).")


class BernoulliConfig(Section):
    profile: Literal["constant", "uniform", "by_class"] = Field(
        "constant", description="constant p; uniform p_k~U[p_min,1]; by_class (MIFA)."
    )
    p: float = Field(0.5, gt=0, le=1, description="constant: availability probability.")
    p_min: float = Field(0.1, gt=0, le=1, description="uniform/by_class: smallest p_k.")


class DiurnalConfig(Section):
    strategy: Literal["number", "ratio"] = Field(
        "number", description="number: groups by label (E₀=E₁=E); ratio: E₁=⌊α·E₀⌋."
    )
    period: int = Field(100, ge=1, description="E (number) or E₀ (ratio): rounds per phase.")
    classes_in_group0: int = Field(
        1, ge=1, description="number: clients whose label is among the first D are group 0."
    )
    ratio: float = Field(1.0, gt=0, description="ratio: α with E₁ = ⌊α·E₀⌋.")


class MarkovConfig(Section):
    g: float = Field(0.4, ge=0, lt=0.5, description="π = ½ ± g for more/less available.")
    nu: float = Field(0.9, ge=0, lt=1, description="λ of the correlated clients.")
    correlated_share: float = Field(
        0.5, ge=0, le=1, description="Share of each group that is correlated (λ = ν)."
    )
    weak_lambda: float = Field(0.0, ge=0, lt=1, description="λ of the weakly correlated.")


class TraceConfig(Section):
    csv: str = Field(
        "", description="CSV text: client,start_round,end_round[,period] (end exclusive)."
    )


class AvailabilityConfig(Section):
    kind: AvailabilityKind = Field("always", description="Client availability model.")
    bernoulli: BernoulliConfig = Field(default_factory=BernoulliConfig)
    diurnal: DiurnalConfig = Field(default_factory=DiurnalConfig)
    markov: MarkovConfig = Field(default_factory=MarkovConfig)
    trace: TraceConfig = Field(default_factory=TraceConfig)


class FedAvgConfig(Section):
    wait_for_all: bool = Field(
        False, description="Wait until the K sampled clients have all been available."
    )


class MifaConfig(Section):
    init: Literal["zero", "wait_all"] = Field(
        "zero", description="zero memories, or skip rounds until every client reported."
    )


class FedArConfig(Section):
    rho: float = Field(0.1, ge=0, description="ψ = (τ+1)^ρ.")
    psi_max: float = Field(2.0, gt=0, description="Upper bound of ψ.")
    cutoff: Literal["linear", "sqrt"] = Field("sqrt", description="Form of the cut-off g(t).")
    t0: float = Field(10.0, gt=0, description="linear: t0 + t/b; sqrt: c·max(√t, √t0).")
    b: float = Field(10.0, gt=0, description="linear: slope divisor b.")
    c: float = Field(5.0, gt=0, description="sqrt: factor c.")


class CaFedConfig(Section):
    estimator: Literal["bayesian", "oracle"] = Field(
        "bayesian", description="π, λ estimated from history or read from the model."
    )
    beta: float = Field(0.5, ge=0, lt=1, description="AR filter weight of the loss estimate.")
    tau: float = Field(0.0, ge=0, description="Keep an exclusion if ε̂ falls by at least τ.")
    prior: float = Field(1.0, gt=0, description="Beta prior pseudo-count for π̂.")


class EstimateConfig(Section):
    estimator: Literal["bayesian", "oracle"] = Field(
        "bayesian", description="π read from the availability model, or Beta-prior counts."
    )
    prior: float = Field(1.0, gt=0, description="bayesian: Beta prior pseudo-count for π̂.")


class FedAvgIsConfig(EstimateConfig):
    estimator: Literal["bayesian", "oracle"] = Field(
        "oracle", description="π known (oracle, FedAR's baseline) or Beta-prior counts."
    )


class F3astConfig(Section):
    beta: float | None = Field(
        None, gt=0, le=1, description="Averaging weight of π̂ (default 1/rounds)."
    )


class FedAdamConfig(Section):
    beta1: float = Field(0.9, ge=0, lt=1)
    beta2: float = Field(0.99, ge=0, lt=1)
    tau: float = Field(1e-3, gt=0, description="Adaptivity ε.")


class FedProxConfig(Section):
    mu: float = Field(0.01, ge=0, description="Proximal term weight μ.")


class AlgorithmConfig(Section):
    name: AlgorithmName = Field("fedavg", description="Server algorithm.")
    participation: float = Field(
        10,
        gt=0,
        description="K: clients that train per round; an int, or a fraction of N if < 1.",
    )
    weights: Literal["size", "uniform"] = Field(
        "size", description="Target weights α: proportional to data size, or uniform."
    )
    fedavg: FedAvgConfig = Field(default_factory=FedAvgConfig)
    mifa: MifaConfig = Field(default_factory=MifaConfig)
    fedar: FedArConfig = Field(default_factory=FedArConfig)
    cafed: CaFedConfig = Field(default_factory=CaFedConfig)
    f3ast: F3astConfig = Field(default_factory=F3astConfig)
    unbiased: EstimateConfig = Field(default_factory=EstimateConfig)
    adafed: EstimateConfig = Field(default_factory=EstimateConfig)
    fedavg_is: FedAvgIsConfig = Field(default_factory=FedAvgIsConfig)
    fedadam: FedAdamConfig = Field(default_factory=FedAdamConfig)
    fedprox: FedProxConfig = Field(default_factory=FedProxConfig)

    @field_validator("participation")
    @classmethod
    def _whole_or_fraction(cls, p: float) -> float:
        if p >= 1 and p != int(p):
            raise ValueError("use an integer K >= 1 or a fraction in (0, 1)")
        return p


class ClientConfig(Section):
    local_steps: int = Field(5, ge=1, description="Local SGD steps (or epochs).")
    unit: Literal["steps", "epochs"] = Field("steps", description="Unit of local_steps.")
    batch_size: int = Field(32, ge=1, description="Local mini-batch size.")
    lr: float = Field(0.01, gt=0, description="Local learning rate η_l.")
    lr_decay: float = Field(1.0, gt=0, le=1, description="η_l(t) = lr·decay^t.")
    momentum: float = Field(0.0, ge=0, lt=1)
    weight_decay: float = Field(0.0, ge=0)


class ServerConfig(Section):
    lr: float = Field(1.0, gt=0, description="Server learning rate η_s.")


class EvalConfig(Section):
    every: int = Field(1, ge=1, description="Evaluate the global model every this many rounds.")
    client_every: int = Field(
        0, ge=0, description="Per-client accuracy every this many rounds (0 = never)."
    )
    target_acc: float | None = Field(
        None, gt=0, le=1, description="Accuracy for rounds-to-target in the summary."
    )
    batch_size: int = Field(2048, ge=1, description="Evaluation batch size.")
    checkpoint_every: int = Field(25, ge=1, description="Checkpoint every this many rounds.")


class RunConfig(Section):
    name: str = Field("run", max_length=200, description="Free-text run name.")
    seed: int = Field(0, ge=0, le=MAX_SEED, description="Seed of every random choice.")
    rounds: int = Field(100, ge=1, le=1_000_000, description="Communication rounds.")
    device: Literal["auto", "cpu", "cuda"] = Field("auto", description="auto: cuda if present.")
    backend: Literal["auto", "vmap", "sequential"] = Field(
        "auto", description="Local training: all clients at once (vmap) or one by one."
    )
    data: DataConfig = Field(default_factory=DataConfig)
    model: ModelConfig = Field(default_factory=ModelConfig)
    availability: AvailabilityConfig = Field(default_factory=AvailabilityConfig)
    algorithm: AlgorithmConfig = Field(default_factory=AlgorithmConfig)
    client: ClientConfig = Field(default_factory=ClientConfig)
    server: ServerConfig = Field(default_factory=ServerConfig)
    eval: EvalConfig = Field(default_factory=EvalConfig)

    @model_validator(mode="after")
    def _consistent(self) -> RunConfig:
        for check in (_check_participation, _check_data, _check_model, _check_availability):
            check(self)
        return self

    def n_selected(self) -> int:
        """K as a client count."""
        p = self.algorithm.participation
        return max(1, round(p * self.data.n_clients)) if p < 1 else int(p)


def _check_participation(c: RunConfig) -> None:
    if c.algorithm.participation >= 1 and c.n_selected() > c.data.n_clients:
        raise ValueError(
            f"algorithm.participation: K = {c.n_selected()} exceeds "
            f"data.n_clients = {c.data.n_clients}"
        )


def _check_data(c: RunConfig) -> None:
    d = c.data
    n_classes = N_CLASSES[d.dataset]
    if d.partition == "by_class" and d.classes_per_client > n_classes:
        raise ValueError(
            f"data.classes_per_client: {d.classes_per_client} exceeds the "
            f"{n_classes} classes of {d.dataset}"
        )
    if d.dataset == "synthetic_clustered" and d.partition != "clusters":
        raise ValueError(
            "data.partition: synthetic_clustered is generated per cluster: use 'clusters'"
        )
    if d.dataset != "synthetic_clustered" and d.partition == "clusters":
        raise ValueError("data.partition: 'clusters' only applies to synthetic_clustered")
    if d.dataset == "mean_estimation" and d.partition != "iid":
        raise ValueError("data.partition: mean_estimation holds one mean per client: use 'iid'")
    if d.means is not None and len(d.means) != d.n_clients:
        raise ValueError(f"data.means: {len(d.means)} values given for {d.n_clients} clients")
    if d.n_clusters > d.n_clients:
        raise ValueError("data.n_clusters: more clusters than clients")


def _check_model(c: RunConfig) -> None:
    regression = c.data.dataset == "mean_estimation"
    if regression != (c.model.name == "scalar"):
        raise ValueError(
            "model.name: mean_estimation needs the 'scalar' model, and 'scalar' only fits it"
        )
    if c.data.dataset == "synthetic_clustered" and c.model.name in ("cnn", "lenet5", "resnet18"):
        raise ValueError("model.name: image models need an image dataset")


def _check_availability(c: RunConfig) -> None:
    a = c.availability
    if a.kind == "trace" and not a.trace.csv.strip():
        raise ValueError("availability.trace.csv: a trace needs at least one interval")
    if a.kind == "diurnal" and a.diurnal.strategy == "number":
        n_classes = N_CLASSES[c.data.dataset]
        if a.diurnal.classes_in_group0 >= max(n_classes, 2):
            raise ValueError(
                "availability.diurnal.classes_in_group0: must leave at least one class for group 1"
            )
