"""`hf`: any Hugging Face dataset, read by the `datasets` library and split among the
clients by Flower Datasets' partitioners (the `hf` extra: `pip install 'fedwatch[hf]'`).

`data.hf.path` is a folder or parquet files under `data.root` (`Dataset.save_to_disk`
or `DatasetDict.save_to_disk` output; `<split>.parquet`, `<split>-*.parquet` or
`<split>/*.parquet`), else a hub id (`uoft-cs/cifar10`), fetched into the `datasets`
cache (`HF_DATASETS_CACHE`, under `HF_HOME`) where the network is reachable. The train
split is partitioned; the test split is evaluated centrally (it belongs to no client).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
import torch
from pydantic import Field
from torch import Tensor

from worker.engine.data.federated import FederatedData, assemble, inputs
from worker.engine.data.leaf_datasets import ALPHABET, encode
from worker.engine.data.vision import pool_values
from worker.engine.errors import ConfigError
from worker.engine.facts import DatasetFacts
from worker.engine.params import Params
from worker.engine.paths import inside, shown
from worker.engine.registry import dataset
from worker.engine.sections import DataSection

EXTRA = (
    "data.dataset: hf needs the `hf` extra (datasets, flwr-datasets): pip install 'fedwatch[hf]'"
)
ROW = "__fedwatch_row"  # the column that carries a train row's index through a partitioner
SEED_BOUND = 2**31  # flwr-datasets seeds numpy's legacy generator: below 2^32
Partitioner = Literal["iid", "dirichlet", "pathological", "natural", "linear"]
Kind = Literal["image", "vector", "text"]
BY_LABEL = ("dirichlet", "pathological")


class HfParams(Params):
    path: str = Field(
        "",
        max_length=1024,
        description="A folder or parquet files under data.root (save_to_disk output, "
        "<split>.parquet), else a hub id (uoft-cs/cifar10) where the network is reachable.",
    )
    train_split: str = Field("train", min_length=1, description="Split the clients train on.")
    test_split: str = Field("test", min_length=1, description="Split evaluated centrally.")
    test_fraction: float = Field(
        0.0,
        ge=0,
        lt=1,
        description="Where the dataset has no test split (flwrlabs/femnist): this fraction "
        "of the train split, drawn by the data seed, is held out and evaluated centrally.",
    )
    features: str = Field("image", min_length=1, description="Column of the samples.")
    kind: Kind = Field(
        "image",
        description="What a sample is, checked against the model before anything loads: "
        "image (an Image column, or arrays), vector (numbers), text (strings of one length, "
        "each character its id in LEAF's 80-character alphabet, as flwrlabs/shakespeare's x).",
    )
    label: str = Field("label", min_length=1, description="Column of the class labels.")
    partitioner: Partitioner = Field(
        "iid",
        description="Flower Datasets' partitioner: iid (IidPartitioner), dirichlet, "
        "pathological (n classes a client), natural (NaturalIdPartitioner: one client per "
        "value of partition_by), linear (LinearPartitioner: client k holds ∝ k samples).",
    )
    partition_by: str = Field(
        "",
        max_length=64,
        description="Column grouped by (natural) or split by (dirichlet, pathological); "
        "empty: the label column.",
    )
    alpha: float = Field(0.5, gt=0, title="α", description="Dirichlet concentration α.")
    min_partition_size: int = Field(
        0, ge=0, description="Dirichlet: redraw until every client holds this many samples."
    )
    classes_per_client: int = Field(
        2, ge=1, description="Pathological: distinct classes each client holds."
    )
    dimension: int = Field(
        784, ge=1, description="Features of a sample, for the run's estimates before loading."
    )

    @property
    def tokens(self) -> int | None:
        """The token ids a text sample uses: LEAF's alphabet's (the run's check of a
        text model's vocabulary reads it)."""
        return len(ALPHABET) if self.kind == "text" else None


class HfDataset:
    """The loader of `data.dataset = hf`, and its check of a local dataset's splits and
    columns before any run is created (`check_dataset` in `worker/engine/data`)."""

    def __call__(
        self, params: HfParams, cfg: DataSection, rng: np.random.Generator
    ) -> FederatedData:
        splits = read_splits(params, cfg)
        check_columns(params, {name: split.column_names for name, split in splits.items()})
        train, test = train_and_test(params, splits, rng)
        check_kind(params, train.features[params.features])
        if cfg.max_train_samples is not None and cfg.max_train_samples < len(train):
            train = train.shuffle(seed=flower_seed(rng)).select(range(cfg.max_train_samples))
        rows = client_rows(params, train, cfg.n_clients, flower_seed(rng))
        classes, y, y_test = encoded_labels(train, test, params)
        x = samples(train, params)
        x, x_test, values = held(params, x, samples(test, params, like=x))
        no_client = [np.zeros(0, dtype=np.int64)] * len(rows)
        data = assemble(x, y, rows, x_test, y_test, classes, rng, test_rows=no_client)
        return data if values is None else replace(data, x_values=values)

    def check(self, params: HfParams, cfg: DataSection) -> None:
        """A local dataset's splits and columns, read from its metadata alone (a hub
        id is checked when the run reads it)."""
        datasets = library()
        folder = local_folder(params, Path(cfg.root))
        if folder is None:
            fetched(params, cfg)
            return
        if saved(folder):
            loaded = datasets.load_from_disk(str(folder))
            names = {k: v.column_names for k, v in as_splits(datasets, loaded).items()}
        else:
            import pyarrow.parquet as pq

            files = parquet_files(folder, params)
            names = {k: pq.read_schema(v[0]).names for k, v in files.items()}
        check_columns(params, names)


hf = dataset(
    "hf",
    facts=DatasetFacts(10, "image", "data_root", partitions=("flower",)),
    params=HfParams,
    label="Hugging Face dataset (Flower Datasets)",
)(HfDataset())


def train_and_test(params: HfParams, splits: Any, rng: np.random.Generator) -> tuple[Any, Any]:
    """The train split and the test split: the dataset's own, or `test_fraction` of the
    train split held out where it has none."""
    train = splits[params.train_split]
    if params.test_split in splits:
        return train, splits[params.test_split]
    held = train.train_test_split(test_size=params.test_fraction, seed=flower_seed(rng))
    return held["train"], held["test"]


def flower_seed(rng: np.random.Generator) -> int:
    """The seed a Flower partitioner (or a shuffle) is given, drawn from the data's
    generator so that `data.seed` fixes the split."""
    return int(rng.integers(SEED_BOUND))


def library() -> Any:
    """The `datasets` module; `ConfigError` naming the extra where it is not installed."""
    try:
        import datasets
    except ImportError:
        raise ConfigError(EXTRA) from None
    return datasets


def check_columns(params: HfParams, columns: dict[str, list[str]]) -> None:
    """`ConfigError` naming the key of a split or a column the dataset lacks."""
    needed = ("train_split",) if params.test_fraction > 0 else ("train_split", "test_split")
    for key in needed:
        if getattr(params, key) not in columns:
            raise ConfigError(
                f"data.hf.{key}: {shown(params.path)} has no split {getattr(params, key)!r} "
                f"(its splits: {', '.join(map(repr, columns))})"
                + (
                    "; or set data.hf.test_fraction to hold out part of the train split"
                    if key == "test_split"
                    else ""
                )
            )
    names = columns[params.train_split]
    for key in ("features", "label", "partition_by"):
        column = getattr(params, key)
        if column and column not in names:
            raise ConfigError(
                f"data.hf.{key}: {shown(params.path)} has no column {column!r} in its "
                f"{params.train_split} split (its columns: {', '.join(map(repr, names))})"
            )


def local_folder(params: HfParams, root: Path) -> Path | None:
    """`data.hf.path` under `root` where it is there, None for a hub id; `ConfigError`
    for a path that is neither or leads outside."""
    if not params.path:
        raise ConfigError("data.hf.path: name a folder under data.root or a hub id")
    local = inside(root, params.path)
    if local is not None and local.exists():
        return local
    if params.path.startswith(("/", ".")) or local is None or params.path.endswith("/"):
        raise ConfigError(f"data.hf.path: {shown(params.path)} is not under data.root")
    return None


def read_splits(params: HfParams, cfg: DataSection) -> Any:
    """The dataset's splits (a `DatasetDict`): from `data.root`, or from the hub where
    `data.download` lets the run fetch it; `ConfigError` naming the key at fault."""
    datasets = library()
    folder = local_folder(params, Path(cfg.root))
    if folder is None:
        fetched(params, cfg)
        try:
            return datasets.load_dataset(params.path)
        except Exception as err:  # no network, no such id: the library's own words
            why = f"data.hf.path: {shown(params.path)} could not be read ({err})"
            raise ConfigError(why) from None
    if saved(folder):
        return as_splits(datasets, datasets.load_from_disk(str(folder)))
    return datasets.load_dataset("parquet", data_files=parquet_files(folder, params))


def fetched(params: HfParams, cfg: DataSection) -> None:
    """`ConfigError` where `data.hf.path` names no local data and the run may not fetch
    it from the hub (`data.download` off)."""
    if not cfg.download:
        raise ConfigError(
            f"data.hf.path: {shown(params.path)} is not under data.root; set "
            "data.download=true to fetch it from the hub where the network is reachable"
        )


def saved(folder: Path) -> bool:
    """Whether `folder` holds `save_to_disk` output (of a `DatasetDict` or a `Dataset`)."""
    return any((folder / f).is_file() for f in ("dataset_dict.json", "state.json"))


def as_splits(datasets: Any, loaded: Any) -> Any:
    """A loaded `DatasetDict` as it is; a lone `Dataset` as the split `train`."""
    return loaded if isinstance(loaded, datasets.DatasetDict) else {"train": loaded}


def parquet_files(folder: Path, params: HfParams) -> dict[str, list[str]]:
    """Each split's parquet files in `folder` (`<split>.parquet`, `<split>-*.parquet`,
    `<split>/*.parquet`); `ConfigError` where there are none."""
    files = {}
    for split in (params.train_split, params.test_split):
        found = sorted(folder.glob(f"{split}.parquet")) + sorted(folder.glob(f"{split}-*.parquet"))
        found += sorted(folder.glob(f"{split}/*.parquet"))
        if found:
            files[split] = [str(f) for f in found]
    if not files:
        raise ConfigError(
            f"data.hf.path: {shown(params.path)} holds neither save_to_disk output nor "
            f"{params.train_split}.parquet"
        )
    return files


def client_rows(params: HfParams, train: Any, n_clients: int, seed: int) -> list[np.ndarray]:
    """Each client's train rows, as the Flower partitioner `data.hf.partitioner` splits
    `train` (iid and linear, which draw nothing, split it shuffled by `seed`)."""
    import flwr_datasets.partitioner as fp

    by = params.partition_by or params.label
    kind = params.partitioner
    ds = train.add_column(ROW, list(range(len(train))))
    if kind in ("iid", "linear"):
        ds = ds.shuffle(seed=seed)
    if kind == "natural":
        split: Any = fp.NaturalIdPartitioner(partition_by=by)
    elif kind == "dirichlet":
        split = fp.DirichletPartitioner(
            n_clients, by, params.alpha, params.min_partition_size, seed=seed
        )
    elif kind == "pathological":
        split = pathological(params, ds, by, n_clients, seed)
    elif kind == "linear":
        split = fp.LinearPartitioner(n_clients)
    else:
        split = fp.IidPartitioner(n_clients)
    split.dataset = ds
    try:
        count = split.num_partitions
    except ValueError as err:  # Dirichlet's redraws gave up: the library's words
        raise ConfigError(f"data.hf.min_partition_size: {err}") from None
    if count != n_clients:
        raise ConfigError(
            f"data.n_clients: {shown(params.path)} has {count} values of {by!r}, one client "
            f"each; set data.n_clients={count}"
        )
    rows = [np.asarray(split.load_partition(k)[ROW], dtype=np.int64) for k in range(count)]
    if min(len(r) for r in rows) == 0:
        raise ConfigError(
            f"data.n_clients: {n_clients} clients leave some without data ({len(train)} "
            "samples); use fewer clients"
        )
    return rows


def pathological(params: HfParams, ds: Any, by: str, n_clients: int, seed: int) -> Any:
    import flwr_datasets.partitioner as fp

    distinct = len(ds.unique(by))
    if params.classes_per_client > distinct:
        raise ConfigError(
            f"data.hf.classes_per_client: {params.classes_per_client} exceeds the "
            f"{distinct} values of {by!r}"
        )
    return fp.PathologicalPartitioner(
        n_clients, by, params.classes_per_client, "first-deterministic", seed=seed
    )


def encoded_labels(train: Any, test: Any, params: HfParams) -> tuple[int, Tensor, Tensor]:
    """The number of classes and each split's labels as 0…C−1: a `ClassLabel` column's
    own ids; for text, single characters as their ids in LEAF's alphabet (the next
    character, as the model's vocabulary numbers it); otherwise the index of each value
    among the sorted values of both splits."""
    column = params.label
    names = getattr(train.features[column], "num_classes", None)
    a, b = np.asarray(train[column]), np.asarray(test[column])
    if names is not None:
        return (
            int(names),
            torch.as_tensor(a, dtype=torch.long),
            torch.as_tensor(b, dtype=torch.long),
        )
    if params.kind == "text" and is_text(train.features[column]) and characters_only(a, b):
        ids = [encode(list(v), 1, repr(column), "data.hf.label").reshape(-1) for v in (a, b)]
        return (
            len(ALPHABET),
            torch.as_tensor(ids[0], dtype=torch.long),
            torch.as_tensor(ids[1], dtype=torch.long),
        )
    values = np.unique(np.concatenate([a, b]))
    codes = [torch.as_tensor(np.searchsorted(values, v), dtype=torch.long) for v in (a, b)]
    return len(values), codes[0], codes[1]


def characters_only(*labels: np.ndarray) -> bool:
    return all(len(v) == 1 for split in labels for v in split.tolist())


def is_text(feature: Any) -> bool:
    return getattr(feature, "dtype", None) in ("string", "large_string")


def check_kind(params: HfParams, feature: Any) -> None:
    """`ConfigError` at `data.hf.kind` where the features column is text and the kind
    is not, or the other way round."""
    if is_text(feature) != (params.kind == "text"):
        column = params.features
        raise ConfigError(
            f"data.hf.kind: column {column!r} holds text; set data.hf.kind=text"
            if is_text(feature)
            else f"data.hf.kind: text needs a column of strings; {column!r} holds {feature}"
        )


def held(params: HfParams, x: Tensor, x_test: Tensor) -> tuple[Tensor, Tensor, Tensor | None]:
    """Both splits' samples as held, and their byte table (`FederatedData.x_values`):
    images of bytes as they are, standing for their values in [-1, 1] (`pool_values`);
    where only one split's images are bytes, both as float32; other samples as they are,
    without a table."""
    images = params.kind != "text"
    if not images or torch.uint8 not in (x.dtype, x_test.dtype):
        return x, x_test, None
    values = pool_values(x if x.dtype == torch.uint8 else x_test)
    if x.dtype == x_test.dtype:
        return x, x_test, values
    x, x_test = (inputs(t, values) if t.dtype == torch.uint8 else t for t in (x, x_test))
    return x, x_test, None


def samples(split: Any, params: HfParams, like: Tensor | None = None) -> Tensor:
    """A split's samples: images (an `Image` column) as (C, H, W) pixels, their bytes
    where they are bytes (`held`), else float32 scaled as bytes to [-1, 1]; text as each
    character's id in LEAF's alphabet (uint8, one row of ids a string, as long as
    `like`'s rows where given, else as its first string); numbers and arrays as
    float32, as they are."""
    import datasets

    column = params.features
    feature = split.features[column]
    if params.kind == "text":
        text = split[column]
        length = like.shape[1] if like is not None else len(text[0]) if len(text) else 0
        return torch.from_numpy(encode(text, length, repr(column), "data.hf.features"))
    if isinstance(feature, datasets.Image):
        pixels = np.stack([np.asarray(im) for im in split[column]])
        pixels = pixels[:, None] if pixels.ndim == 3 else pixels.transpose(0, 3, 1, 2)
        if pixels.dtype == np.uint8:
            return torch.from_numpy(np.ascontiguousarray(pixels))
        return torch.as_tensor(pixels.astype(np.float32) / 127.5 - 1.0)
    try:
        values = np.asarray(split.with_format("numpy")[column], dtype=np.float32)
    except (TypeError, ValueError):
        raise ConfigError(
            f"data.hf.features: column {column!r} holds neither images nor numbers"
        ) from None
    return torch.as_tensor(values if values.ndim > 1 else values[:, None])
