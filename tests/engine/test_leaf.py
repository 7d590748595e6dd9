"""LEAF's FEMNIST and Shakespeare from tiny JSON files in LEAF's exact format."""

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from worker.engine import (
    ConfigError,
    DatasetMissing,
    ListSink,
    build_config,
    section_class,
    simulate,
)
from worker.engine.components import current
from worker.engine.data import check_dataset, load_data
from worker.engine.data.leaf_datasets import ALPHABET
from worker.engine.sections import DataSection

DataConfig = section_class(current(), DataSection)


def write(root: Path, name: str, split: str, file: str, user_data: dict[str, Any]) -> None:
    """One LEAF JSON file: users, num_samples and user_data, as LEAF's scripts write it."""
    folder = root / name / "data" / split
    folder.mkdir(parents=True, exist_ok=True)
    doc = {
        "users": list(user_data),
        "num_samples": [len(d["y"]) for d in user_data.values()],
        "user_data": user_data,
    }
    (folder / file).write_text(json.dumps(doc))


def images(*pixel_bytes: int) -> list[list[float]]:
    """Images whose 784 pixels all equal k/255, one per k (LEAF's floats)."""
    return [[k / 255] * 784 for k in pixel_bytes]


def tiny_femnist(root: Path) -> None:
    # two train files, one test file; writer w3 has test rows only
    write(root, "femnist", "train", "a.json", {"w1": {"x": images(0, 255), "y": [5, 61]}})
    write(root, "femnist", "train", "b.json", {"w2": {"x": images(10, 20, 30), "y": [0, 0, 7]}})
    test = {
        "w2": {"x": images(40), "y": [3]},
        "w1": {"x": images(50), "y": [9]},
        "w3": {"x": images(60), "y": [1]},
    }
    write(root, "femnist", "test", "a.json", test)


def femnist_config(root: Path, n_clients: int = 2) -> Any:
    return DataConfig(dataset="femnist", root=str(root), n_clients=n_clients)


def test_femnist_gives_one_client_per_writer_with_its_own_rows(tmp_path: Path) -> None:
    tiny_femnist(tmp_path)
    cfg = femnist_config(tmp_path)

    data = load_data(cfg, seed=0)

    assert cfg.partition == "natural"
    assert data.n_clients == 2 and data.n_classes == 62
    assert data.train_offsets.tolist() == [0, 2, 5]  # w1 (file a), then w2 (file b)
    # held as the bytes k of LEAF's k/255, handed to a model as k/255
    assert data.x_train.shape == (5, 1, 28, 28) and data.x_train.dtype == torch.uint8
    assert data.x_values is not None and data.x_values.shape == (1, 256)
    assert data.x_train[:, 0, 0, 0].tolist() == [0, 255, 10, 20, 30]
    x = data.inputs(data.x_train)
    assert x.dtype == torch.float32 and x.shape == (5, 1, 28, 28)
    assert x[:, 0, 0, 0].tolist() == pytest.approx([0, 1, 10 / 255, 20 / 255, 30 / 255])
    assert data.y_train.tolist() == [5, 61, 0, 0, 7]
    # each client's own test rows (w1's, then w2's), then w3's, which no client holds
    assert data.test_offsets.tolist() == [0, 1, 2]
    assert data.y_test.tolist() == [9, 3, 1]
    assert data.x_test[:, 0, 0, 0].tolist() == [50, 40, 60]
    assert data.client_class.tolist() == [5, 0]


def test_a_later_load_maps_the_cache_until_a_file_changes(tmp_path: Path) -> None:
    tiny_femnist(tmp_path)
    first = load_data(femnist_config(tmp_path), seed=0)
    cache = tmp_path / ".fedwatch-cache"

    again = load_data(femnist_config(tmp_path), seed=0)
    write(tmp_path, "femnist", "train", "b.json", {"w2": {"x": images(1), "y": [4]}})
    changed = load_data(femnist_config(tmp_path), seed=0)

    assert (cache / "leaf-femnist-train-x.npy").is_file()
    assert (cache / "leaf-femnist-test-users-x.npy").is_file()
    assert torch.equal(again.x_train, first.x_train) and torch.equal(again.y_test, first.y_test)
    assert changed.y_train.tolist() == [5, 61, 4]


