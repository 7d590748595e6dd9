"""The Celery application: Redis broker; each task supervises one run's process."""

from __future__ import annotations

from celery import Celery

from db.settings import Settings, settings

QUEUES = ("gpu", "cpu")
EXECUTE_RUN = "fedwatch.execute_run"


def make_celery(config: Settings) -> Celery:
    app = Celery("fedwatch", broker=config.broker_url, include=["worker.tasks"])
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        # Tasks are threads supervising a run's process (`worker.supervise`), which
        # also enforces the soft and hard time limits.
        worker_pool="threads",
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
