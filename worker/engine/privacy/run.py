"""A run's privacy: its mechanism and its accountant, built from the run config."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch
from torch import Tensor

from worker.engine.privacy.mechanism import Mechanism
from worker.engine.privacy.section import PrivacySection

if TYPE_CHECKING:
    from worker.engine.privacy.accountant import Accountant


@dataclass
class RunPrivacy:
    """The mechanism that privatises each round's updates, and the accountant that
    reports ε after it."""

    mechanism: Mechanism
    accountant: Accountant

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
    section: PrivacySection, n: int, k: int, seed: int, pi: Tensor | None
) -> RunPrivacy | None:
    """The run's privacy (None with `privacy.kind = none`); `pi`: each client's
    availability where it is drawn independently every round, else None. Amplification
    by sampling at π_k applies only to central DP: under local DP the server sees each
    client's own noised update, and whether it came."""
    params = section.mechanism()
    if params is None:
        return None
    # dp-accounting takes over a second to import: only runs with privacy pay for it
    from worker.engine.privacy.accountant import Accountant

    rates = None
    if section.kind == "central" and pi is not None:
        rates = pi.to(torch.float64).cpu().numpy()
    accountant = Accountant(params.noise_multiplier, section.delta, n, k, rates)
    return RunPrivacy(Mechanism(section, k, seed), accountant)
