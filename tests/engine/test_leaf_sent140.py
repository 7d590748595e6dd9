"""LEAF's Sent140 from tiny JSON files in LEAF's exact format: one client per Twitter
user, LEAF's tokenisation, the train split's vocabulary, and the refusals."""

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from fedwatch.command import main
from tests.engine.test_leaf import write
from worker.engine import ConfigError, DatasetMissing, build_config, section_class
from worker.engine.components import current
from worker.engine.data import check_dataset, leaf_sent140, load_data
from worker.engine.data.leaf_sent140 import (
    PAD,
    SENT140,
    SEQUENCE,
    UNKNOWN,
    hashed,
    split_line,
    token_ids,
    tweets,
    vocabulary,
)
from worker.engine.sections import DataSection

DataConfig = section_class(current(), DataSection)
U = UNKNOWN


def user(user: str, *labelled: tuple[str, int]) -> dict[str, Any]:
    """A user's rows as LEAF's `data_to_json.py` writes them: [id, date, query, user,
    text] and the label 0 or 1."""
    rows = [
        [str(1000 + i), "Sat May 16 23:58:44 UTC 2009", "NO_QUERY", user, text]
        for i, (text, _) in enumerate(labelled)
    ]
    return {"x": rows, "y": [label for _, label in labelled]}


def tiny_sent140(root: Path) -> None:
    # two train files; carol has test rows only
    alice = user("alice", ("good day good", 1), ("bad day", 0))
    bob = user("bob", ("good!", 1), ("so bad", 0), ("day", 1))
    write(root, "sent140", "train", "a.json", {"alice": alice})
    write(root, "sent140", "train", "b.json", {"bob": bob})
    test = {
        "bob": user("bob", ("bad bad", 0)),
        "carol": user("carol", ("good grief", 1)),
        "alice": user("alice", ("so good", 1)),
    }
    write(root, "sent140", "test", "a.json", test)


def config(root: Path, n_clients: int = 2) -> Any:
    return DataConfig(dataset="sent140", root=str(root), n_clients=n_clients)


def padded(*ids: int) -> list[int]:
    return [*ids] + [U] * (SEQUENCE - len(ids))


def test_sent140_gives_one_client_per_user_with_the_train_splits_vocabulary(
    tmp_path: Path,
) -> None:
    tiny_sent140(tmp_path)

    data = load_data(config(tmp_path), seed=0)

    # train words in reading order: good day good | bad day | good ! | so bad | day:
    # good 3 (first), day 3, bad 2, ! 1, so 1 -> ids 0, 1, 2, 3, 4
    assert data.n_clients == 2 and data.n_classes == 2
    assert data.train_offsets.tolist() == [0, 2, 5]  # alice (file a), then bob (file b)
    assert data.x_train.shape == (5, 25) and data.x_train.dtype == torch.int16
    assert data.x_train.tolist() == [
        padded(0, 1, 0), padded(2, 1), padded(0, 3), padded(4, 2), padded(1)
    ]  # fmt: skip
    assert data.y_train.tolist() == [1, 0, 1, 0, 1]
    # each client's own test rows (alice's, then bob's), then carol's; grief is unknown
    assert data.test_offsets.tolist() == [0, 1, 2]
    assert data.x_test.tolist() == [padded(4, 0), padded(2, 2), padded(0, U)]
    assert data.y_test.tolist() == [1, 0, 1]


def test_words_are_split_as_leafs_split_line_does() -> None:
    text = "@bob I can't   believe it...so GOOD!! #fun :) café 12"

    words = split_line(text)

    assert words == [
        "bob", "I", "can't", "believe", "it", ".", ".", ".", "so", "GOOD", "!", "!", "fun",
        "café", "12",
    ]  # fmt: skip


def test_a_tweet_keeps_its_first_25_words_then_padding() -> None:
    long = " ".join(f"w{i}" for i in range(30))
    rows = [["1", "d", "NO_QUERY", "u", long], ["2", "d", "NO_QUERY", "u", "Hi, you"]]

    hashes = tweets(rows, "here")

    assert hashes.shape == (2, 25) and hashes.dtype == np.uint64
    assert hashes[0].tolist() == [hashed(f"w{i}") for i in range(25)]
    assert hashes[1].tolist() == [hashed("Hi"), hashed(","), hashed("you")] + [0] * 22
    assert all(hashed(w) % 2 == 1 for w in ("a", "b", "!"))  # never PAD
    assert tweets([], "here").shape == (0, 25)


