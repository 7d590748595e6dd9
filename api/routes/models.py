"""A run's final global model as a file: a simulated run keeps its own; an external
run's code attaches one (`run.log_model` in the SDK)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, HTTPException, Response
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel

from api.deps import RunDep, SessionDep
from api.files import attachment, file_responses
from api.schemas.errors import NOT_FOUND, WITH_BODY, error_responses
from db.models import EXTERNAL
from db.run_models import load_model, save_model
from fedwatch.tensorfile import MEDIA_TYPE, SUFFIX
from worker.engine.artifact import check_file

router = APIRouter(prefix="/api/runs/{run_id}", tags=["models"], responses=NOT_FOUND)


class ModelStored(BaseModel):
    run_id: int
    size: int


@router.get(
    "/model",
    response_class=Response,
    responses=file_responses({MEDIA_TYPE: "the model as safetensors"}),
)
def read_model(run: RunDep, session: SessionDep) -> Response:
    """The run's final global model (safetensors: its parameters and buffers by name;
    the metadata of a simulated run's rebuilds the architecture)."""
    data = load_model(session, run.id)
    if data is None:
        raise HTTPException(404, missing(run.source, run.status, run.id))
    return attachment(data, MEDIA_TYPE, f"run-{run.id}{SUFFIX}")


def missing(source: str, status: str, run_id: int) -> str:
    if source == EXTERNAL:
        return f"run {run_id} has no model: its code attaches one with `run.log_model(...)`"
    if status == "succeeded":
        return f"run {run_id} has no model: it finished before runs kept their models"
    return f"run {run_id} has no model: a run keeps its model once it succeeds ({status} now)"


@router.post(
    "/model",
    status_code=201,
    responses=error_responses(409) | NOT_FOUND | WITH_BODY,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {MEDIA_TYPE: {"schema": {"type": "string", "format": "binary"}}},
        }
    },
)
def attach_model(
    run: RunDep,
    session: SessionDep,
    data: Annotated[bytes, Body(media_type=MEDIA_TYPE)],
) -> ModelStored:
    """Attach an external run's model (a safetensors file, up to FEDWATCH_MAX_MODEL_BYTES),
    replacing one attached before."""
    if run.source != EXTERNAL:
        raise HTTPException(409, f"run {run.id} is simulated: it keeps its own model")
    problem = check_file(data)
    if problem is not None:
        raise RequestValidationError([{"loc": ["body"], "msg": problem, "type": "value_error"}])
    save_model(session, run.id, data)
    session.commit()
    return ModelStored(run_id=run.id, size=len(data))
