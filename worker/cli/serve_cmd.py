"""`fedwatch serve [--host H] [--port P]`: the web service (embedded worker by default)."""

from __future__ import annotations

import argparse

from worker.settings import settings


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("serve", help="run the web service and API")
    p.add_argument("--host", default="127.0.0.1", help="interface to listen on")
    p.add_argument("--port", type=int, default=8000, help="port to listen on")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from api.main import create_app
    from db.migrate import upgrade

    upgrade(settings.database_url)
    mode = f"broker {settings.broker_url}" if settings.broker_url else "runs execute in-process"
    print(f"FedWatch: open http://{args.host}:{args.port}/  (API docs at /docs)", flush=True)
    print(f"  database {settings.database_url}; {mode}", flush=True)
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="warning")
    return 0