def test_femnist_fixes_the_number_of_clients(tmp_path: Path) -> None:
    tiny_femnist(tmp_path)

    with pytest.raises(ConfigError, match=r"^data\.n_clients: femnist .* has 2 users.*=2$"):
        load_data(femnist_config(tmp_path, n_clients=24), seed=0)


def test_a_missing_split_names_the_folder_and_leafs_script(tmp_path: Path) -> None:
    write(tmp_path, "femnist", "train", "a.json", {"w1": {"x": images(0), "y": [1]}})

    with pytest.raises(DatasetMissing, match=r"^data\.root: femnist's test split is missing") as e:
        load_data(femnist_config(tmp_path, 1), seed=0)

    assert "femnist/data/test" in str(e.value) and "preprocess.sh" in str(e.value)
    assert "torchvision" not in e.value.advice(False)


def test_a_user_without_data_names_the_file_and_the_key(tmp_path: Path) -> None:
    tiny_femnist(tmp_path)
    path = tmp_path / "femnist" / "data" / "train" / "b.json"
    doc = json.loads(path.read_text())
    doc["users"].append("ghost")
    doc["num_samples"].append(4)
    path.write_text(json.dumps(doc))

    with pytest.raises(ConfigError, match=r"^data\.root: user_data\.ghost in b\.json: no x and y"):
        load_data(femnist_config(tmp_path, 3), seed=0)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"num_samples": [5]}, r"a\.json: user_data\.w1: 2 x and 2 y where num_samples says 5"),
        ({"user_data": None}, r"a\.json lacks user_data"),
    ],
)
def test_a_file_unlike_leafs_is_refused(tmp_path: Path, change: dict, message: str) -> None:
    tiny_femnist(tmp_path)
    path = tmp_path / "femnist" / "data" / "train" / "a.json"
    doc = {**json.loads(path.read_text()), **change}
    path.write_text(json.dumps({k: v for k, v in doc.items() if v is not None}))

    with pytest.raises(ConfigError, match=message):
        load_data(femnist_config(tmp_path), seed=0)


def shakespeare_user(text: str) -> dict[str, list[str]]:
    """LEAF's samples of a role's text: every 80 characters, then the next one."""
    starts = range(len(text) - 80)
    return {"x": [text[i : i + 80] for i in starts], "y": [text[i + 80] for i in starts]}


def tiny_shakespeare(root: Path) -> tuple[str, str]:
    hamlet = "To be, or not to be: that is the question:\nWhether 'tis nobler in the mind to "
    hamlet += "suffer"
    juliet = "O Romeo, Romeo! wherefore art thou Romeo? Deny thy father and refuse thy name; "
    juliet += "[Aside]"
    write(root, "shakespeare", "train", "all.json", {"HAMLET": shakespeare_user(hamlet[:83])})
    write(root, "shakespeare", "train", "more.json", {"JULIET": shakespeare_user(juliet[:82])})
    test = {"HAMLET": shakespeare_user(hamlet[1:82]), "JULIET": shakespeare_user(juliet[2:83])}
    write(root, "shakespeare", "test", "all.json", test)
    return hamlet, juliet


def test_shakespeare_encodes_characters_with_leafs_alphabet(tmp_path: Path) -> None:
    hamlet, juliet = tiny_shakespeare(tmp_path)
    cfg = DataConfig(dataset="shakespeare", root=str(tmp_path), n_clients=2)

    data = load_data(cfg, seed=0)

    assert len(ALPHABET) == 80 and ALPHABET.index("\n") == 0 and ALPHABET.index("}") == 79
    assert data.n_clients == 2 and data.n_classes == 80
    assert data.train_offsets.tolist() == [0, 3, 5]
    assert data.x_train.shape == (5, 80) and data.x_train.dtype == torch.uint8
    assert data.x_train[0].tolist() == [ALPHABET.index(c) for c in hamlet[:80]]
    assert data.y_train.tolist() == [ALPHABET.index(c) for c in hamlet[80:83] + juliet[80:82]]
    assert ALPHABET.index("T") == 44 and data.x_train[0, 0] == 44  # "\n !\"&'(),-.0-9:;>?A..."
    assert data.test_offsets.tolist() == [0, 1, 2]
    assert data.y_test.tolist() == [ALPHABET.index(hamlet[81]), ALPHABET.index(juliet[82])]


