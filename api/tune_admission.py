"""What a tune must pass before anything is created: its space, objective and methods
(`worker.tune.checks`), each method's runs past this server's admission, and its whole
budget (every method's trials and final runs) within `max_tune_gflop`. A refusal is a
422 naming the field and the key at fault."""

from __future__ import annotations

from typing import Any

from fastapi.exceptions import RequestValidationError

from api.admission import admit, run_estimate
from db.settings import Settings
from worker.engine import ConfigError, format_flops
from worker.tune.checks import check_methods
from worker.tune.plan import TunePlan
from worker.tune.study import TuneSpec


def refuse(loc: list[Any], msg: str) -> RequestValidationError:
    """A 422 at `body.<loc>`; a message "<dotted key>: why" adds the key to the location
    (`api.errors.with_field_path`)."""
    return RequestValidationError([{"loc": ["body", *loc], "msg": msg, "type": "value_error"}])


def where(err: ConfigError, space: list[str]) -> list[Any]:
    """Where a ConfigError "<key>: why" lies: under `space` for a searched key, at the
    top for the objective, else under `set` (a key the tune's own settings gave)."""
    key = str(err).split(":", 1)[0].strip()
    if key in {text.split("=", 1)[0].strip() for text in space}:
        return ["space"]
    return [] if key == "objective" else ["set"]


def admit_tune(plan: TunePlan, settings: Settings) -> TuneSpec:
    """The tune's shared study settings, or a 422."""
    try:
        spec = plan.spec()
        configs = {m: _config_of(plan, m) for m in plan.methods}
        check_methods(configs, spec)
    except ConfigError as err:
        raise refuse(where(err, list(plan.space)), str(err)) from None
    work = 0.0
    for method in plan.methods:
        config = plan.trial_config(method, {})
        admit(config, settings, ("body", "set"))
        work += (plan.trials + plan.seeds) * run_estimate(config, settings).flops
    if work > settings.max_tune_gflop * 1e9:
        raise refuse(
            [],
            f"trials: the budget ({plan.trials} trials + {plan.seeds} final runs for each of "
            f"{len(plan.methods)} methods) is estimated at {format_flops(work)}, over this "
            f"server's limit of {format_flops(settings.max_tune_gflop * 1e9)} "
            f"({Settings.env_name('max_tune_gflop')}={settings.max_tune_gflop:g})",
        )
    return spec


def _config_of(plan: TunePlan, method: str) -> Any:
    return lambda extra: plan.base.run_config(
        [
            *plan.method(method).as_overrides(),
            *plan.set,
            f"eval.validation={plan.validation}",
            *extra,
        ]
    )