def test_the_vocabulary_counts_words_and_breaks_ties_by_first_sight(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hashes = np.array([[5, 3, 0], [3, 7, 5], [9, 0, 0]], dtype=np.uint64)

    words = vocabulary(hashes)
    monkeypatch.setattr(leaf_sent140, "VOCABULARY", 2)
    top = vocabulary(hashes)

    assert words.tolist() == [5, 3, 7, 9]  # 5 and 3 twice (5 first), then 7 and 9 once
    assert top.tolist() == [5, 3]
    assert token_ids(hashes, top).tolist() == [[0, 1, U], [1, U, 0], [U, U, U]]


def test_padding_alone_gives_an_empty_vocabulary_and_unknown_ids() -> None:
    hashes = np.full((2, 3), PAD, dtype=np.uint64)

    words = vocabulary(hashes)

    assert len(words) == 0
    assert (token_ids(hashes, words) == U).all()


def test_sent140_fixes_the_number_of_clients(tmp_path: Path) -> None:
    tiny_sent140(tmp_path)

    with pytest.raises(ConfigError, match=r"^data\.n_clients: sent140 .* has 2 users.*=2$"):
        load_data(config(tmp_path, n_clients=3), seed=0)


def test_a_missing_split_is_named_at_submission(tmp_path: Path) -> None:
    tiny_sent140(tmp_path)
    for file in (tmp_path / "sent140" / "data" / "test").iterdir():
        file.unlink()

    with pytest.raises(DatasetMissing, match=r"^data\.root: sent140's test split is missing"):
        check_dataset(config(tmp_path))


def test_a_user_without_data_is_named_at_submission(tmp_path: Path) -> None:
    tiny_sent140(tmp_path)
    path = tmp_path / "sent140" / "data" / "train" / "b.json"
    doc = json.loads(path.read_text())
    doc["users"].append("ghost")
    doc["num_samples"].append(2)
    path.write_text(json.dumps(doc))

    with pytest.raises(ConfigError, match=r"^data\.root: user_data\.ghost in b\.json: no x and y"):
        check_dataset(config(tmp_path, 3))


@pytest.mark.parametrize(
    ("alice", "message"),
    [
        ({"x": [["1", "d", "q"]], "y": [1]}, r"user_data\.alice\.x\[0\]: a row \[id, date"),
        (user("alice", ("fine", 2)), r"user_data\.alice\.y: labels 0 or 1 expected"),
    ],
)
def test_a_row_unlike_leafs_is_refused(tmp_path: Path, alice: dict, message: str) -> None:
    tiny_sent140(tmp_path)
    write(tmp_path, "sent140", "train", "a.json", {"alice": alice})

    with pytest.raises(ConfigError, match=message):
        load_data(config(tmp_path), seed=0)


def test_the_facts_state_leafs_full_set_and_sequence() -> None:
    assert (SENT140.n_classes, SENT140.kind, SENT140.shape) == (2, "text", (25,))
    assert (SENT140.train, SENT140.test) == (1_440_448, 160_050)  # 1 600 498 (LEAF), 9:1
    assert SENT140.users and SENT140.auto == "natural"


@pytest.mark.parametrize(
    "model",
    [
        {"name": "sent140_lstm", "sent140_lstm": {"hidden": 8, "dense": 8}},
        {"name": "transformer", "transformer": {"vocabulary": 10_001, "width": 8, "heads": 2}},
    ],
)
def test_the_cli_runs_sent140_with_one_client_per_user(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    model: dict[str, Any],
) -> None:
    tiny_sent140(tmp_path / "data")
    monkeypatch.setenv("FEDWATCH_DATA_ROOT", str(tmp_path / "data"))
    run = {
        "rounds": 2,
        "device": "cpu",
        "data": {"dataset": "sent140", "n_clients": 2, "root": "."},
        "model": model,
        "algorithm": {"name": "fedavg", "participation": 2},
        "client": {"local_steps": 1, "batch_size": 2, "lr": 0.1},
    }
    (tmp_path / "run.json").write_text(json.dumps(run))
    out = tmp_path / "result.json"

    code = main(["simulate", str(tmp_path / "run.json"), "--out", str(out)])

    assert code == 0, capsys.readouterr().err
    result = json.loads(out.read_text())
    assert result["config"]["data"]["n_clients"] == 2
    assert result["config"]["data"]["partition"] == "natural"
    assert len(result["rounds"]) == 2
    assert 0 <= result["summary"]["final_test_acc"] <= 1


@pytest.mark.parametrize(
    ("dataset", "model", "message"),
    [
        (
            "sent140",
            {"name": "transformer"},
            r"transformer\.vocabulary: sent140's token ids run to 10000; set it to 10001",
        ),
        (
            "shakespeare",
            {"name": "leaf_lstm", "leaf_lstm": {"vocabulary": 79}},
            r"leaf_lstm\.vocabulary: shakespeare's token ids run to 79; set it to 80",
        ),
    ],
)
def test_an_embedding_smaller_than_the_datasets_token_ids_is_refused(
    dataset: str, model: dict[str, Any], message: str
) -> None:
    run = {"data": {"dataset": dataset, "n_clients": 2}, "algorithm": {"participation": 2}}

    with pytest.raises(ValueError, match=rf"^model\.{message} or more$"):
        build_config({**run, "model": model}, [])
    build_config({**run, "model": {"name": "sent140_lstm"}}, [])  # 10 001 ids: fits
