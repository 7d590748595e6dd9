"""A run's partition, and the partition a config would make, before it is launched."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from fastapi import APIRouter, HTTPException, Query
from fastapi.exceptions import RequestValidationError

from api.admission import admit, refused
from api.deps import RunDep, SettingsDep
from api.schemas.errors import NOT_FOUND, WITH_BODY, error_responses
from api.schemas.partition import PartitionPreview, PartitionPublic
from db.models import EXTERNAL
from db.settings import Settings
from worker.data_root import for_this_machine, relative_paths
from worker.engine import (
    MAX_SHOWN,
    ConfigError,
    DatasetMissing,
    RunConfig,
    current,
    load_data,
    partition_view,
    run_config_for,
)

router = APIRouter(prefix="/api", tags=["partitions"])

MaxClients = Annotated[
    int,
    Query(ge=1, le=MAX_SHOWN, description="Clients shown; above, an evenly spaced sample."),
]


def view(
    config: RunConfig, settings: Settings, max_clients: int, loc: Sequence[str]
) -> PartitionPublic:
    """The partition `config` makes on this server, from the files it has (nothing is
    downloaded); a 422 at the field where it cannot be made."""
    try:
        here = for_this_machine(config, settings)
        data = here.data.model_copy(update={"download": False})
        shown = partition_view(load_data(data, config.seed), max_clients)
    except ConfigError as err:
        why = err.advice(settings.allow_download) if isinstance(err, DatasetMissing) else str(err)
        r = refused(ConfigError(relative_paths(why, settings)))
        error = {"loc": [*loc, *r.path], "msg": r.msg, "type": r.type}
        raise RequestValidationError([error]) from None
    return PartitionPublic(**vars(shown))


@router.get("/runs/{run_id:int}/partition", responses=NOT_FOUND | error_responses(409))
def read_partition(
    run: RunDep, settings: SettingsDep, max_clients: MaxClients = MAX_SHOWN
) -> PartitionPublic:
    """The run's clients' sample counts and their clients × classes counts, made again
    from its config (the data seed, or the run seed, fixes them)."""
    if run.source == EXTERNAL:
        raise HTTPException(409, f"run {run.id} is external: its data never came here")
    config = run_config_for(current()).model_validate(run.config)
    return view(config, settings, max_clients, ("config",))


@router.post("/partition", responses=WITH_BODY)
def preview_partition(
    body: PartitionPreview, settings: SettingsDep, max_clients: MaxClients = MAX_SHOWN
) -> PartitionPublic:
    """The partition a run of this config would make, before it is launched: nothing is
    created; a config this server would refuse is a 422 as `POST /api/runs` gives it."""
    admit(body.config, settings)
    return view(body.config, settings, max_clients, ("body", "config"))
