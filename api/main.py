"""The FastAPI application: routers, limits, error format, static files."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from fastapi import Depends, FastAPI

from api import errors
from api.assets import Assets
from api.deps import check_token
from api.headers import SecurityHeaders
from api.limits import BodySizeLimit
from api.live import LiveFeed
from api.routes import (
    catalog,
    clients,
    compare,
    docs,
    events,
    experiments,
    health,
    ingest,
    manual,
    metrics,
    models,
    partitions,
    privacy,
    reproduce,
    run_figure,
    runs,
    static,
    tunes,
)
from api.schemas.errors import error_responses
from api.storable import reject_unstorable
from api.token_first import TokenFirst
from api.transfers import Transfers
from db.session import make_engine, make_sessionmaker
from db.settings import Settings, settings
from worker.dispatch import make_dispatcher
from worker.engine import Components, install, installed
from worker.tune.loop import TuneLoop

# The page, its assets and the API docs stay open so a browser can load them and then ask
# for the token; everything under /api goes through the token check, then the body's values.
OPEN_ROUTERS = (health.router, static.router, docs.router, manual.router)
API_ROUTERS = (
    catalog.router,
    runs.router,
    ingest.router,
    metrics.router,
    run_figure.router,
    models.router,
    clients.router,
    privacy.router,
    partitions.router,
    events.router,
    experiments.router,
    reproduce.router,
    compare.router,
    tunes.router,
)


# Requests that use the database run in worker threads: no more at once than the
# engine has connections, so a burst waits for a thread instead of failing on the pool.
REQUEST_THREADS = 20


def create_app(
    config: Settings = settings,
    parts: Components | None = None,
    run_cores: frozenset[int] | None = None,
) -> FastAPI:
    """The app (the API's start-up): installs the components (`components.py`) its runs
    are validated with, `parts` or the installed ones; an embedded server executes its
    runs on `run_cores` (None: wherever this process may run)."""
    install(parts or installed())
    engine = make_engine(config.database_url, pool_size=REQUEST_THREADS)
    sessions = make_sessionmaker(engine)
    dispatcher = make_dispatcher(sessions, config, run_cores)
    feed = LiveFeed(sessions, config.sse_poll_s, config.stall_s)
    tune_loop = TuneLoop(sessions, config, dispatcher.submit)

    def begin_shutdown() -> None:
        """Asked to stop (SIGTERM): end the event streams, take no more runs and have the
        running ones stop with a checkpoint, at once, not once connections close."""
        feed.close_soon()
        dispatcher.begin_shutdown()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        anyio.to_thread.current_default_thread_limiter().total_tokens = REQUEST_THREADS
        dispatcher.start()
        tune_loop.start()
        # Everything loaded so far (torch, SQLAlchemy, the app) lives as long as the
        # process: keep it out of the collector's full passes, which would otherwise
        # walk it and pause a request for a few hundred milliseconds.
        gc.freeze()
        poller = asyncio.create_task(feed.run())
        yield
        feed.close()
        await poller
        await anyio.to_thread.run_sync(tune_loop.stop)
        await anyio.to_thread.run_sync(dispatcher.close)
        engine.dispose()

    app = FastAPI(
        title="FedWatch",
        description="Experiment tracking for federated learning under intermittent availability.",
        lifespan=lifespan,
        docs_url=None,  # served by api.routes.docs from local files
        redoc_url=None,
    )
    app.state.settings = config
    app.state.sessions = sessions
    app.state.dispatcher = dispatcher
    app.state.feed = feed
    app.state.tunes = tune_loop
    app.state.transfers = Transfers(config.model_transfers)
    app.state.begin_shutdown = begin_shutdown
    app.state.assets = Assets(config.frontend_dir, static.PLOTLY_JS)
    app.add_middleware(
        BodySizeLimit, max_bytes=config.max_body_bytes, max_model_bytes=config.max_model_bytes
    )
    app.add_middleware(TokenFirst, routers=API_ROUTERS)  # 401 before the body or its size
    app.add_middleware(SecurityHeaders)  # the outermost: also on the limit's 413 and the 401
    errors.install(app)
    for router in OPEN_ROUTERS:
        app.include_router(router)
    for router in API_ROUTERS:
        app.include_router(
            router,
            dependencies=[Depends(check_token), Depends(reject_unstorable)],
            responses=error_responses(401, 503, 507),
        )
    return app
