"""Dataset files come only from inside the server's data root, downloads only where it
allows them, and errors show paths relative to the data root."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.main import create_app
from db.settings import Settings
from fedwatch.cli.config_source import on_this_machine
from fedwatch.errors import CliError
from tests.api.helpers import embedded_settings, submit, wait_final
from tests.api.test_execution import queue_directly
from tests.engine.test_data import write_tiny_mnist
from tests.engine.test_leaf import images, write
from worker.data_root import RULE, data_folder, holding, portable
from worker.engine import ConfigError, run_config_for
from worker.engine.components import current


@pytest.fixture(scope="module")
def data_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data root holding tiny MNIST files under `mnist/`, a link that leads out of
    it, and a link inside it."""
    root = tmp_path_factory.mktemp("datasets")
    write_tiny_mnist(root / "mnist", 60, 20)
    outside = tmp_path_factory.mktemp("elsewhere")
    write_tiny_mnist(outside, 60, 20)
    (root / "escape").symlink_to(outside)
    (root / "alias").symlink_to(root / "mnist")
    return root


@pytest.fixture(scope="module")
def served(db_url: str, data_root: Path) -> Iterator[TestClient]:
    with TestClient(create_app(embedded_settings(db_url, data_root=str(data_root)))) as c:
        yield c


def mnist(root: str, **data: Any) -> dict[str, Any]:
    return {
        "rounds": 2,
        "device": "cpu",
        "data": {"dataset": "mnist", "n_clients": 4, "root": root, **data},
        "algorithm": {"participation": 2},
    }


@pytest.mark.parametrize(
    ("root", "expected"),
    [("data", ""), ("mnist", "mnist"), ("alias", "mnist"), ("new/folder", "new/folder")],
)
def test_roots_resolve_inside_the_data_root(data_root: Path, root: str, expected: str) -> None:
    config = run_config_for(current()).model_validate(mnist(root))
    assert data_folder(config, Settings(data_root=str(data_root))) == data_root / expected


@pytest.mark.parametrize("root", ["/etc", "../elsewhere", "mnist/../../x", "escape", "a\\..\\b"])
def test_roots_that_leave_the_data_root_are_refused(data_root: Path, root: str) -> None:
    config = run_config_for(current()).model_validate(mnist(root))
    with pytest.raises(ConfigError, match=r"^data\.root: "):
        data_folder(config, Settings(data_root=str(data_root)))


@pytest.mark.parametrize("root", ["/etc", "../../..", "escape"])
def test_the_api_refuses_them_at_the_field(served: TestClient, root: str) -> None:
    before = served.get("/api/runs").json()["count"]
    response = served.post("/api/runs", json={"config": mnist(root)})
    assert response.status_code == 422
    (error,) = response.json()["detail"]
    assert error["loc"] == ["body", "config", "data", "root"]
    assert served.get("/api/runs").json()["count"] == before


def test_downloads_only_where_the_server_allows_them(served: TestClient, db_url: str) -> None:
    response = served.post("/api/runs", json={"config": mnist("mnist", download=True)})
    assert response.status_code == 422
    (error,) = response.json()["detail"]
    assert error["loc"] == ["body", "config", "data", "download"]
    assert "FEDWATCH_ALLOW_DOWNLOAD" in error["msg"]
    allowed = embedded_settings(db_url, allow_download=True)
    with TestClient(create_app(allowed)) as client:
        digits = {"rounds": 2, "device": "cpu", "data": {"dataset": "digits", "download": True}}
        assert wait_final(client, submit(client, digits)["id"])["status"] == "succeeded"


def test_a_sweep_over_roots_is_refused_whole(served: TestClient) -> None:
    before = served.get("/api/runs").json()["count"]
    body = {"name": "roots", "base": mnist("mnist"), "grid": {"data.root": ["mnist", "/etc"]}}
    response = served.post("/api/experiments", json=body)
    assert response.status_code == 422
    (error,) = response.json()["detail"]
    assert error["loc"] == ["body", "grid", "data.root"]
    assert error["msg"].startswith("data.root=/etc, seed=0: ")
    assert served.get("/api/runs").json()["count"] == before


def test_runs_read_inside_and_errors_show_relative_paths(
    served: TestClient, data_root: Path
) -> None:
    assert wait_final(served, submit(served, mnist("mnist"))["id"])["status"] == "succeeded"
    missing = wait_final(served, submit(served, mnist("nothing/here"))["id"])
    assert missing["status"] == "failed"
    assert "<data root>/nothing/here" in missing["error"]
    assert str(data_root) not in missing["error"]


def test_the_run_checks_again_where_it_executes(served: TestClient) -> None:
    config = run_config_for(current()).model_validate(mnist("escape")).model_dump(mode="json")
    done = wait_final(served, queue_directly(served, config))
    assert done["status"] == "failed"
    assert done["error"].startswith("data.root: 'escape' leads outside")


