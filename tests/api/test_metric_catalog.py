"""`GET /api/metrics/catalog`: the engine's catalogue as JSON, registered metrics included."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.metrics_probe import metrics_added
from worker.engine import metrics
from worker.engine.metrics import MetricSpec


def test_catalogue_as_json(client: TestClient) -> None:
    listed = client.get("/api/metrics/catalog").json()

    assert listed == [spec.to_json() for spec in metrics.catalogue()]
    acc = next(m for m in listed if m["name"] == "test_acc")
    assert (acc["kind"], acc["panel"], acc["better"], acc["scale"]) == (
        "round",
        "accuracy",
        "higher",
        100.0,
    )


def test_registered_metric_is_listed(client: TestClient) -> None:
    with metrics_added(MetricSpec("memory_share", "memory filled", panel="algorithm")):
        names = [m["name"] for m in client.get("/api/metrics/catalog").json()]

    assert "memory_share" in names
    assert names.index("memory_share") < names.index("best_test_acc")  # round metrics first
