"""What this server accepts to run, beyond a valid config: dataset files only from
inside its data root, downloads only where it allows them."""

from __future__ import annotations

from fastapi.exceptions import RequestValidationError

from worker.data_root import data_folder
from worker.engine import ConfigError, RunConfig
from worker.settings import Settings


def check(config: RunConfig, settings: Settings) -> None:
    """Raise `ConfigError` ("<field path>: <why>") if this server refuses the run."""
    data_folder(config, settings)


def admit(config: RunConfig, settings: Settings) -> None:
    """`check` for a request's `config`: a refusal is a 422 at the field it names."""
    try:
        check(config, settings)
    except ConfigError as err:
        error = {"loc": ["body", "config"], "msg": str(err), "type": "value_error"}
        raise RequestValidationError([error]) from None
