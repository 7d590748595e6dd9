"""`privacy`: user-level differential privacy of a run's client updates. The mechanism is
`privacy.kind`; its parameters sit under its name (`privacy.central.noise_multiplier`),
as every component's do. The mechanisms are in `mechanism.py`, the accountant in
`accountant.py`, the algorithms each state their own guarantee (`Algorithm.privacy`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from worker.engine.params import Params, applies

PrivacyKind = Literal["none", "central", "local"]


class LocalParams(Params):
    """`privacy.local`: each client clips its update to C and adds N(0, (σC)²) itself."""

    clip_norm: float = Field(1.0, gt=0, title="C", description="Clip each update's L2 norm to C.")
    noise_multiplier: float = Field(
        1.0, gt=0, title="σ", description="Gaussian noise of std σ·C on each client's update."
    )


class CentralParams(LocalParams):
    """`privacy.central`: the server clips each update to C and adds N(0, (σC)²) to their
    sum (DP-FedAvg, McMahan et al. 2018); C fixed, or adapted towards a quantile of the
    updates' norms (Andrew et al. 2021)."""

    clipping: Literal["fixed", "adaptive"] = Field(
        "fixed",
        description="fixed: C = clip_norm; adaptive: C starts at clip_norm and tracks the "
        "target quantile of the updates' norms, from a noised count (Andrew et al. 2021).",
    )
    target_quantile: float = Field(
        0.5,
        gt=0,
        lt=1,
        title="γ",
        json_schema_extra=applies("privacy.central.clipping", "adaptive"),
        description="adaptive: share γ of the updates left unclipped.",
    )
    clip_lr: float = Field(
        0.2,
        gt=0,
        title="η_C",
        json_schema_extra=applies("privacy.central.clipping", "adaptive"),
        description="adaptive: C ← C·exp(−η_C (b̄ − γ)), b̄ the noised share unclipped.",
    )
    count_stddev: float | None = Field(
        None,
        gt=0,
        title="σ_b",
        json_schema_extra=applies("privacy.central.clipping", "adaptive"),
        description="adaptive: std of the noise on the count of unclipped updates (none: "
        "K/20, the paper's choice); the updates' noise multiplier becomes "
        "(σ⁻² − (2σ_b)⁻²)^(−1/2), so that both releases together cost σ.",
    )


class PrivacySection(Params):
    kind: PrivacyKind = Field(
        "none",
        description="Differential privacy of the clients' updates: none; central (the server "
        "clips and noises their sum); local (each client clips and noises its own).",
    )
    delta: float = Field(
        1e-5,
        gt=0,
        lt=1,
        title="δ",
        json_schema_extra=applies("privacy.kind", "central", "local"),
        description="δ of the (ε, δ) the accountant reports.",
    )
    central: CentralParams = Field(default_factory=CentralParams)
    local: LocalParams = Field(default_factory=LocalParams)

    def mechanism(self) -> LocalParams | None:
        """The selected mechanism's parameters (None: no privacy)."""
        return None if self.kind == "none" else getattr(self, self.kind)
