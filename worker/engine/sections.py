"""The run config's fixed sections, and the typed bases of those built from the
components (`config.py` narrows their names to the registered ones and adds one
sub-object per component with params)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from fedwatch.limits import INT32_MAX
from worker.engine.params import Params
from worker.engine.paths import MAX_PATH_CHARS
from worker.engine.privacy.section import PrivacySection
from worker.engine.timespan import MAX_SECONDS, MIN_SECONDS

MAX_SEED = INT32_MAX  # a run's seed is stored (`runs.seed`)


# Form hints that depend on the components, resolved by `config.build_run_config`: the
# field applies to the datasets read from `data.root`, or to the system models with a
# clock.
FROM_DATA_ROOT: dict[str, Any] = {"x-applies-to": "datasets read from data.root"}
TIMED: dict[str, Any] = {"x-applies-to": "system models with a clock"}


class Built(Params):
    """A section whose class `config.build_run_config` builds from a `Components`
    object; the class knows them, and only it validates data."""

    # The `Components` it was built from (`registry.py`, which reads these sections' fields
    # for the names no component may take; a `RunConfig` has them typed).
    components: ClassVar[Any]

    @model_validator(mode="before")
    @classmethod
    def _built(cls, data: Any) -> Any:
        if "components" not in cls.__dict__:
            raise TypeError(
                f"{cls.__name__} validates nothing itself: the classes built from the "
                "components do (config.run_config_for(current()), and its sections: "
                f"config.section_class(current(), {cls.__name__}))"
            )
        return data


class DataSection(Built):
    """`data`: the dataset and how it is split, and the settings every dataset read from
    `data.root` shares; a dataset's and a partition's own parameters are their
    sub-objects (`data.<name>`)."""

    dataset: str = Field("synthetic_clustered", description="Dataset to partition.")
    seed: int | None = Field(
        None,
        ge=0,
        le=MAX_SEED,
        description="Seed of the data alone (generation and partition), the same for "
        "every run seed; none: derived from the run seed.",
    )
    n_clients: int = Field(
        24,
        ge=1,
        le=1_000_000,
        description="Number of clients N. A dataset with users of its own (femnist, "
        "shakespeare, sent140: LEAF's writers, speaking roles and Twitter users) fixes it: "
        "one client per user "
        "found under data.root, and a run with another N fails naming the number.",
    )
    partition: str = Field(
        "auto",
        description="How the data is split across clients (auto: the dataset's own: "
        "clusters for synthetic_clustered, natural (one client per user) for a dataset "
        "with users, iid otherwise); a partition's own parameters are its sub-object "
        "(`data.<name>`).",
    )
    root: str = Field(
        "data",
        max_length=MAX_PATH_CHARS,
        json_schema_extra=FROM_DATA_ROOT,
        description="torchvision datasets: data root directory.",
    )
    download: bool = Field(
        False,
        json_schema_extra=FROM_DATA_ROOT,
        description="torchvision datasets: download when missing.",
    )
    normalization: Literal["symmetric", "standard", "unit"] = Field(
        "symmetric",
        json_schema_extra=FROM_DATA_ROOT,
        description="torchvision images: pixels scaled to [-1, 1] (symmetric), "
        "standardised by the dataset's usual per-channel mean and std, (x/255 − mean)/std "
        "(standard: mnist and cifar10, as CA-Fed's code reads them; other datasets keep "
        "their scaling), or x/255 in [0, 1] (unit, as FedLaAvg's code reads MNIST).",
    )
    max_train_samples: int | None = Field(
        None, ge=1, description="Use at most this many training samples (quick runs)."
    )


class ModelSection(Built):
    """`model`: the architecture; a model's own parameters are its sub-object
    (`model.<name>`)."""

    name: str = Field("linear", description="Model architecture.")


class AvailabilitySection(Built):
    kind: str = Field("always", description="Client availability model.")


class SystemSection(Built):
    """`system`: the clients' devices in time: their speed, bandwidth and sessions."""

    kind: str = Field(
        "none",
        description="System model: each client's compute speed and bandwidth, and where it "
        "gives one, availability in seconds (none: a round takes no time).",
    )


class RoundConfig(Params):
    """`round`: how a round ends in simulated time (with a system model)."""

    deadline_s: float | None = Field(
        None,
        ge=MIN_SECONDS,
        le=MAX_SECONDS,
        json_schema_extra=TIMED,
        description="Seconds after a round starts when the server stops waiting: updates "
        "that would arrive later are dropped (none: it waits for every selected client).",
    )
    over_commit: float = Field(
        0.0,
        ge=0,
        le=10,
        json_schema_extra=TIMED,
        description="Over-commitment o: select ⌈(1 + o)·K⌉ clients and keep the first K "
        "updates to arrive (0: select K).",
    )


