"""The run config's checks of `privacy`: a combination that would break the mechanism's
guarantee is refused, with the field to change and why (`guarantee.py`)."""

from __future__ import annotations

from collections.abc import Callable

from worker.engine.privacy.mechanism import count_stddev
from worker.engine.registry import selected
from worker.engine.sections import RunSection

Check = tuple[tuple[str, ...], Callable[[], None]]


def privacy_checks(c: RunSection) -> list[Check]:
    """The checks, each with the fields it reads."""
    kind = c.privacy.kind

    def algorithm() -> None:
        entry, params = selected(c.algorithm, c.components.algorithms)
        problem = entry.component.privacy_problem(entry.name, params, kind)
        if problem is not None:
            raise ValueError(f"{problem}; refused under privacy.kind={kind}")

    def weights() -> None:
        if kind == "central" and c.algorithm.weights != "uniform":
            raise ValueError(
                "algorithm.weights: central DP needs uniform weights: with size weights a "
                "large client's share of the mean exceeds 1/K, which the noise σ·clip_norm "
                "on the sum does not cover; set algorithm.weights=uniform"
            )

    def adaptive() -> None:
        central = c.privacy.central
        if kind != "central" or central.clipping != "adaptive":
            return
        sigma_b = count_stddev(central, c.n_selected())
        if 2 * sigma_b <= central.noise_multiplier:
            raise ValueError(
                f"privacy.central.count_stddev: adaptive clipping spends part of σ = "
                f"{central.noise_multiplier:g} on the count, which needs 2σ_b > σ; σ_b = "
                f"{sigma_b:g} (K/20 when unset) leaves nothing for the updates; raise it, "
                "or lower privacy.central.noise_multiplier"
            )

    return [
        (("privacy", "algorithm"), algorithm),
        (("privacy.kind", "algorithm.weights"), weights),
        (("privacy", "algorithm.participation", "data.n_clients"), adaptive),
    ]
