"""What LEAF's files say of their size without their samples being parsed, and what a
run's estimate makes of it: the largest writer's local steps, the reading's memory."""

import json
from pathlib import Path

import pytest

from tests.engine.test_leaf import tiny_femnist
from worker.engine import ConfigError, build_config
from worker.engine.data import leaf
from worker.engine.data.leaf import PARSED_NUMBER, file_sizes, head_counts
from worker.engine.resources import estimate
from worker.engine.resources.sizes import run_sizes


def femnist_run(root: Path, n_clients: int = 2) -> dict[str, object]:
    return {
        "data": {"dataset": "femnist", "root": str(root), "n_clients": n_clients},
        "model": {"name": "leaf_cnn"},
        "algorithm": {"participation": 2},
        "client": {"local_steps": 1, "unit": "epochs", "batch_size": 2},
    }


def test_the_head_of_a_file_gives_its_counts(tmp_path: Path) -> None:
    tiny_femnist(tmp_path)
    train = tmp_path / "femnist" / "data" / "train"
    assert head_counts(train / "a.json") == [2]
    assert head_counts(train / "b.json") == [3]


def test_a_head_not_as_leaf_writes_it_gives_nothing(tmp_path: Path) -> None:
    data_first = tmp_path / "first.json"
    data_first.write_text(json.dumps({"user_data": {"u": {}}, "users": ["u"], "num_samples": [1]}))
    not_counts = tmp_path / "strings.json"
    not_counts.write_text('{"users": ["u"], "num_samples": ["1"], "user_data": {}}')
    no_key = tmp_path / "other.json"
    no_key.write_text('{"rows": [1, 2]}')
    assert [head_counts(p) for p in (data_first, not_counts, no_key)] == [None, None, None]


def json_bytes(root: Path) -> dict[str, int]:
    folder = root / "femnist" / "data"
    return {f"{p.parent.name}/{p.name}": p.stat().st_size for p in folder.rglob("*.json")}


def test_file_sizes_by_hand(tmp_path: Path) -> None:
    tiny_femnist(tmp_path)  # train files of 2 and 3 samples, a test file of 3
    text = json_bytes(tmp_path)
    # the test file's 3 images (long reprs of 40/255, 50/255, 60/255) take the most text
    assert text["test/a.json"] > text["train/b.json"] > text["train/a.json"]
    whole = file_sizes(tmp_path, "femnist", decoded=784, parsed=PARSED_NUMBER * 784)
    by_user = file_sizes(tmp_path, "femnist", 784, PARSED_NUMBER * 784, raw_x=True)
    assert whole is not None and by_user is not None
    assert whole.largest_user == by_user.largest_user == 3  # writer w2
    # 8 samples decoded twice; two files read at once, each its text and its samples
    # parsed: the whole file's (3 in the test file) or its largest user's (3 in
    # train/b.json, w2's; 1 in the test file, whose 3 users hold 1 each)
    assert PARSED_NUMBER == 48
    by_file = text["test/a.json"] + 48 * 784 * 3
    by_user_file = max(text["train/b.json"] + 48 * 784 * 3, text["test/a.json"] + 48 * 784)
    assert whole.reading_bytes == 2 * 784 * 8 + 2 * by_file
    assert by_user.reading_bytes == 2 * 784 * 8 + 2 * by_user_file
    assert file_sizes(tmp_path / "elsewhere", "femnist", 784, 1) is None


def test_the_estimate_trains_the_largest_writer_not_the_whole_set(tmp_path: Path) -> None:
    tiny_femnist(tmp_path)
    on_disk = run_sizes(build_config(femnist_run(tmp_path)))
    absent = run_sizes(build_config(femnist_run(tmp_path / "none")))
    assert on_disk.steps == 2  # w2's 3 samples in batches of 2
    assert absent.steps == 724_736 // 2  # no files: the whole set, from above


def test_the_reading_term_comes_from_the_files(tmp_path: Path) -> None:
    tiny_femnist(tmp_path)
    terms = {t.label: t.amount for t in estimate(build_config(femnist_run(tmp_path))).memory}
    absent = estimate(build_config(femnist_run(tmp_path / "none")))
    reading = "generating or reading the data"
    text = json_bytes(tmp_path)
    files = 2 * max(text["train/b.json"] + 48 * 784 * 3, text["test/a.json"] + 48 * 784)
    assert terms[reading] == 2 * 784 * 8 + files + 16 * 724_736
    assert {t.label: t.amount for t in absent.memory}[reading] > 10 * 784 * 724_736


def test_the_held_data_term_counts_femnists_pixels_as_bytes(tmp_path: Path) -> None:
    tiny_femnist(tmp_path)
    terms = estimate(build_config(femnist_run(tmp_path))).memory
    (held,) = [t.amount for t in terms if t.label.startswith("train and test data")]
    # LEAF's 724 736 + 80 527 samples: 784 pixel bytes and an int64 label each
    assert held == (724_736 + 80_527) * (784 + 8)


def test_x_keys_are_counted_across_chunk_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(b'{"x": 1, "x":2,"x" :3, "xx": 4}')
    monkeypatch.setattr(leaf, "SCAN_CHUNK", 3)  # every key split across two chunks
    assert leaf.x_keys(path) == 2  # `"x" :` is not how json writes a key


def test_check_users_names_the_user_without_data(tmp_path: Path) -> None:
    tiny_femnist(tmp_path)
    leaf.check_users(tmp_path, "femnist")  # every listed user has its data
    path = tmp_path / "femnist" / "data" / "test" / "a.json"
    doc = json.loads(path.read_text())
    doc["users"].insert(1, "ghost")
    doc["num_samples"].insert(1, 2)
    path.write_text(json.dumps(doc))
    with pytest.raises(ConfigError, match=r"^data.root: user_data.ghost in a.json: no x and y"):
        leaf.check_users(tmp_path, "femnist")
