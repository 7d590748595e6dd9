"""`fedwatch worker [--queues gpu,cpu] [--concurrency N]`: a Celery worker."""

from __future__ import annotations

import argparse
import gc

from db.settings import settings
from fedwatch.errors import CliError
from worker.celery_app import QUEUES


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("worker", help="execute queued runs (needs FEDWATCH_BROKER_URL)")
    p.add_argument("--queues", default=",".join(QUEUES), help="comma-separated queues (gpu, cpu)")
    p.add_argument(
        "--concurrency",
        type=int,
        default=1,
        help="runs at once (one per GPU); each gets cores / concurrency torch threads",
    )
    p.add_argument("--name", help="worker name (default: celery@hostname)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if not settings.broker_url:
        raise CliError("FEDWATCH_BROKER_URL is not set (e.g. redis://localhost:6379/0)")
    unknown = set(args.queues.split(",")) - set(QUEUES)
    if unknown:
        raise CliError(f"--queues: unknown {', '.join(sorted(unknown))} (known: gpu, cpu)")
    if args.concurrency < 1:
        raise CliError("--concurrency: must be at least 1")
    from db.migrate import upgrade
    from worker.tasks import celery_app

    upgrade(settings.database_url)
    argv = ["worker", "-P", "threads", "-Q", args.queues, "-c", str(args.concurrency)]
    argv += ["-l", "INFO"]
    if args.name:
        argv += ["-n", args.name]
    celery_app.conf.worker_concurrency = args.concurrency  # each run's thread budget
    # What is loaded now (torch, SQLAlchemy, Celery) lives as long as the process: keep
    # it out of the collector's full passes, which would otherwise walk it and pause
    # the worker for a few hundred milliseconds.
    gc.freeze()
    celery_app.worker_main(argv)
    return 0
