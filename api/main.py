"""The FastAPI application: routers, limits, error format, static files."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI
from fastapi.staticfiles import StaticFiles

from api import errors
from api.deps import check_token
from api.limits import BodySizeLimit
from api.routes import (
    catalog,
    clients,
    compare,
    events,
    experiments,
    health,
    metrics,
    runs,
    static,
)
from db.session import make_engine, make_sessionmaker
from worker.dispatch import make_dispatcher
from worker.settings import Settings, settings

# The page and its assets stay open so a browser can load them and then ask for the token;
# everything under /api goes through the token check.
OPEN_ROUTERS = (health.router, static.router)
API_ROUTERS = (
    catalog.router,
    runs.router,
    metrics.router,
    clients.router,
    events.router,
    experiments.router,
    compare.router,
)


def create_app(config: Settings = settings) -> FastAPI:
    engine = make_engine(config.database_url)
    sessions = make_sessionmaker(engine)
    dispatcher = make_dispatcher(sessions, config)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        dispatcher.start()
        # Everything loaded so far (torch, SQLAlchemy, the app) lives as long as the
        # process: keep it out of the collector's full passes, which would otherwise
        # walk it and pause a request for a few hundred milliseconds.
        gc.freeze()
        yield
        dispatcher.close()
        engine.dispose()

    app = FastAPI(
        title="FedWatch",
        description="Experiment tracking for federated learning under intermittent availability.",
        lifespan=lifespan,
    )
    app.state.settings = config
    app.state.sessions = sessions
    app.state.dispatcher = dispatcher
    app.add_middleware(BodySizeLimit, max_bytes=config.max_body_bytes)
    errors.install(app)
    for router in OPEN_ROUTERS:
        app.include_router(router)
    for router in API_ROUTERS:
        app.include_router(router, dependencies=[Depends(check_token)])
    if config.frontend_dir.is_dir():
        app.mount("/static", StaticFiles(directory=config.frontend_dir), name="static")
    return app
