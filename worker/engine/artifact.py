"""A run's final global model as a file: safetensors, the module's parameters and
buffers under their `state_dict` names, with what rebuilds the architecture in the
file's metadata (the run's config, the data's input shape and class count).

`simulate` hands it to `sink.on_model` when the run completes; `load_module` turns the
file back into a ready `torch.nn.Module` wherever the engine is installed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from safetensors.torch import load, save
from torch import Tensor, nn

from fedwatch import tensorfile
from worker.engine.components import current
from worker.engine.config import run_config_for
from worker.engine.errors import ConfigError

CONFIG, INPUT_SHAPE, N_CLASSES, ROUND = (
    "fedwatch.config",
    "fedwatch.input_shape",
    "fedwatch.n_classes",
    "fedwatch.round",
)


@dataclass(frozen=True)
class ModelFile:
    """Tensors (on the CPU) and string metadata; `to_bytes` writes the file."""

    tensors: dict[str, Tensor]
    metadata: dict[str, str]

    def to_bytes(self) -> bytes:
        return save(self.tensors, self.metadata)


def model_file(
    config_json: str,
    parameters: dict[str, Tensor],
    buffers: dict[str, Tensor],
    input_shape: tuple[int, ...],
    n_classes: int,
    rounds: int,
) -> ModelFile:
    """The model after `rounds` rounds of the run whose config is `config_json`."""
    named = {**parameters, **buffers}
    tensors = {n: t.detach().cpu().contiguous().clone() for n, t in named.items()}
    metadata = {
        CONFIG: config_json,
        INPUT_SHAPE: json.dumps(list(input_shape)),
        N_CLASSES: str(n_classes),
        ROUND: str(rounds),
    }
    return ModelFile(tensors, metadata)


def read_metadata(data: bytes) -> dict[str, str]:
    """The file's metadata, read from its header alone."""
    try:
        meta = tensorfile.read_header(data).get("__metadata__")
    except ValueError as err:
        raise ConfigError(f"model: {err}") from None
    return dict(meta) if isinstance(meta, dict) else {}


def load_module(data: bytes) -> nn.Module:
    """The run's model, built from the file's metadata and loaded with its tensors
    (in evaluation mode); ConfigError for a file FedWatch's engine did not write, and
    `tensorfile.ModelFileError` for one whose tensors are not those of the architecture
    its metadata names, found before anything of that size is allocated."""
    import torch

    from worker.engine.models import build_model

    meta = read_metadata(data)
    if CONFIG not in meta:
        raise ConfigError("model: the file does not say which architecture it holds")
    try:
        found = tensorfile.check_header(tensorfile.read_header(data), body_bytes(data))
    except ValueError as err:
        raise tensorfile.ModelFileError(f"model: {err}") from None
    config = run_config_for(current()).model_validate_json(meta[CONFIG])
    shape = tuple(json.loads(meta[INPUT_SHAPE]))
    with torch.device("meta"):  # shapes alone: no memory, whatever the metadata says
        planned = build_model(config.model, shape, int(meta[N_CLASSES])).state_dict()
    check_architecture({n: list(t.shape) for n, t in planned.items()}, found)
    module = build_model(config.model, shape, int(meta[N_CLASSES]))
    module.load_state_dict(load(data))
    return module.eval()


def body_bytes(data: bytes) -> int:
    return len(data) - 8 - tensorfile.header_size(data)


def check_architecture(
    planned: dict[str, list[int]], found: dict[str, tuple[str, list[int]]]
) -> None:
    """`tensorfile.ModelFileError` unless the file holds the tensors the architecture
    has: the same names, each of the same shape."""
    missing, extra = planned.keys() - found.keys(), found.keys() - planned.keys()
    if missing or extra:
        raise tensorfile.ModelFileError(
            "model: the file's tensors are not those of the architecture its metadata "
            f"names (missing {sorted(missing)[:5]}, not of it {sorted(extra)[:5]})"
        )
    for name, shape in planned.items():
        if found[name][1] != shape:
            raise tensorfile.ModelFileError(
                f"model: tensor {name!r} is {found[name][1]} in the file, {shape} in the "
                "architecture its metadata names"
            )


def state_dict(data: bytes) -> dict[str, Tensor]:
    return dict(load(data))
