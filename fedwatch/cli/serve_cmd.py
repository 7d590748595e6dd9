"""`fedwatch serve [--host H] [--port P]`: the web service (embedded worker by default)."""

from __future__ import annotations

import argparse
import logging
from types import FrameType

from db.settings import settings

LOG_FORMAT = "[%(asctime)s: %(levelname)s/%(name)s] %(message)s"
# Connections still open this long after a stop request are closed.
GRACEFUL_SHUTDOWN_S = 2


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("serve", help="run the web service and API")
    p.add_argument("--host", default="127.0.0.1", help="interface to listen on")
    p.add_argument("--port", type=int, default=8000, help="port to listen on")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from api.main import create_app
    from db.migrate import upgrade
    from worker.cores import keep_runs_apart

    class Server(uvicorn.Server):
        """Uvicorn that tells the app at once when asked to stop (SIGTERM, Ctrl-C): the
        event streams end and the runs stop with a checkpoint while connections close,
        so the process exits within seconds whatever its viewers do."""

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            app.state.begin_shutdown()
            super().handle_exit(sig, frame)

    logging.basicConfig(level=logging.INFO, format=LOG_FORMAT)  # runs log their start
    upgrade(settings.database_url)
    mode = f"broker {settings.broker_url}" if settings.broker_url else "runs execute in-process"
    run_cores = None
    if not settings.broker_url and settings.run_cores == "apart":
        run_cores = keep_runs_apart()
    if run_cores is not None:
        mode += f" on cores {','.join(map(str, sorted(run_cores)))}, the API apart"
    print(f"FedWatch: open http://{args.host}:{args.port}/  (API docs at /docs)", flush=True)
    print(f"  database {settings.database_url}; {mode}", flush=True)
    app = create_app(settings, run_cores=run_cores)
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_level="warning",
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
    )
    Server(config).run()
    return 0