def test_a_character_outside_leafs_alphabet_is_named(tmp_path: Path) -> None:
    text = "é" + "a" * 80
    write(tmp_path, "shakespeare", "train", "a.json", {"R": shakespeare_user(text)})
    write(tmp_path, "shakespeare", "test", "a.json", {"R": shakespeare_user(text)})
    cfg = DataConfig(dataset="shakespeare", root=str(tmp_path), n_clients=1)

    with pytest.raises(ConfigError, match=r"user_data\.R\.x: 'é' is not in LEAF's 80-character"):
        load_data(cfg, seed=0)


def test_a_natural_partition_of_a_pool_without_users_is_refused() -> None:
    with pytest.raises(ValueError, match=r"data\.natural\.by: digits has no users"):
        build_config({"data": {"dataset": "digits", "partition": "natural"}}, [])


@pytest.mark.parametrize(
    ("dataset", "model"),
    [("femnist", "leaf_cnn"), ("shakespeare", "leaf_lstm"), ("shakespeare", "transformer")],
)
def test_a_run_on_leaf_data_records_its_users_as_clients(
    tmp_path: Path, dataset: str, model: str
) -> None:
    tiny_femnist(tmp_path)
    tiny_shakespeare(tmp_path)
    cfg = build_config(
        {
            "rounds": 2,
            "data": {"dataset": dataset, "root": str(tmp_path), "n_clients": 2},
            "model": {"name": model},
            "algorithm": {"name": "fedavg", "participation": 2},
            "client": {"local_steps": 1, "batch_size": 2, "lr": 0.01},
        },
        [],
    )
    sink = ListSink()

    summary = simulate(cfg, sink)

    assert cfg.data.n_clients == 2 and cfg.data.partition == "natural"
    assert [sorted(r.selected.tolist()) for r in sink.records] == [[0, 1], [0, 1]]
    assert np.isfinite(sink.records[-1].metrics["test_loss"])
    assert 0 <= summary.to_dict()["final_test_acc"] <= 1


def test_the_submission_check_finds_a_missing_split_by_listing_alone(tmp_path: Path) -> None:
    write(tmp_path, "femnist", "train", "a.json", {"w1": {"x": images(0), "y": [5]}})
    complete = tmp_path / "complete"
    (complete / "femnist" / "data" / "train").mkdir(parents=True)
    (complete / "femnist" / "data" / "test").mkdir(parents=True)
    for split in ("train", "test"):  # not JSON at all: the check parses nothing
        (complete / "femnist" / "data" / split / "a.json").write_text("not parsed here")

    with pytest.raises(DatasetMissing, match=r"^data\.root: femnist's test split is missing"):
        check_dataset(femnist_config(tmp_path))
    check_dataset(femnist_config(complete))
    check_dataset(DataConfig(dataset="digits"))  # no layout: nothing to check


def test_a_run_with_a_user_without_data_stops_before_its_first_round(tmp_path: Path) -> None:
    tiny_femnist(tmp_path)
    path = tmp_path / "femnist" / "data" / "train" / "a.json"
    doc = json.loads(path.read_text())
    doc["users"].append("ghost")
    doc["num_samples"].append(1)
    path.write_text(json.dumps(doc))
    cfg = build_config(
        {"rounds": 2, "data": {"dataset": "femnist", "root": str(tmp_path), "n_clients": 3}},
        ["model.name=leaf_cnn", "algorithm.participation=2"],
    )
    sink = ListSink()

    with pytest.raises(ConfigError, match=r"^data\.root: user_data\.ghost in a\.json: no x and y"):
        simulate(cfg, sink)
    assert sink.records == []
