"""A model file whose metadata names an architecture its tensors are not: the engine's
loader compares the two before it builds the module, and refuses the file; nothing of
the size the metadata claims is allocated."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

from fedwatch import tensorfile
from worker.engine.artifact import CONFIG, INPUT_SHAPE, N_CLASSES, ROUND, load_module
from worker.engine.models import build_model
from worker.presets import get_preset

DIGITS_MLP = ["data.dataset=digits", "model.name=mlp", "rounds=3", "device=cpu"]


def claiming(hidden: int, features: int) -> bytes:
    """A 4 → 2 → 10 MLP's tensors, with metadata that says `features` → `hidden` → 10."""
    config = get_preset("cafed-mnist").run_config([*DIGITS_MLP, f"model.mlp.hidden={hidden}"])
    small = get_preset("cafed-mnist").run_config([*DIGITS_MLP, "model.mlp.hidden=2"])
    tensors = build_model(small.model, (4,), 10).state_dict()
    metadata = {CONFIG: config.model_dump_json(), INPUT_SHAPE: json.dumps([features]),
                N_CLASSES: "10", ROUND: "3"}  # fmt: skip
    return tensorfile.dumps(tensors, metadata)


def test_the_file_as_its_metadata_says_loads() -> None:
    module = load_module(claiming(2, 4))

    assert isinstance(module, torch.nn.Module)
    assert module.state_dict()["net.1.weight"].shape == (2, 4)


def test_tensors_that_are_not_the_named_architecture_s_are_refused() -> None:
    expected = r"tensor 'net.1.weight' is \[2, 4\] in the file, \[300, 200\]"
    with pytest.raises(tensorfile.ModelFileError, match=expected):
        load_module(claiming(300, 200))


def test_names_that_are_not_the_architecture_s_are_refused() -> None:
    metadata = tensorfile.read_header(claiming(2, 4))["__metadata__"]
    data = tensorfile.dumps({"w": torch.zeros(3)}, metadata)

    with pytest.raises(tensorfile.ModelFileError, match=r"not of it \['w'\]"):
        load_module(data)


@pytest.mark.slow
def test_a_40_gb_claim_is_refused_within_a_small_address_space(tmp_path: Path) -> None:
    """The issue's file (hidden 100 000, input [100 000]: 40 GB of weights) loaded in a
    process whose address space is capped at 6 GB more than it has: building the
    claimed module there would fail to allocate, the check refuses it first."""
    path = str(tmp_path / "hostile.safetensors")
    Path(path).write_bytes(claiming(100_000, 100_000))
    script = textwrap.dedent(f"""
        import resource
        from worker.engine import components
        from worker.engine.artifact import load_module
        from fedwatch.tensorfile import ModelFileError
        components.install(components.installed())
        used = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
        resource.setrlimit(resource.RLIMIT_AS, (used + (6 << 30), resource.RLIM_INFINITY))
        try:
            load_module(open({path!r}, "rb").read())
        except ModelFileError as err:
            print("refused:", err)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, check=False)  # fmt: skip

    assert done.returncode == 0, done.stderr[-2000:]
    assert "refused: model: tensor 'net.1.weight' is [2, 4] in the file, [100000, 100000]" in (
        done.stdout
    )