def test_the_dataset_endpoint_says_what_is_missing_and_what_works(served: TestClient) -> None:
    missing = served.get("/api/datasets/mnist").json()
    present = served.get("/api/datasets/mnist", params={"root": "mnist"}).json()
    bundled = served.get("/api/datasets/digits").json()
    outside = served.get("/api/datasets/mnist", params={"root": "../elsewhere"})
    unknown = served.get("/api/datasets/nope")

    assert (missing["present"], missing["from_root"], missing["folder"]) == (
        False, True, "<data root>",
    )  # fmt: skip
    assert "MNIST/raw/train-images-idx3-ubyte" in missing["missing"]
    assert missing["download_allowed"] is False
    assert missing["advice"].startswith("mnist is not under <data root>: place the files")
    assert "data.download" not in missing["advice"] and "data.dataset=digits" in missing["advice"]
    assert (present["present"], present["folder"], present["advice"]) == (
        True, "<data root>/mnist", None,
    )  # fmt: skip
    assert (bundled["present"], bundled["from_root"], bundled["advice"]) == (True, False, None)
    assert outside.status_code == 422 and outside.json()["detail"][0]["loc"] == ["query", "root"]
    assert unknown.status_code == 404


def test_the_dataset_endpoint_lists_a_leaf_split_missing(
    served: TestClient, data_root: Path
) -> None:
    shutil.rmtree(data_root / "leaf", ignore_errors=True)  # the other database's run's
    write(data_root / "leaf", "femnist", "train", "a.json", {"w1": {"x": images(0), "y": [1]}})
    nothing = served.get("/api/datasets/femnist", params={"root": "nowhere"}).json()
    half = served.get("/api/datasets/femnist", params={"root": "leaf"}).json()
    write(data_root / "leaf", "femnist", "test", "a.json", {"w1": {"x": images(9), "y": [2]}})
    whole = served.get("/api/datasets/femnist", params={"root": "leaf"}).json()

    assert nothing["from_root"] and not nothing["present"]
    assert nothing["missing"] == ["femnist/data/train/*.json", "femnist/data/test/*.json"]
    assert half["missing"] == ["femnist/data/test/*.json"]
    assert half["advice"].startswith("femnist is not under <data root>/leaf: data.root: ")
    assert "LEAF's preprocessing" in half["advice"] and str(data_root) not in half["advice"]
    assert (whole["present"], whole["missing"], whole["advice"]) == (True, [], None)
    assert whole["holding"] == ["leaf"]


@pytest.mark.parametrize(
    ("written", "expected"),
    [("", "data"), ("/mnist", "mnist"), ("/mnist/", "mnist"), ("/new/../mnist", "mnist"),
     ("/alias", "alias"), ("/data", "./data")],
)  # fmt: skip
def test_an_absolute_root_inside_is_stored_relative_to_it(
    served: TestClient, data_root: Path, written: str, expected: str
) -> None:
    root = f"{data_root}{written}"
    config = run_config_for(current()).model_validate(mnist(root))
    settings = Settings(data_root=str(data_root))
    assert portable(config, settings).data.root == expected
    assert data_folder(config, settings) == data_folder(portable(config, settings), settings)

    run = submit(served, mnist(root))
    assert run["config"]["data"]["root"] == expected


@pytest.mark.parametrize("written", ["/etc", "{root}/../elsewhere", "{root}/escape", "{root}x"])
def test_an_absolute_root_outside_is_refused_with_the_rule(
    served: TestClient, data_root: Path, written: str
) -> None:
    root = written.format(root=data_root)
    response = served.post("/api/runs", json={"config": mnist(root)})
    assert response.status_code == 422
    (error,) = response.json()["detail"]
    assert error["loc"] == ["body", "config", "data", "root"]
    assert f"the data root {data_root}: {RULE}" in error["msg"]
    asked = served.get("/api/datasets/mnist", params={"root": root})
    assert asked.status_code == 422 and RULE in asked.json()["detail"][0]["msg"]


def test_the_dataset_endpoint_says_where_the_root_is_and_what_holds_the_dataset(
    served: TestClient, data_root: Path
) -> None:
    status = served.get("/api/datasets/mnist").json()
    bundled = served.get("/api/datasets/digits").json()

    assert (status["data_root"], status["rule"]) == (str(data_root), RULE)
    assert status["holding"] == ["mnist"]  # not `alias` nor `escape`: links are not followed
    assert (bundled["data_root"], bundled["holding"]) == (str(data_root), [])


def test_the_folders_holding_a_dataset_are_found_a_few_levels_down(tmp_path: Path) -> None:
    for folder in ("", "a/b", "a/c/d/e", ".cache", "z", "data"):  # e is below SEARCH_DEPTH
        write_tiny_mnist(tmp_path / folder, 6, 2)
    (tmp_path / "empty" / "MNIST").mkdir(parents=True)

    assert holding("mnist", tmp_path) == ["data", "./data", "z", "a/b"]
    assert holding("cifar10", tmp_path) == []
    assert holding("mnist", tmp_path / "nothing") == []


@pytest.mark.parametrize(
    "root", ["data", "mnist", "alias", "new/folder", "/etc", "../elsewhere", "escape", "{root}",
             "{root}/mnist", "{root}/escape", "{root}/../elsewhere"],
)  # fmt: skip
def test_the_cli_and_the_server_take_the_same_roots(
    served: TestClient, data_root: Path, monkeypatch: pytest.MonkeyPatch, root: str
) -> None:
    root = root.format(root=data_root)
    monkeypatch.setenv("FEDWATCH_DATA_ROOT", str(data_root))
    config = run_config_for(current()).model_validate(mnist(root))
    try:
        folder: Path | None = Path(on_this_machine(config).data.root)
    except CliError:
        folder = None
    server = served.post("/api/runs", json={"config": mnist(root)})

    assert (folder is not None) == (server.status_code == 201), server.text
    if folder is not None:
        stored = server.json()["config"]["data"]["root"]
        assert folder == (data_root if stored == "data" else (data_root / stored).resolve())
