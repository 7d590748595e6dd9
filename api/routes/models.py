"""A run's final global model as a file: a simulated run keeps its own; an external
run's code attaches one (`run.log_model` in the SDK). Both ways a part at a time
(`db.run_models.PART_BYTES`), at most `FEDWATCH_MODEL_TRANSFERS` at once
(`api.transfers`)."""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator, Iterator
from typing import IO, Annotated

import anyio
from fastapi import APIRouter, Depends, HTTPException, Request, Response
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel
from sqlalchemy.orm import Session, sessionmaker

from api.deps import Id, SessionsDep, get_run
from api.files import disposition, file_responses
from api.model_upload import spool_model
from api.schemas.errors import NOT_FOUND, WITH_BODY, error_responses
from api.transfers import ClosingStream, Transfers
from db.models import EXTERNAL, Run
from db.run_models import PART_BYTES, StoredModel, model_part, store_parts, stored_model
from fedwatch.tensorfile import MEDIA_TYPE, SUFFIX

router = APIRouter(prefix="/api/runs/{run_id}", tags=["models"], responses=NOT_FOUND)


def get_transfers(request: Request) -> Transfers:
    transfers: Transfers = request.app.state.transfers
    return transfers


TransfersDep = Annotated[Transfers, Depends(get_transfers)]


class ModelStored(BaseModel):
    run_id: int
    size: int


@router.get(
    "/model",
    response_class=Response,  # documents a file; the answer is the stream below
    responses=file_responses({MEDIA_TYPE: "the model as safetensors"}),
)
async def read_model(run_id: Id, sessions: SessionsDep, transfers: TransfersDep) -> ClosingStream:
    """The run's final global model (safetensors: its parameters and buffers by name;
    the metadata of a simulated run's rebuilds the architecture)."""
    run, model = await anyio.to_thread.run_sync(find, sessions, run_id)
    if model is None:
        raise HTTPException(404, missing(run.source, run.status, run_id))
    transfers.enter()
    headers = {**disposition(f"run-{run_id}{SUFFIX}"), "Content-Length": str(model.size)}
    return ClosingStream(parts(sessions, run_id, model), MEDIA_TYPE, headers, transfers.leave)


def find(sessions: sessionmaker[Session], run_id: int) -> tuple[Run, StoredModel | None]:
    """The run (a 404 without it) and its stored model, read in a session of their own
    that is closed before any transfer: none holds a connection while it lasts."""
    with sessions(expire_on_commit=False) as session:
        run = get_run(run_id, session)
        session.expunge(run)
        return run, stored_model(session, run_id)


async def parts(
    sessions: sessionmaker[Session], run_id: int, model: StoredModel
) -> AsyncIterator[bytes]:
    """The model's parts, each read in a thread of its own session. One replaced while
    it is sent ends the response short of its length: the client sees it cut."""

    def read(seq: int) -> bytes | None:
        with sessions() as session:
            return model_part(session, run_id, seq, model)

    for seq in range(model.parts):
        part = await anyio.to_thread.run_sync(read, seq)
        if part is None:
            raise RuntimeError(f"run {run_id}'s model was replaced while it was sent")
        yield part


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
async def attach_model(
    run_id: Id, request: Request, sessions: SessionsDep, transfers: TransfersDep
) -> ModelStored:
    """Attach an external run's model (a safetensors file, up to FEDWATCH_MAX_MODEL_BYTES),
    replacing one attached before. Its header is checked before its body is read."""
    run, _ = await anyio.to_thread.run_sync(find, sessions, run_id)
    if run.source != EXTERNAL:
        raise HTTPException(409, f"run {run_id} is simulated: it keeps its own model")
    declared = request.headers.get("content-length")
    async with transfers.slot():
        with tempfile.TemporaryFile() as spool:
            try:
                length = declared_length(declared)
                size = await spool_model(request.stream(), length, spool)
            except ValueError as err:
                problem = {"loc": ["body"], "msg": str(err), "type": "value_error"}
                raise RequestValidationError([problem]) from None
            spool.seek(0)
            await anyio.to_thread.run_sync(store, sessions, run_id, size, spool)
    return ModelStored(run_id=run_id, size=size)


def declared_length(header: str | None) -> int | None:
    if header is None:
        return None
    if not header.isdigit():
        raise ValueError(f"Content-Length {header!r} is not a length")
    return int(header)


def store(sessions: sessionmaker[Session], run_id: int, size: int, spool: IO[bytes]) -> None:
    def read() -> Iterator[bytes]:
        while part := spool.read(PART_BYTES):
            yield part

    with sessions() as session:
        store_parts(session, run_id, size, read())
        session.commit()
