"""FEMNIST's pixels read from LEAF's JSON text as the bytes k of k/255, exactly: the
floats handed to the model equal those of the JSON parsed directly, a number written
otherwise is parsed, and a value off the grid is kept as a float, never rounded."""

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from tests.engine.test_leaf import femnist_config, images, write
from worker.engine import ConfigError
from worker.engine.data import load_data
from worker.engine.data.leaf_datasets import as_values, pixels
from worker.engine.data.leaf_grid import BY_WORD, CANON, HASH, SLOTS, grid
from worker.engine.data.leaf_text import RawJson, parse


def raw(text: bytes) -> RawJson:
    return RawJson(text, 0, len(text))


def test_grid_reads_the_bytes_by_hand() -> None:
    text = b"[[0.0,1.0,0.4],[0.00392156862745098,0.996078431372549,0.5019607843137255]]"
    assert grid(text, 3).tolist() == [[0, 255, 102], [1, 254, 128]]  # type: ignore[union-attr]
    spaced = b"[[0.0, 1.0, 0.4], [0.00392156862745098, 0.996078431372549, 0.5019607843137255]]"
    assert grid(spaced, 3).tolist() == [[0, 255, 102], [1, 254, 128]]  # type: ignore[union-attr]
    # other spacing is left to the JSON parser, which refuses a space inside a number
    assert grid(b"[[1 .0, 1.0]]", 2) is None and grid(b"[[1.0,\n1.0]]", 2) is None


def test_every_byte_round_trips_to_the_float32_of_leafs_float() -> None:
    text = json.dumps([[k / 255 for k in range(256)]]).encode()
    k = grid(text, 256)
    assert k is not None and k.tolist() == [list(range(256))]
    direct = np.asarray([k / 255 for k in range(256)], dtype=np.float32)  # the JSON parsed
    assert as_values(k)[0].tobytes() == direct.tobytes()  # the same bits, not only close


def test_each_repr_has_its_own_slot() -> None:
    words = CANON[:, 0]
    assert len(np.unique((words * HASH) >> SLOTS)) == 256
    assert BY_WORD[(words * HASH) >> SLOTS].tolist() == list(range(256))


@pytest.mark.parametrize(
    "text",
    [
        b"[[1,1.0]]",  # the same value written otherwise
        b"[[0.50196078431372548,1.0]]",  # 128/255 in 17 digits: the same float64
        b"[[0.5,1.0]]",  # off the grid
        b"[[0.5019607843137254,1.0]]",  # one digit off repr(128/255)
        b"[[1.0,0.123456789]]",  # a long number last: its words read past the text
        b"[[1.0,0.50196078431372548123456]]",  # 24 characters, the longest compared
        b"[[1.0,0.501960784313725481234567]]",  # 25: longer than any repr(k/255)
        b"[[-0.0,1.0]]",
        b"[[1.0e0,1.0]]",
        b"[[1.0,1.0,1.0]]",  # a row one pixel long
        b"[[1.0],[1.0,1.0]]",
        b"[[1.0,1.0]]x",
        b"[[1.0,,1.0]]",
        b"[[1.0,1.0][1.0,1.0]]",
        b"[]",
        b"[[1.0,1.0],x[1.0,1.0]]",  # something between the rows
        b"[[1.0, 1.0] ,[1.0, 1.0]]",  # a space not after a comma
        b"[[1.0, 1.0],  [1.0, 1.0]]",
    ],
)
def test_grid_reads_nothing_but_lists_of_reprs_of_k_over_255(text: bytes) -> None:
    assert grid(text, 2) is None


def image(first: bytes, rest: bytes = b"1.0") -> RawJson:
    """One image's text: its first pixel as given, the other 783 `rest`."""
    return raw(b"[[" + b", ".join([first] + [rest] * 783) + b"]]")


