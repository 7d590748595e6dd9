import pickle
import struct
from pathlib import Path

import numpy as np
import pytest
import torch

from worker.engine import DatasetMissing, section_class
from worker.engine.components import current
from worker.engine.data import load_data
from worker.engine.data.federated import assign_test_by_label
from worker.engine.data.partitions.by_class import by_class
from worker.engine.data.partitions.dirichlet import dirichlet
from worker.engine.data.partitions.iid import iid
from worker.engine.data.partitions.label_swap import swap_permutation
from worker.engine.sections import DataSection

DataConfig = section_class(current(), DataSection)


def rng() -> np.random.Generator:
    return np.random.default_rng(0)


def test_iid_splits_evenly() -> None:
    parts = iid(10, 3, rng())

    assert sorted(len(p) for p in parts) == [3, 3, 4]
    assert sorted(np.concatenate(parts).tolist()) == list(range(10))


def test_by_class_gives_each_client_c_classes() -> None:
    labels = np.repeat(np.arange(10), 30)

    parts = by_class(labels, 20, 2, "balanced", 0.0, rng())

    assert all(len(np.unique(labels[p])) == 2 for p in parts)
    assert all(k % 10 in labels[p] for k, p in enumerate(parts))
    assert sorted(np.concatenate(parts).tolist()) == list(range(300))


def test_by_class_normal_sizes_are_unbalanced_but_nonempty() -> None:
    labels = np.repeat(np.arange(10), 1000)

    sizes = [len(p) for p in by_class(labels, 100, 1, "normal", 0.5, rng())]

    assert min(sizes) >= 1 and max(sizes) > 1.5 * min(sizes) and sum(sizes) == 10_000


def test_dirichlet_small_alpha_concentrates_labels() -> None:
    labels = np.repeat(np.arange(10), 200)

    parts = dirichlet(labels, 10, 0.05, rng())

    top_share = [np.bincount(labels[p], minlength=10).max() / len(p) for p in parts if len(p)]
    assert np.mean(top_share) > 0.6


def test_label_swap_permutations_by_hand() -> None:
    assert swap_permutation(0, 10, 2).tolist() == list(range(10))
    assert swap_permutation(1, 10, 2).tolist() == [1, 0, 3, 2, 4, 5, 6, 7, 8, 9]
    assert swap_permutation(2, 10, 2).tolist() == [0, 1, 2, 3, 5, 4, 7, 6, 8, 9]


def test_test_rows_follow_each_clients_train_labels() -> None:
    y_test = np.array([0, 0, 0, 0, 1, 1, 2])
    train = [np.array([0, 0, 0]), np.array([0, 1]), np.array([1])]

    parts = assign_test_by_label(y_test, train, rng())

    # class 0: train counts 3:1 over 4 rows → 3 and 1; class 1: 1:1 → 1 and 1; class 2: nobody
    assert [sorted(y_test[p].tolist()) for p in parts] == [[0, 0, 0], [0, 1], [1]]


def test_label_swap_dataset_swaps_the_second_cluster() -> None:
    cfg = DataConfig.model_validate(
        {
            "dataset": "digits",
            "n_clients": 4,
            "partition": "label_swap",
            "label_swap": {"swap_pairs": 1},
        }
    )
    plain = load_data(DataConfig(dataset="digits", n_clients=4, partition="iid"), seed=0)

    data = load_data(cfg, seed=0)

    assert data.cluster.tolist() == [0, 0, 1, 1]
    lo = int(data.train_offsets[2])
    swapped = torch.as_tensor(swap_permutation(1, 10, 1))[plain.y_train[lo:]]
    assert torch.equal(data.y_train[lo:], swapped)
    assert torch.equal(data.y_train[:lo], plain.y_train[:lo])


def test_synthetic_clustered_shapes_and_noisier_second_cluster() -> None:
    cfg = DataConfig.model_validate(
        dict(n_clients=4, synthetic_clustered={"train_per_client": 2000, "test_per_client": 10})
    )

    data = load_data(cfg, seed=0)

    assert data.x_train.shape == (8000, 10) and data.x_test.shape == (40, 10)
    assert data.sizes.tolist() == [2000] * 4 and data.client_class.tolist() == [0, 0, 1, 1]
    balance = [float(data.y_train[i * 2000 : (i + 1) * 2000].float().mean()) for i in range(4)]
    assert all(0.3 < b < 0.7 for b in balance)


def test_mean_estimation_optimum_is_the_mean_of_client_means() -> None:
    cfg = DataConfig.model_validate(
        dict(
            dataset="mean_estimation",
            n_clients=2,
            partition="iid",
            mean_estimation={"means": [1.0, -3.0]},
        )
    )

    data = load_data(cfg, seed=0)

    assert data.optimum == pytest.approx(-1.0)
    assert data.task == "regression" and data.client_class.tolist() == [0, 1]
    assert data.population is None


