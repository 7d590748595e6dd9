"""A comparison's privacy trade-off: one point per group, a summary value against another
(by default the worst client's final ε against the headline accuracy), each at its mean
with its 95 % CI, and the ε a paper would assume beside it. The points are the table's
own statistics; this says which values can be plotted and which are plotted first."""

from __future__ import annotations

from dataclasses import dataclass

from worker.engine.metrics import EPSILON_UNIT
from worker.results import stats

WORST = "final_epsilon_client_max"
"""The default x: the ε of the worst client, from its own participation."""
ASSUMED = "final_epsilon_assumed"
"""The ε a paper reports (Poisson sampling at K/N), drawn at each point's y."""
MIN_GROUPS = 2
"""A value is plotted where at least this many groups record it."""


@dataclass(frozen=True)
class TradeOff:
    """`values`: the table's summary values (not figures of the machine) that at least
    two groups record, in the table's order; `epsilon`: those in ε; `x`, `y`: the
    values plotted first; `assumed`: the assumed ε where two groups record it."""

    values: list[str]
    epsilon: list[str]
    x: str
    y: str
    assumed: str | None


def tradeoff(table: stats.Table) -> TradeOff | None:
    """The trade-off of `table`, or None where fewer than two groups record an ε value.
    x: the worst client's ε, else the first ε value; y: the table's first ranked value
    that is not in ε (its headline accuracy: the preset's headline first, else the
    catalogue's order, best accuracy first), else its first value that is not in ε."""
    values = [
        c for c in table.columns
        if not c.machine and sum(r.stats[c.name].n > 0 for r in table.rows) >= MIN_GROUPS
    ]  # fmt: skip
    epsilon = [c.name for c in values if c.unit == EPSILON_UNIT]
    others = [c for c in values if c.unit != EPSILON_UNIT]
    if not epsilon or not others:
        return None
    ranked = [c.name for c in others if c.rank]
    return TradeOff(
        values=[c.name for c in values],
        epsilon=epsilon,
        x=WORST if WORST in epsilon else epsilon[0],
        y=(ranked or [others[0].name])[0],
        assumed=ASSUMED if ASSUMED in epsilon else None,
    )
