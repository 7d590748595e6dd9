"""Typed dependencies: settings, a database session, the dispatcher, the run and the
experiment by id (each with its 404), auth, and the bounds of the integers that address
stored rows."""

from __future__ import annotations

import hmac
from collections.abc import Generator
from typing import Annotated

from fastapi import Depends, HTTPException, Path, Query, Request
from sqlalchemy.orm import Session, sessionmaker

from db.models import Experiment, Run
from db.settings import Settings
from fedwatch.limits import INT32_MAX
from worker.dispatch import Dispatcher

READ_METHODS = ("GET", "HEAD", "OPTIONS")

# An id in the path, and a list's offset: bounded, so they reach the database as valid values.
Id = Annotated[int, Path(ge=1, le=INT32_MAX)]
Offset = Annotated[int, Query(ge=0, le=INT32_MAX)]


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_sessions(request: Request) -> sessionmaker[Session]:
    sessions: sessionmaker[Session] = request.app.state.sessions
    return sessions


def get_db(request: Request) -> Generator[Session]:
    with get_sessions(request)() as session:
        yield session


def get_dispatcher(request: Request) -> Dispatcher:
    dispatcher: Dispatcher = request.app.state.dispatcher
    return dispatcher


SettingsDep = Annotated[Settings, Depends(get_settings)]
SessionsDep = Annotated[sessionmaker[Session], Depends(get_sessions)]
SessionDep = Annotated[Session, Depends(get_db)]
DispatcherDep = Annotated[Dispatcher, Depends(get_dispatcher)]


def token_matches(given: str, token: str) -> bool:
    """Whether the header's token is `token`, compared as bytes in constant time: the
    header's bytes as sent (Starlette decodes them as Latin-1) against the token's UTF-8
    (`compare_digest` refuses strings with other than ASCII characters)."""
    return hmac.compare_digest(given.encode("latin-1"), token.encode())


def check_token(request: Request, settings: SettingsDep) -> None:
    """With FEDWATCH_API_TOKEN set, writes (and reads if protected) need the bearer token."""
    if settings.api_token is None:
        return
    if request.method in READ_METHODS and not settings.protect_reads:
        return
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token_matches(given, settings.api_token):
        raise HTTPException(401, "missing or wrong bearer token", {"WWW-Authenticate": "Bearer"})


def get_run(run_id: Id, session: SessionDep) -> Run:
    """The run `run_id`, or a 404: the one lookup of every route that reads a run by id
    (as a dependency, or called with an id it parsed, which may lie past the bound)."""
    run = session.get(Run, run_id) if run_id <= INT32_MAX else None
    if run is None:
        raise HTTPException(404, f"run {run_id} not found")
    return run


def get_experiment(experiment_id: Id, session: SessionDep) -> Experiment:
    """The experiment `experiment_id`, or a 404."""
    experiment = session.get(Experiment, experiment_id)
    if experiment is None:
        raise HTTPException(404, f"experiment {experiment_id} not found")
    return experiment


RunDep = Annotated[Run, Depends(get_run)]
ExperimentDep = Annotated[Experiment, Depends(get_experiment)]
