"""The manual's plug-in examples (`docs/plugins.md`), run as a plug-in author would use
them: each block that starts with `# mypkg/<module>.py` is written into a package
`mypkg`, imported, taken into the components and used in a short simulation whose
outcome is worked out by hand in the manual."""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import torch

from worker.engine import ListSink, build_config, simulate
from worker.engine.components import Components, builtin, using
from worker.engine.data import load_data
from worker.engine.models import build_model
from worker.engine.registry import declared

PAGE = Path(__file__).parents[2] / "docs" / "plugins.md"
BLOCK = re.compile(r"^    # mypkg/(\w+)\.py\n(?:(?:    .*)?\n)*", re.MULTILINE)
KINDS = {
    "half": "partitions",
    "shifts": "availability",
    "blobs": "datasets",
    "twolayer": "models",
    "doubling": "schedules",
    "tiers": "systems",
}


def examples() -> dict[str, str]:
    """Each example module's code, by module name, as the page shows it (unindented)."""
    found = {m[1]: m[0] for m in BLOCK.finditer(PAGE.read_text())}
    return {name: re.sub(r"^    ", "", code, flags=re.MULTILINE) for name, code in found.items()}


@pytest.fixture(scope="module")
def documented(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Components]:
    """The built-in components and every example of the page, imported from `mypkg`."""
    root = tmp_path_factory.mktemp("plugin_docs")
    package = root / "mypkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, code in examples().items():
        (package / f"{name}.py").write_text(code)
    sys.path.insert(0, str(root))
    components = builtin()  # the built-in ones declared before the examples
    start = len(declared())
    try:
        for name in examples():
            importlib.import_module(f"mypkg.{name}")
        yield components.include(*declared(start))
    finally:
        sys.path.remove(str(root))
        for module in [m for m in sys.modules if m == "mypkg" or m.startswith("mypkg.")]:
            del sys.modules[module]


def run(components: Components, config: dict[str, Any], *sets: str) -> ListSink:
    sink = ListSink()
    with using(components):
        simulate(build_config(config, list(sets)), sink)
    return sink


def test_the_page_has_one_example_of_each_kind_and_each_registers(
    documented: Components,
) -> None:
    assert sorted(examples()) == sorted(KINDS)
    for name, kind in KINDS.items():
        entry = getattr(documented, kind).get(name)
        assert entry.source.split(":")[0].endswith(f"mypkg/{name}.py"), name
        assert not entry.builtin


def test_the_partition_gives_the_first_half_of_the_clients_its_share(
    documented: Components,
) -> None:
    with using(documented):
        config = build_config(
            {
                "data": {"dataset": "digits", "n_clients": 4, "partition": "half"},
                "algorithm": {"participation": 4},
            },
            ["data.half.share=0.8"],
        )
        data = load_data(config.data, config.seed)

    # 1437 rows: 1149 (80 %) cut in two for clients 0 and 1, the other 288 for 2 and 3
    assert data.sizes.tolist() == [575, 574, 144, 144]
    one = {"data": {"dataset": "digits", "n_clients": 1, "partition": "half"}}
    with using(documented), pytest.raises(ValueError, match=r"data\.n_clients: half needs two"):
        build_config({**one, "algorithm": {"participation": 1}})


def test_shifts_are_available_pi_of_the_rounds_each(documented: Components) -> None:
    sink = run(
        documented,
        {"rounds": 20, "data": {"n_clients": 8}, "algorithm": {"participation": 1}},
        "availability.kind=shifts",
        "availability.shifts.period=10",
        "availability.shifts.on=3",
    )

    counts = torch.zeros(8, dtype=torch.long)
    for record in sink.records:
        counts[torch.as_tensor(record.available)] += 1
    assert counts.tolist() == [6] * 8  # π = 3/10 of 20 rounds
    assert {len(r.available) for r in sink.records} != {8}  # not everyone at once
    with using(documented), pytest.raises(ValueError, match=r"availability\.shifts\.on: at most"):
        build_config({}, ["availability.kind=shifts", "availability.shifts.on=11"])


def test_shifts_with_one_round_cycles_are_always_there(documented: Components) -> None:
    sink = run(
        documented,
        {"rounds": 3, "data": {"n_clients": 4}, "algorithm": {"participation": 1}},
        "availability.kind=shifts",
        "availability.shifts.period=1",
        "availability.shifts.on=1",
    )

    assert [r.available.tolist() for r in sink.records] == [[0, 1, 2, 3]] * 3


def test_blobs_are_split_among_the_clients_and_told_apart(documented: Components) -> None:
    config = {
        "rounds": 10,
        "data": {"dataset": "blobs", "n_clients": 6},
        "algorithm": {"participation": 6},
    }
    with using(documented):
        data = load_data(build_config(config).data, 0)
    sink = run(documented, config, "model.name=linear")

    assert data.sizes.tolist() == [50] * 6  # 3 × 100 rows, iid
    assert len(data.y_test) == 3 * 25 and sorted(set(data.y_train.tolist())) == [0, 1, 2]
    assert sink.records[-1].metrics["test_acc"] > 0.95


def test_the_two_layer_model_has_its_parameters_and_seeded_weights(
    documented: Components,
) -> None:
    with using(documented):
        config = build_config(
            {"data": {"dataset": "digits"}}, ["model.name=twolayer", "model.twolayer.width=8"]
        )
        module = build_model(config.model, (1, 8, 8), 10)
    runs = [
        run(
            documented,
            {
                "rounds": 1,
                "data": {"dataset": "digits", "n_clients": 4},
                "algorithm": {"participation": 4},
            },
            "model.name=twolayer",
            "model.twolayer.width=8",
        )
        for _ in range(2)
    ]

    assert sum(p.numel() for p in module.parameters()) == 64 * 8 + 8 + 8 * 10 + 10
    first, second = (r.records[0].metrics for r in runs)
    assert first["test_acc"] == second["test_acc"] and first["train_loss"] == second["train_loss"]


def test_doubling_evaluates_after_doubling_rounds_and_the_last(documented: Components) -> None:
    sink = run(
        documented,
        {"rounds": 20, "data": {"n_clients": 4}, "algorithm": {"participation": 2}},
        "eval.schedule=doubling",
    )

    assert [r.round for r in sink.records if "test_acc" in r.metrics] == [0, 1, 3, 7, 15, 19]
    assert "initial_test_acc" in sink.records[0].metrics


def tiers_run(documented: Components, slow_share: float) -> ListSink:
    return run(
        documented,
        {"rounds": 3, "data": {"dataset": "mean_estimation", "n_clients": 10}},
        "model.name=scalar",
        "algorithm.participation=10",
        "client.local_steps=2",
        "client.batch_size=5",
        "system.kind=tiers",
        f"system.tiers.slow_share={slow_share}",
        "system.tiers.s_per_sample=0.1",
        "system.tiers.kbps=0.032",
    )


def test_a_round_lasts_as_long_as_its_slowest_tier(documented: Components) -> None:
    mixed, fast = tiers_run(documented, 0.3), tiers_run(documented, 0)

    work = mixed.records[0].clients.work_s  # type: ignore[union-attr]
    assert work is not None
    assert sorted(set(work.round(9).tolist())) == [3.0, 7.0]  # 1 + 1 + 1 s, 1 + 5 + 1 s
    assert [r.metrics["round_time_s"] for r in mixed.records] == pytest.approx([7.0] * 3)
    assert [r.metrics["round_time_s"] for r in fast.records] == pytest.approx([3.0] * 3)
