"""External runs: rows for runs whose rounds come from FL code outside the engine."""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypeGuard

from sqlalchemy import select
from sqlalchemy.orm import Session

from db.models import EXTERNAL, Experiment, Run, utcnow
from fedwatch.limits import COMPONENT_NAME_MAX, INT32_MAX


def _text(config: dict[str, Any], key: str, default: str, section: str, selector: str) -> str:
    """`config[key]` where it is a string; else the selector of a run config's section
    (`config["algorithm"]["name"]`: a run of the engine, recorded by the CLI); else
    `default`."""
    value = config.get(key)
    if not isinstance(value, str):
        part = config.get(section)
        value = part.get(selector) if isinstance(part, dict) else None
    return value[:COMPONENT_NAME_MAX] if isinstance(value, str) and value else default


def _integer(value: Any) -> TypeGuard[int]:
    """An integer of JSON: `true` is none (Python's bool is an int)."""
    return isinstance(value, int) and not isinstance(value, bool)


def experiment_named(session: Session, name: str, base: dict[str, Any]) -> Experiment:
    """The newest experiment called `name`, or a new one (no grid: runs join it as sent)."""
    found = session.scalars(
        select(Experiment).where(Experiment.name == name).order_by(Experiment.id.desc())
    ).first()
    if found is None:
        found = Experiment(name=name, base=base, grid={}, seeds=[])
        session.add(found)
        session.flush()
    return found


def new_external_run(
    *,
    name: str,
    config: dict[str, Any],
    n_clients: int,
    rounds: int | None,
    experiment_id: int | None,
    notes: str,
    created_at: datetime | None = None,
    started_at: datetime | None = None,
    availability_period: int | None = None,
) -> Run:
    """A running external run: it takes rounds at once. Created and started now, unless
    the times are given (a run recorded earlier, uploaded now); `availability_period`:
    the rounds after which its availability repeats, None when it declared none."""
    seed = config.get("seed")
    now = utcnow()
    return Run(
        name=name,
        notes=notes,
        config=config,
        source=EXTERNAL,
        algorithm=_text(config, "algorithm", EXTERNAL, "algorithm", "name"),
        dataset=_text(config, "dataset", EXTERNAL, "data", "dataset"),
        availability=_text(config, "availability", EXTERNAL, "availability", "kind"),
        seed=seed if _integer(seed) and abs(seed) <= INT32_MAX else None,
        n_clients=n_clients,
        availability_period=availability_period,
        queue=EXTERNAL,
        status="running",
        cancel_requested=False,
        rounds_total=rounds or 0,
        rounds_done=0,
        metric_names=[],
        experiment_id=experiment_id,
        created_at=created_at or now,
        started_at=started_at or now,
        heartbeat_at=now,
    )