def write_idx(path: Path, array: np.ndarray) -> None:
    """The IDX format of the MNIST files: magic (0, 0, ubyte=8, ndim), big-endian dims, data."""
    header = struct.pack(">BBBB", 0, 0, 8, array.ndim) + struct.pack(
        f">{array.ndim}I", *array.shape
    )
    path.write_bytes(header + array.astype(np.uint8).tobytes())


def write_tiny_mnist(root: Path, n_train: int, n_test: int) -> None:
    raw = root / "MNIST" / "raw"
    raw.mkdir(parents=True)
    gen = np.random.default_rng(1)
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        write_idx(raw / f"{prefix}-images-idx3-ubyte", gen.integers(0, 256, (n, 28, 28)))
        write_idx(raw / f"{prefix}-labels-idx1-ubyte", np.arange(n) % 10)


def test_torchvision_mnist_reads_standard_files(tmp_path: Path) -> None:
    write_tiny_mnist(tmp_path, n_train=60, n_test=20)
    cfg = DataConfig(dataset="mnist", root=str(tmp_path), n_clients=10, partition="by_class")

    data = load_data(cfg, seed=0)

    assert data.x_train.shape == (60, 1, 28, 28) and len(data.y_test) == 20
    x = data.inputs(data.x_train)
    assert float(x.min()) >= -1.0 and float(x.max()) <= 1.0
    assert [
        len(set(data.y_train[a:b].tolist()))
        for a, b in zip(data.train_offsets[:-1], data.train_offsets[1:], strict=True)
    ] == [1] * 10


def test_unit_normalization_gives_the_bytes_over_255(tmp_path: Path) -> None:
    write_tiny_mnist(tmp_path, n_train=20, n_test=10)
    pixel_bytes = np.fromfile(tmp_path / "MNIST/raw/t10k-images-idx3-ubyte", np.uint8)[16:]
    cfg = DataConfig(dataset="mnist", root=str(tmp_path), n_clients=10, normalization="unit")

    data = load_data(cfg, seed=0)

    expected = torch.from_numpy(pixel_bytes.astype(np.float32) / 255)
    # the same values, the test rows in the order the clients' labels give them
    held = data.inputs(data.x_test).flatten()
    torch.testing.assert_close(held.sort().values, expected.sort().values)


def test_missing_dataset_names_the_files(tmp_path: Path) -> None:
    cfg = DataConfig(dataset="cifar10", root=str(tmp_path), partition="iid")

    with pytest.raises(DatasetMissing, match=r"data\.root: cifar10 not found .*data_batch_1"):
        load_data(cfg, seed=0)


def test_data_seed_draws_from_default_rng_of_that_seed() -> None:
    cfg = DataConfig.model_validate(
        dict(
            dataset="mean_estimation",
            n_clients=2,
            partition="iid",
            seed=7,
            mean_estimation={
                "means": [1.0, -1.0],
                "sigma": 1.0,
                "train_per_client": 1,
                "test_per_client": 1,
            },
        )
    )

    data = load_data(cfg, seed=0)

    # train ξ = e + σ·z for the first two normals of default_rng(7), then the test ξ
    z = np.random.default_rng(7).normal(size=4)
    assert data.y_train.tolist() == pytest.approx([1 + z[0], -1 + z[1]], abs=1e-6)
    assert data.y_test.tolist() == pytest.approx([1 + z[2], -1 + z[3]], abs=1e-6)


def test_a_fixed_data_seed_gives_the_same_data_for_every_run_seed() -> None:
    fixed = DataConfig(n_clients=4, seed=42)
    derived = DataConfig(n_clients=4)

    a, b = load_data(fixed, seed=0), load_data(fixed, seed=1)
    c, d = load_data(derived, seed=0), load_data(derived, seed=1)

    assert torch.equal(a.x_train, b.x_train) and torch.equal(a.y_test, b.y_test)
    assert not torch.equal(c.x_train, d.x_train)