class AlgorithmSection(Built):
    name: str = Field("fedavg", description="Server algorithm.")
    participation: float = Field(
        10,
        gt=0,
        description="K: clients that train per round; an int, or a fraction of N if < 1.",
    )
    weights: Literal["size", "uniform"] = Field(
        "size", description="Target weights α: proportional to data size, or uniform."
    )

    @field_validator("participation")
    @classmethod
    def _whole_or_fraction(cls, p: float) -> float:
        if p >= 1 and p != int(p):
            raise ValueError("use an integer K >= 1 or a fraction in (0, 1)")
        return p


class ClientConfig(Params):
    local_steps: int = Field(5, ge=1, description="Local SGD steps (or epochs).")
    unit: Literal["steps", "epochs"] = Field(
        "steps",
        description="Unit of local_steps: steps draw B rows with replacement; epochs pass "
        "over a fresh permutation of the client's rows, the last batch holding what is left.",
    )
    batch_size: int = Field(32, ge=1, description="Local mini-batch size.")
    lr: float = Field(0.01, gt=0, description="Local learning rate η_l.")
    lr_decay: float = Field(1.0, gt=0, le=1, description="η_l(t) = lr·decay^t.")
    momentum: float = Field(
        0.0, ge=0, lt=1, description="Local SGD momentum m: b ← m·b + g, θ ← θ − η_l·b."
    )
    momentum_state: Literal["reset", "keep"] = Field(
        "reset",
        description="Momentum buffer b at the start of a client's local training: reset to "
        "0 every round, or kept from the client's last round (as a persistent optimiser).",
    )
    weight_decay: float = Field(0.0, ge=0, description="Local weight decay λ: g += λ·θ.")
    partial_work: Literal["drop", "keep"] = Field(
        "drop",
        json_schema_extra=TIMED,
        description="A client whose time runs out (its availability ends, or the deadline "
        "comes) before its local work is done: drop returns nothing; keep returns the "
        "steps it completed (it stops in time to upload them).",
    )


class ServerConfig(Params):
    lr: float = Field(1.0, gt=0, description="Server learning rate η_s.")
    momentum: float = Field(
        0.0,
        ge=0,
        lt=1,
        description="Server SGD momentum m on the pseudo-gradient −Δ: b ← m·b − Δ + λ·w, "
        "w ← w − η_s·b (0: w ← w + η_s·Δ).",
    )
    weight_decay: float = Field(
        0.0, ge=0, description="Server SGD weight decay λ, added to the pseudo-gradient as λ·w."
    )


class EvalSection(Built):
    every: int = Field(1, ge=1, description="Evaluate the global model every this many rounds.")
    schedule: str = Field(
        "every",
        description="When the global model is evaluated (the registered schedules, "
        "`worker/engine/schedules.py`); the engine also evaluates after the last round.",
    )
    client_every: int = Field(
        0, ge=0, description="Per-client accuracy every this many rounds (0 = never)."
    )
    target_acc: float | None = Field(
        None, gt=0, le=1, description="Accuracy for rounds-to-target in the summary."
    )
    batch_size: int | None = Field(
        None,
        ge=1,
        description="Evaluation batch size (default: from the model's activation memory, "
        "a core's cache on a CPU).",
    )
    checkpoint_every: int = Field(25, ge=1, description="Checkpoint every this many rounds.")
    validation: float = Field(
        0.0,
        ge=0,
        lt=1,
        description="Share of each client's training data held out as a validation split "
        "(what a tune's objective reads: val_acc, val_loss); 0 = none.",
    )


class RunSection(Built):
    """The whole run's fields; `config.RunConfig` adds the checks across them."""

    name: str = Field("run", max_length=200, description="Free-text run name.")
    seed: int = Field(0, ge=0, le=MAX_SEED, description="Seed of every random choice.")
    rounds: int = Field(100, ge=1, le=1_000_000, description="Communication rounds.")
    device: Literal["auto", "cpu", "cuda"] = Field("auto", description="auto: cuda if present.")
    backend: Literal["auto", "vmap", "sequential"] = Field(
        "auto", description="Local training: all clients at once (vmap) or one by one."
    )
    data: DataSection = Field(default_factory=DataSection)
    model: ModelSection = Field(default_factory=ModelSection)
    availability: AvailabilitySection = Field(default_factory=AvailabilitySection)
    system: SystemSection = Field(default_factory=SystemSection)
    algorithm: AlgorithmSection = Field(default_factory=AlgorithmSection)
    client: ClientConfig = Field(default_factory=ClientConfig)
    round: RoundConfig = Field(default_factory=RoundConfig)
    server: ServerConfig = Field(default_factory=ServerConfig)
    eval: EvalSection = Field(default_factory=EvalSection)
    privacy: PrivacySection = Field(default_factory=PrivacySection)

    def n_selected(self) -> int:
        """K as a client count."""
        p = self.algorithm.participation
        return max(1, round(p * self.data.n_clients)) if p < 1 else int(p)