def test_pixels_parse_what_the_grid_does_not_read() -> None:
    on_grid_otherwise = pixels(image(b"0.50196078431372548", b"1"), "w")
    assert on_grid_otherwise.dtype == np.uint8
    assert on_grid_otherwise[0, :2].tolist() == [128, 255]
    off = pixels(image(b"0.5"), "w")
    assert off.dtype == np.float32 and off[0, :2].tolist() == [0.5, 1.0]
    assert pixels(image(b"2.0"), "w").dtype == np.float32  # 510/255: not a byte
    assert pixels(image(b"-0.0"), "w").dtype == np.float32
    assert pixels(image(b"0.4"), "w")[0, :2].tolist() == [102, 255]  # the grid's own
    with pytest.raises(ConfigError, match=r"^data\.root: w: not readable JSON"):
        pixels(raw(b"[[0.5, 1.0]"), "w")
    with pytest.raises(ConfigError, match=r"^data\.root: w: images of 784 pixels expected"):
        pixels(raw(b"[[0.4, 1.0]]"), "w")


def test_the_text_is_cut_where_leaf_writes_x_and_parsed_around_it() -> None:
    data = b'{"users": ["a\\"x\\": [[b"], "user_data": {"a\\"x\\": [[b": {"x": [[1.0]], "y": [3]}}}'
    doc = parse(data)
    x = doc["user_data"]['a"x": [[b']["x"]
    assert isinstance(x, RawJson) and x.text() == b"[[1.0]]" and doc["users"] == ['a"x": [[b']
    own_nan = b'{"n": NaN, "u": {"x": [[1.0]]}}'
    assert parse(own_nan)["u"]["x"] == [[1.0]]  # the file's NaN: parsed whole
    indented = json.dumps({"u": {"x": [[1.0], [0.0]], "y": [1, 2]}}, indent=1).encode()
    assert parse(indented)["u"]["x"].parse() == [[1.0], [0.0]]
    assert parse(b'{"u": {"x": [], "y": []}}')["u"]["x"] == []


def folder_with(tmp_path: Path, train_x: list[list[float]]) -> None:
    """One writer's train images `train_x` and one test image."""
    write(tmp_path, "femnist", "train", "a.json", {"w1": {"x": train_x, "y": [1] * len(train_x)}})
    write(tmp_path, "femnist", "test", "a.json", {"w1": {"x": images(3), "y": [2]}})


def test_a_folder_off_the_grid_keeps_its_floats(tmp_path: Path) -> None:
    off = [[0.123456789] * 784, [1 / 3] * 784]
    # w1 on the grid, read as bytes first; w2 off it, after: w1's bytes are widened
    write(tmp_path, "femnist", "train", "a.json", {"w1": {"x": images(7, 255), "y": [1, 2]}})
    write(tmp_path, "femnist", "train", "b.json", {"w2": {"x": off, "y": [3, 4]}})
    write(tmp_path, "femnist", "test", "a.json", {"w1": {"x": images(3), "y": [2]}})

    data = load_data(femnist_config(tmp_path, 2), seed=0)

    direct = torch.tensor(images(7, 255) + off, dtype=torch.float32).view(-1, 1, 28, 28)
    assert data.x_values is None  # floats, handed to the model as they are
    assert torch.equal(data.x_train, direct)  # not rounded to k/255
    assert torch.equal(data.inputs(data.x_train), direct)
    assert data.x_test.flatten().unique().tolist() == [np.float32(3 / 255)]


def test_a_folder_on_the_grid_gives_the_floats_of_its_json(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    x = (rng.integers(0, 256, (3, 784)) / 255).tolist()
    folder_with(tmp_path, x)

    data = load_data(femnist_config(tmp_path, 1), seed=0)

    assert data.x_train.dtype == torch.uint8 and data.x_values is not None
    direct = torch.tensor(x, dtype=torch.float32).view(-1, 1, 28, 28)
    assert torch.equal(data.inputs(data.x_train), direct)


def test_a_writer_without_samples_is_refused_as_before(tmp_path: Path) -> None:
    write(tmp_path, "femnist", "train", "a.json", {"w1": {"x": images(1), "y": [1]}})
    write(tmp_path, "femnist", "train", "b.json", {"w2": {"x": [], "y": []}})
    write(tmp_path, "femnist", "test", "a.json", {"w1": {"x": images(3), "y": [2]}})

    with pytest.raises(ConfigError, match=r"femnist train split: user_data\.w2 holds no samples"):
        load_data(femnist_config(tmp_path, 2), seed=0)
