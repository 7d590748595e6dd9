"""The `hf` dataset on tiny datasets the tests write (`save_to_disk`, parquet)."""

import re
from pathlib import Path

import numpy as np
import pytest
import torch

datasets = pytest.importorskip("datasets", reason="the hf extra is not installed")
from flwr_datasets.partitioner import DirichletPartitioner  # noqa: E402

from worker.engine import ConfigError, ListSink, build_config, section_class, simulate  # noqa: E402
from worker.engine.components import current  # noqa: E402
from worker.engine.data import load_data  # noqa: E402
from worker.engine.data.federated import FederatedData  # noqa: E402
from worker.engine.data.hf import ROW, flower_seed  # noqa: E402
from worker.engine.sections import DataSection  # noqa: E402

DataConfig = section_class(current(), DataSection)


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The library's cache (parquet converted to Arrow) in the test's folder, not ~/.cache."""
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf-cache")


def tiny(n: int) -> dict[str, list]:
    """n samples of 3 features; sample i is (i, 2i, 3i) with label i mod 4 and writer
    i mod 5."""
    return {
        "x": [[float(i), 2.0 * i, 3.0 * i] for i in range(n)],
        "label": [i % 4 for i in range(n)],
        "writer": [f"w{i % 5}" for i in range(n)],
    }


def write_disk(root: Path, n_train: int = 40, n_test: int = 12) -> None:
    train, test = (
        datasets.Dataset.from_dict(tiny(n_train)),
        datasets.Dataset.from_dict(tiny(n_test)),
    )
    datasets.DatasetDict({"train": train, "test": test}).save_to_disk(str(root / "tiny"))


def write_parquet(root: Path) -> None:
    (root / "pq").mkdir()
    datasets.Dataset.from_dict(tiny(40)).to_parquet(str(root / "pq" / "train.parquet"))
    datasets.Dataset.from_dict(tiny(12)).to_parquet(str(root / "pq" / "test.parquet"))


def config(root: Path, path: str = "tiny", n_clients: int = 4, **hf: object) -> DataSection:
    return DataConfig.model_validate(
        {
            "dataset": "hf",
            "root": str(root),
            "n_clients": n_clients,
            "seed": 3,
            "hf": {"path": path, "features": "x", **hf},
        }
    )


def client_sizes(data: FederatedData) -> list[int]:
    return torch.diff(data.train_offsets).tolist()


def test_save_to_disk_iid_gives_every_sample_once_and_the_test_split_centrally(
    tmp_path: Path,
) -> None:
    write_disk(tmp_path)

    data = load_data(config(tmp_path), seed=0)

    assert data.n_clients == 4 and data.n_classes == 4
    assert client_sizes(data) == [10, 10, 10, 10]
    assert data.x_train.shape == (40, 3) and data.x_train.dtype == torch.float32
    assert sorted(data.x_train[:, 0].tolist()) == [float(i) for i in range(40)]
    assert torch.equal(data.y_train, data.x_train[:, 0].long() % 4)  # labels follow rows
    assert data.test_offsets.tolist() == [0, 0, 0, 0, 0]  # no client holds test rows
    assert data.x_test.shape == (12, 3) and data.y_test.tolist() == [i % 4 for i in range(12)]


def test_parquet_natural_makes_one_client_per_writer(tmp_path: Path) -> None:
    write_parquet(tmp_path)

    data = load_data(
        config(tmp_path, "pq", n_clients=5, partitioner="natural", partition_by="writer"),
        seed=0,
    )

    assert client_sizes(data) == [8] * 5 and data.n_classes == 4
    assert data.x_train.shape == (40, 3) and data.x_test.shape == (12, 3)
    assert torch.equal(data.y_train, data.x_train[:, 0].long() % 4)
    for k in range(5):  # writer w_k holds the samples i with i mod 5 = k, in some order
        a, b = data.train_offsets[k], data.train_offsets[k + 1]
        writers = {int(v) % 5 for v in data.x_train[a:b, 0].tolist()}
        assert len(writers) == 1


def test_natural_with_the_wrong_client_count_names_the_count(tmp_path: Path) -> None:
    write_parquet(tmp_path)

    cfg = config(tmp_path, "pq", n_clients=4, partitioner="natural", partition_by="writer")
    with pytest.raises(ConfigError, match=r"data\.n_clients: .* set data\.n_clients=5"):
        load_data(cfg, seed=0)


def test_pathological_gives_each_client_its_classes(tmp_path: Path) -> None:
    write_disk(tmp_path)

    data = load_data(config(tmp_path, partitioner="pathological", classes_per_client=1), seed=0)

    # first-deterministic: client k is given class k mod 4, and each class its own client
    held = [
        set(data.y_train[a:b].tolist())
        for a, b in zip(data.train_offsets[:-1], data.train_offsets[1:], strict=True)
    ]
    assert held == [{0}, {1}, {2}, {3}] and client_sizes(data) == [10] * 4


def test_linear_sizes_grow_with_the_client_index(tmp_path: Path) -> None:
    write_disk(tmp_path)

    data = load_data(config(tmp_path, partitioner="linear"), seed=0)

    # LinearPartitioner: client k holds ∝ k + 1 of 40 rows, 4/10, 8/10 ... of the total
    assert client_sizes(data) == [4, 8, 12, 16]


def test_dirichlet_is_flower_datasets_own_split_on_the_same_seed(tmp_path: Path) -> None:
    write_disk(tmp_path, n_train=200)
    cfg = config(tmp_path, partitioner="dirichlet", alpha=0.3, min_partition_size=5)

    data = load_data(cfg, seed=0)

    train = datasets.load_from_disk(str(tmp_path / "tiny"))["train"]
    flower = DirichletPartitioner(4, "label", 0.3, 5, seed=flower_seed(np.random.default_rng(3)))
    flower.dataset = train.add_column(ROW, list(range(len(train))))
    for k in range(4):
        a, b = data.train_offsets[k], data.train_offsets[k + 1]
        theirs = [float(i) for i in flower.load_partition(k)[ROW]]
        assert data.x_train[a:b, 0].tolist() == theirs


def test_a_lone_saved_split_holds_out_test_fraction_for_the_central_test(
    tmp_path: Path,
) -> None:
    datasets.Dataset.from_dict(tiny(40)).save_to_disk(str(tmp_path / "lone"))

    data = load_data(config(tmp_path, "lone", test_fraction=0.25), seed=0)

    assert len(data.y_train) == 30 and len(data.y_test) == 10
    rows = sorted(data.x_train[:, 0].tolist() + data.x_test[:, 0].tolist())
    assert rows == [float(i) for i in range(40)]  # every sample once, in one split or the other
    with pytest.raises(ConfigError, match=r"^data\.hf\.test_split: .*data\.hf\.test_fraction"):
        load_data(config(tmp_path, "lone"), seed=0)


def test_image_columns_become_channels_first_pixels_in_minus_one_one(tmp_path: Path) -> None:
    gray = [np.full((4, 5), 255 * (i % 2), dtype=np.uint8) for i in range(6)]
    image = datasets.Features({"img": datasets.Image(), "label": datasets.ClassLabel(3)})
    split = datasets.Dataset.from_dict({"img": gray, "label": [0, 1, 2, 0, 1, 2]}, image)
    datasets.DatasetDict({"train": split, "test": split}).save_to_disk(str(tmp_path / "im"))

    data = load_data(config(tmp_path, "im", n_clients=2, features="img"), seed=0)

    assert data.x_train.shape == (6, 1, 4, 5) and data.n_classes == 3
    assert data.x_train.dtype == torch.uint8  # held as bytes, handed over in [-1, 1]
    assert sorted({float(v) for v in data.inputs(data.x_train).flatten().tolist()}) == [-1.0, 1.0]


def test_colour_images_are_held_as_bytes_giving_their_old_floats(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    rgb = [rng.integers(0, 256, (4, 5, 3), dtype=np.uint8) for _ in range(6)]
    image = datasets.Features({"img": datasets.Image(), "label": datasets.ClassLabel(3)})
    split = datasets.Dataset.from_dict({"img": rgb, "label": [0, 1, 2, 0, 1, 2]}, image)
    datasets.DatasetDict({"train": split, "test": split}).save_to_disk(str(tmp_path / "im"))

    data = load_data(config(tmp_path, "im", n_clients=2, features="img"), seed=0)

    assert data.x_test.dtype == torch.uint8 and data.x_test.shape == (6, 3, 4, 5)
    assert data.x_values is not None and data.x_values.shape == (3, 256)
    pixels = np.stack(rgb).transpose(0, 3, 1, 2).astype(np.float32)
    up_front = torch.as_tensor(pixels / 127.5 - 1.0)  # how the loader held them before
    assert torch.equal(data.inputs(data.x_test), up_front)  # the test split keeps its order


@pytest.mark.parametrize(
    ("hf", "key"),
    [
        ({"label": "digit"}, "data.hf.label"),
        ({"features": "pixels"}, "data.hf.features"),
        ({"partitioner": "natural", "partition_by": "speaker"}, "data.hf.partition_by"),
        ({"test_split": "validation"}, "data.hf.test_split"),
        ({"partitioner": "pathological", "classes_per_client": 5}, "data.hf.classes_per_client"),
        ({"path": "../outside"}, "data.hf.path"),
        ({"path": "nothing-here/"}, "data.hf.path"),
        ({"path": "uoft-cs/cifar10"}, "data.hf.path"),  # a hub id, data.download off
    ],
)
def test_bad_input_names_the_key(tmp_path: Path, hf: dict, key: str) -> None:
    write_disk(tmp_path)
    cfg = config(tmp_path, **{"features": "x", **hf})

    with pytest.raises(ConfigError, match="^" + re.escape(key) + ": "):
        load_data(cfg, seed=0)


def test_a_run_trains_on_it_and_evaluates_the_test_split_centrally(tmp_path: Path) -> None:
    write_disk(tmp_path)
    data = {"dataset": "hf", "root": str(tmp_path), "n_clients": 4, "seed": 3}
    hf = {"path": "tiny", "features": "x", "partitioner": "dirichlet", "alpha": 1.0}
    config = build_config(
        {
            "rounds": 2,
            "device": "cpu",
            "algorithm": {"participation": 2},
            "model": {"name": "mlp"},
            "data": {**data, "hf": hf},
        }
    )

    summary = simulate(config, ListSink()).to_dict()

    assert config.data.partition == "flower"
    assert summary["rounds_done"] == 2 and 0.0 <= summary["final_test_acc"] <= 1.0
    assert summary["final_client_acc_mean"] is None  # the test split is no client's


def write_lines(
    root: Path, xs: list[str], ys: list[str], roles: list[str], test: bool = False
) -> None:
    """A text dataset laid out as flwrlabs/shakespeare's: a train split of string
    columns `character_id`, `x` and `y`, as parquet (and the same rows as a test split)."""
    (root / "lines").mkdir()
    split = datasets.Dataset.from_dict({"character_id": roles, "x": xs, "y": ys})
    for name in ("train", "test") if test else ("train",):
        split.to_parquet(str(root / "lines" / f"{name}.parquet"))


def text_config(root: Path, **hf: object) -> DataSection:
    text = {"features": "x", "label": "y", "kind": "text", "partitioner": "natural"}
    return config(root, "lines", n_clients=2, **{**text, "partition_by": "character_id", **hf})


def test_text_columns_are_read_character_by_character_in_leaf_s_alphabet(
    tmp_path: Path,
) -> None:
    # LEAF's alphabet: "\n" 0, " " 1, "!" 2, ... "A" 25, ... "a" 53, "b" 54, "c" 55.
    xs = ["ab c", "ba!A", "cc  ", "a\nbc", "Abc!", "  ab"]
    write_lines(tmp_path, xs, ["c", "a", "b", "!", " ", "A"], ["r1", "r2"] * 3)

    data = load_data(text_config(tmp_path, test_fraction=0.5), seed=0)

    assert data.n_clients == 2 and data.n_classes == 80
    assert data.x_train.dtype == torch.uint8 and data.x_train.shape == (3, 4)
    assert data.x_test.shape == (3, 4)
    rows = {tuple(r) for r in torch.cat([data.x_train, data.x_test]).tolist()}
    assert rows == {
        (53, 54, 1, 55),  # "ab c"
        (54, 53, 2, 25),  # "ba!A"
        (55, 55, 1, 1),  # "cc  "
        (53, 0, 54, 55),  # "a\nbc"
        (25, 54, 55, 2),  # "Abc!"
        (1, 1, 53, 54),  # "  ab"
    }
    labels = sorted(torch.cat([data.y_train, data.y_test]).tolist())
    assert labels == [1, 2, 25, 53, 54, 55]  # " ", "!", "A", "a", "b", "c"


def test_a_character_lstm_trains_on_a_text_dataset(tmp_path: Path) -> None:
    xs = ["ab c", "ba!A", "cc  ", "a bc", "Abc!", "  ab", "bbbb", "c!c!"]
    write_lines(tmp_path, xs, list("cab! Aba"), ["r1", "r2"] * 4)
    data = {"dataset": "hf", "root": str(tmp_path), "n_clients": 2, "seed": 3}
    hf = {"path": "lines", "features": "x", "label": "y", "kind": "text", "dimension": 4}
    hf |= {"partitioner": "natural", "partition_by": "character_id", "test_fraction": 0.25}
    raw = {"rounds": 2, "device": "cpu", "algorithm": {"participation": 2}}
    raw |= {"model": {"name": "leaf_lstm", "leaf_lstm": {"hidden": 8}}, "data": {**data, "hf": hf}}

    summary = simulate(build_config(raw), ListSink()).to_dict()

    assert summary["rounds_done"] == 2 and 0.0 <= summary["final_test_acc"] <= 1.0
    with pytest.raises(ConfigError, match=r"model\.name: leaf_lstm needs text data; hf is image"):
        build_config({**raw, "data": {**data, "hf": {**hf, "kind": "image"}}})
    small = {"name": "leaf_lstm", "leaf_lstm": {"vocabulary": 79}}
    with pytest.raises(ConfigError, match=r"model\.leaf_lstm\.vocabulary: .* set it to 80 or more"):
        build_config({**raw, "model": small})


@pytest.mark.parametrize(
    ("xs", "hf", "message"),
    [
        (["ab", "ba", "cc", "aa"], {"kind": "image"}, r"data\.hf\.kind: column 'x' holds text"),
        (["ab", "ba", "ccc", "aa"], {}, r"data\.hf\.features: 'x': strings of 2 characters"),
        (["ab", "bé", "cc", "aa"], {}, r"data\.hf\.features: 'x': 'é' is not in LEAF's"),
    ],
)
def test_bad_text_names_the_key(tmp_path: Path, xs: list[str], hf: dict, message: str) -> None:
    write_lines(tmp_path, xs, ["a", "b", "c", "a"], ["r1", "r2"] * 2, test=True)

    with pytest.raises(ConfigError, match="^" + message):
        load_data(text_config(tmp_path, **hf), seed=0)


def test_text_kind_on_a_column_of_numbers_is_refused(tmp_path: Path) -> None:
    write_disk(tmp_path)

    with pytest.raises(ConfigError, match=r"^data\.hf\.kind: text needs a column of strings"):
        load_data(config(tmp_path, kind="text"), seed=0)