def test_synthetic_clustered_draws_in_the_official_order() -> None:
    cfg = DataConfig.model_validate(
        dict(
            n_clients=4,
            seed=5,
            synthetic_clustered={"train_per_client": 3, "test_per_client": 2, "dimension": 2},
        )
    )
    cfg.synthetic_clustered.hetero = 0.3  # type: ignore[attr-defined]

    data = load_data(cfg, seed=0)

    # w*, train x, test x, then labels by binomial, train first; cluster 1 is noisy
    gen = np.random.default_rng(5)
    w = gen.normal(size=2)
    x, xt = gen.normal(size=(4, 3, 2)), gen.normal(size=(4, 2, 2))
    s, st = 1 / (1 + np.exp(-(x @ w))), 1 / (1 + np.exp(-(xt @ w)))
    s[2:], st[2:] = 0.3 * (1 - s[2:]) + 0.7 * s[2:], 0.3 * (1 - st[2:]) + 0.7 * st[2:]
    y, yt = gen.binomial(1, s), gen.binomial(1, st)
    assert torch.equal(data.x_train, torch.as_tensor(x.reshape(-1, 2), dtype=torch.float32))
    assert torch.equal(data.x_test, torch.as_tensor(xt.reshape(-1, 2), dtype=torch.float32))
    assert data.y_train.tolist() == y.reshape(-1).tolist()
    assert data.y_test.tolist() == yt.reshape(-1).tolist()


def test_synthetic_clustered_every_further_cluster_flips_with_hetero_one() -> None:
    cfg = DataConfig.model_validate(
        dict(n_clients=6, n_clusters=3, seed=1, synthetic_clustered={"train_per_client": 4000})
    )
    cfg.synthetic_clustered.hetero = 1.0  # type: ignore[attr-defined]

    data = load_data(cfg, seed=0)

    w = np.random.default_rng(1).normal(size=10)  # the first draw
    x, y = data.x_train.double().numpy(), data.y_train.numpy()
    agree = ((x @ w > 0) == (y == 1)).reshape(6, -1).mean(axis=1)
    # cluster 0: y ~ Bernoulli(σ), mostly on the side of <w*, x>; clusters 1, 2: 1 − σ
    assert data.cluster.tolist() == [0, 0, 1, 1, 2, 2]
    assert (agree[:2] > 0.75).all() and (agree[2:] < 0.25).all()
    assert data.population is not None and len(data.population.pi) == 6


def write_tiny_cifar(root: Path) -> None:
    """CIFAR-10's python layout with 4 images a file: readable, but not the original
    files, so torchvision's checksums fail."""
    folder = root / "cifar-10-batches-py"
    folder.mkdir(parents=True)
    rng = np.random.default_rng(0)
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        batch = {
            "data": rng.integers(0, 255, (4, 3072), dtype=np.uint8),
            "labels": [0, 1, 2, 3],
        }
        (folder / name).write_bytes(pickle.dumps(batch))
    (folder / "batches.meta").write_bytes(pickle.dumps({"label_names": list("abcdefghij")}))


def test_files_failing_the_checksums_are_named_in_one_line(tmp_path: Path) -> None:
    write_tiny_cifar(tmp_path)
    cfg = DataConfig(dataset="cifar10", root=str(tmp_path), partition="iid", n_clients=2)

    with pytest.raises(DatasetMissing) as caught:
        load_data(cfg, seed=0)

    message = str(caught.value)
    assert "\n" not in message
    assert "fail their checksums: cifar-10-batches-py/data_batch_1" in message
    assert "test_batch" in message and "data.download=true" in message
    assert "download=True" not in message


def test_cifar100_reads_torchvisions_layout_with_its_fine_labels(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from torchvision.datasets import cifar

    folder = tmp_path / "cifar-100-python"
    folder.mkdir()
    pixels = np.arange(4 * 3072, dtype=np.uint32).reshape(4, 3072) % 256
    for name, labels in (("train", [0, 99, 42, 7]), ("test", [3, 3, 50, 99])):
        batch = {"data": pixels.astype(np.uint8), "fine_labels": labels, "coarse_labels": [0] * 4}
        (folder / name).write_bytes(pickle.dumps(batch))
    (folder / "meta").write_bytes(pickle.dumps({"fine_label_names": [str(i) for i in range(100)]}))
    monkeypatch.setattr(cifar, "check_integrity", lambda *_: True)  # not the original files
    cfg = DataConfig(dataset="cifar100", root=str(tmp_path), partition="iid", n_clients=2)

    data = load_data(cfg, seed=0)

    assert data.n_classes == 100 and data.input_shape == (3, 32, 32)
    assert sorted(data.y_train.tolist()) == [0, 7, 42, 99]
    assert sorted(data.y_test.tolist()) == [3, 3, 50, 99]
    # pixel byte p as p/127.5 − 1; the first image's first row of red is bytes 0..31
    first = data.x_train[data.y_train.tolist().index(0)]
    assert first[0, 0, :3].tolist() == [0, 1, 2]  # held as bytes
    values = data.inputs(first[None])[0, 0, 0, :3].tolist()
    assert values == pytest.approx([-1.0, 1 / 127.5 - 1, 2 / 127.5 - 1])
