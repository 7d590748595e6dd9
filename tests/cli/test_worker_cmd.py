import gc

import pytest

from db.settings import settings
from fedwatch.command import main


def test_worker_freezes_its_loaded_heap_before_celery_starts(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from worker.tasks import celery_app

    started: list[int] = []
    url = f"sqlite:///{tmp_path_factory.mktemp('db')}/fedwatch.sqlite"
    monkeypatch.setattr(settings, "broker_url", "redis://127.0.0.1:6379/0")
    monkeypatch.setattr(settings, "database_url", url)
    monkeypatch.setattr(
        celery_app, "worker_main", lambda argv: started.append(gc.get_freeze_count())
    )
    gc.unfreeze()
    try:
        assert main(["worker", "--queues", "cpu"]) == 0
    finally:
        gc.unfreeze()

    assert len(started) == 1 and started[0] > 0


def test_worker_without_broker_is_a_one_line_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(settings, "broker_url", None)

    assert main(["worker"]) == 2
    assert "FEDWATCH_BROKER_URL is not set" in capsys.readouterr().err
