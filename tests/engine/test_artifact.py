"""A completed run's final model as a file: it rebuilds the architecture and gives the
run's final test accuracy; a stopped run has none; the SDK's own codec reads and writes
the same format."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from fedwatch import tensorfile
from worker.engine import ListSink, simulate
from worker.engine.artifact import load_module, read_metadata
from worker.engine.data import load_data
from worker.engine.training.objective import Objective
from worker.presets import get_preset

DIGITS_MLP = ["data.dataset=digits", "model.name=mlp", "rounds=3", "device=cpu"]


def accuracy(module: torch.nn.Module, x: torch.Tensor, y: torch.Tensor, task: Objective) -> float:
    with torch.no_grad():
        out = module(x)
    predicted = (out.reshape(-1) > 0).long() if task == "binary" else out.argmax(dim=1)
    return float((predicted == y).float().mean())


@pytest.mark.parametrize(
    ("preset", "sets", "task"),
    [("cafed-mnist", DIGITS_MLP, "classification"), ("cafed-synthetic", ["rounds=3"], "binary")],
)
def test_the_model_file_gives_the_final_test_accuracy(
    preset: str, sets: list[str], task: Objective
) -> None:
    config = get_preset(preset).run_config(sets)
    sink = ListSink()

    summary = simulate(config, sink)

    assert sink.model is not None
    data = sink.model.to_bytes()
    assert tensorfile.loads(data)[0].keys() == sink.model.tensors.keys()
    assert read_metadata(data)["fedwatch.round"] == "3"
    module = load_module(data)
    test = load_data(config.data, config.seed)
    got = accuracy(module, test.inputs(test.x_test), test.y_test, task)
    assert got == pytest.approx(summary.to_dict()["final_test_acc"], abs=1e-6)


def test_a_stopped_run_keeps_no_model_and_a_resumed_one_does() -> None:
    config = get_preset("cafed-synthetic").run_config(["rounds=4", "eval.checkpoint_every=2"])
    stopped = ListSink()
    calls = iter([False, False, True])
    simulate(config, stopped, should_stop=lambda: next(calls, True))
    assert stopped.model is None and stopped.checkpoint is not None

    resumed = ListSink()
    simulate(config, resumed, checkpoint=stopped.checkpoint)
    whole = ListSink()
    simulate(config, whole)

    assert resumed.model is not None and whole.model is not None
    assert resumed.model.metadata == whole.model.metadata
    assert resumed.model.tensors.keys() == whole.model.tensors.keys()
    for name, tensor in whole.model.tensors.items():
        assert torch.equal(resumed.model.tensors[name], tensor)


def test_the_sdk_codec_reads_and_writes_the_format() -> None:
    config = get_preset("cafed-mnist").run_config(DIGITS_MLP)
    sink = ListSink()
    simulate(config, sink)
    assert sink.model is not None
    written = sink.model.to_bytes()

    read = tensorfile.to_torch(written)  # the SDK's reader on the library's file
    again = tensorfile.dumps(read, read_metadata(written))  # and its writer back

    assert read.keys() == sink.model.tensors.keys()
    for name, tensor in sink.model.tensors.items():
        assert torch.equal(read[name], tensor)
    assert tensorfile.loads(again)[0].keys() == read.keys()
    assert load_module(again).state_dict().keys() == read.keys()
    arrays = {"w": np.arange(6, dtype=np.float32).reshape(2, 3), "on": np.array([True, False])}
    back = tensorfile.to_torch(tensorfile.dumps(arrays))
    assert back["w"].tolist() == arrays["w"].tolist() and back["on"].tolist() == [True, False]
