"""A run's privacy: its mechanism and its accountant, built from the run config."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from torch import Tensor

from worker.engine.privacy.mechanism import Mechanism
from worker.engine.privacy.section import PrivacySection
from worker.engine.registry import selected

if TYPE_CHECKING:
    from worker.engine.config import RunConfig
    from worker.engine.privacy.accountant import Accountant


LOCAL = "local DP: the server sees each client's own noised update, and so whether it came"
TIMED = "a system model's sessions decide who is online, not an independent draw each round"
CORRELATED = "the availability model does not draw each client's rounds independently of each other"
AMPLIFIED = (
    "central DP under availability drawn independently every round: each client is a "
    "Poisson sample at its own rate π_k over every round"
)


def amplification(config: RunConfig) -> str | None:
    """Why a client's ε is not amplified by sampling at its own availability π_k (None:
    it is): only central DP, under an availability model that draws each round
    independently, with no system model (docs/concepts/privacy.md)."""
    if config.privacy.kind != "central":
        return LOCAL
    if config.system.kind != "none":
        return TIMED
    entry, _ = selected(config.availability, config.components.availability)
    return None if entry.component.independent else CORRELATED


@dataclass
class RunPrivacy:
    """The mechanism that privatises each round's updates, and the accountant that
    reports ε after it; `rates`: each client's Poisson rate π_k where amplification
    applies (round 0's record keeps them), else None."""

    mechanism: Mechanism
    accountant: Accountant
    rates: np.ndarray | None

    def privatise(self, t: int, deltas: Tensor) -> tuple[Tensor, dict[str, float]]:
        return self.mechanism.privatise(t, deltas)

    def observe(self, participants: Tensor) -> dict[str, float]:
        """ε after a round that the clients `participants` contributed to."""
        return self.accountant.observe(participants.cpu().numpy())

    def state_dict(self) -> dict[str, Any]:
        return {
            "mechanism": self.mechanism.state_dict(),
            "accountant": self.accountant.state_dict(),
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.mechanism.load_state_dict(state["mechanism"])
        self.accountant.load_state_dict(state["accountant"])


def run_privacy(
    section: PrivacySection, n: int, k: int, seed: int, rates: Tensor | None
) -> RunPrivacy | None:
    """The run's privacy (None with `privacy.kind = none`); `rates`: each client's
    Poisson rate π_k where `amplification` applies, else None."""
    params = section.mechanism()
    if params is None:
        return None
    # dp-accounting takes over a second to import: only runs with privacy pay for it
    from worker.engine.privacy.accountant import Accountant

    kept = None if rates is None else rates.to(torch.float64).cpu().numpy()
    accountant = Accountant(params.noise_multiplier, section.delta, n, k, kept)
    return RunPrivacy(Mechanism(section, k, seed), accountant, kept)
