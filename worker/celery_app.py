"""The Celery application: Redis broker, one run per worker process at a time."""

from __future__ import annotations

from celery import Celery

from worker.settings import Settings, settings

QUEUES = ("gpu", "cpu")
EXECUTE_RUN = "fedwatch.execute_run"


def make_celery(config: Settings) -> Celery:
    app = Celery("fedwatch", broker=config.broker_url, include=["worker.tasks"])
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_soft_time_limit=config.soft_time_limit_s,
        task_time_limit=config.time_limit_s,
        task_default_queue="cpu",
        task_ignore_result=True,
        broker_connection_retry_on_startup=True,
        broker_transport_options={
            "visibility_timeout": config.visibility_timeout_s,
            "unacked_restore_interval": config.restore_interval_s,
        },
        worker_hijack_root_logger=False,
    )
    return app


celery_app = make_celery(settings)
