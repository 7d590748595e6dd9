"""The one grouping of compared runs: groups, labels, the kept runs, warnings, the
reference and the default columns, from plain run records."""

from __future__ import annotations

from typing import Any

import pytest

from fedwatch.read import labels_param
from worker.engine.components import current
from worker.presets import PRESETS
from worker.results.grouping import (
    GroupingError,
    RunRecord,
    Vocabulary,
    group_runs,
    parse_labels,
    vocabulary_of,
)
from worker.results.stats import columns_of

WORDS = Vocabulary(
    algorithms={"fedavg": "FedAvg", "fedlaavg": "FedLaAvg", "fedbuff": "FedBuff (async)"},
    asynchronous=frozenset({"fedbuff"}),
    selectors={"algorithm.name": {"fedavg": "FedAvg", "fedlaavg": "FedLaAvg"}},
    titles={"data.dirichlet.alpha": "α"},
)


def config(algorithm: str, seed: int, name: str = "example1", **extra: Any) -> dict[str, Any]:
    return {"name": name, "seed": seed, "algorithm": {"name": algorithm}, **extra}


def record(run_id: int, algorithm: str, seed: int, **kw: Any) -> RunRecord:
    cfg = kw.pop("config", None) or config(algorithm, seed)
    return RunRecord(run_id, f"run{run_id}", algorithm, seed, cfg, kw.pop("created", run_id), **kw)


def readme_runs() -> list[RunRecord]:
    """README steps 2 and 3: a FedAvg run (seed 0), then a sweep of FedAvg and FedLaAvg
    over seeds 0, 1, 2 from the example1 preset."""
    single = record(1, "fedavg", 0)
    sweep = [
        record(2 + i, alg, seed, experiment=7, cell=f"algorithm.name={alg}")
        for i, (alg, seed) in enumerate([(a, s) for a in ("fedavg", "fedlaavg") for s in (0, 1, 2)])
    ]
    return [single, *sweep]


def test_readme_runs_drop_the_older_duplicate_seed_and_say_so() -> None:
    runs = readme_runs()

    got = group_runs(list(reversed(runs)), WORDS, "algorithm")

    assert [(g.key, g.label, g.runs, g.dropped) for g in got.groups] == [
        ("fedavg", "FedAvg", [2, 3, 4], [1]),
        ("fedlaavg", "FedLaAvg", [5, 6, 7], []),
    ]
    (warning,) = got.warnings
    assert (warning.kind, warning.group, warning.runs) == ("duplicate_seed", "fedavg", [1])
    assert warning.message == ("FedAvg: seed 0 ran 2 times: kept the newest run, #2; dropped #1.")
    # example1's proposed method is FedLaAvg, whatever order the runs come in
    assert (got.reference, got.why, got.reference_label) == ("fedlaavg", "preset", "FedLaAvg")
    assert got.table_notes().caption[0] == "Reference: FedLaAvg (the preset's proposed method)."


def test_the_newest_run_of_a_seed_is_kept_by_creation_time() -> None:
    older, newer = record(9, "fedavg", 0, created=100.0), record(3, "fedavg", 0, created=200.0)

    (group,) = group_runs([older, newer], WORDS).groups

    assert (group.runs, group.dropped) == ([3], [9])


def test_mixed_configs_name_the_differing_keys() -> None:
    runs = [
        record(1, "fedavg", 0, config=config("fedavg", 0, client={"lr": 0.1})),
        record(2, "fedavg", 1, config=config("fedavg", 1, name="other", client={"lr": 0.01})),
        record(3, "fedavg", 2, config=config("fedavg", 2, client={"lr": 0.1})),
    ]

    (warning,) = group_runs(runs, WORDS).warnings

    assert (warning.kind, warning.keys, warning.runs) == ("mixed_configs", ["client.lr"], [1, 2, 3])
    assert "client.lr" in warning.message and warning.message.startswith("FedAvg: mixed configs")


def test_a_run_stored_before_a_field_moved_is_not_a_different_config() -> None:
    old = {"partition": "dirichlet", "dirichlet_alpha": 0.1}  # data.dirichlet_alpha, moved
    new = {"partition": "dirichlet", "dirichlet": {"alpha": 0.1}}
    runs = [
        record(1, "fedavg", 0, config=config("fedavg", 0, data=old)),
        record(2, "fedavg", 1, config=config("fedavg", 1, data=new)),
    ]

    assert group_runs(runs, WORDS).warnings == []
    other = record(3, "fedavg", 2, config=config("fedavg", 2, data={**old, "dirichlet_alpha": 1}))
    (warning,) = group_runs([*runs, other], WORDS).warnings
    assert warning.keys == ["data.dirichlet.alpha"]


def test_a_warning_names_five_differing_keys_then_counts_the_rest() -> None:
    keys = [f"k{i}" for i in range(7)]
    runs = [record(1, "fedavg", 0), record(2, "fedavg", 1, config={k: 1 for k in keys})]

    (warning,) = group_runs(runs, WORDS).warnings

    assert warning.keys == ["algorithm.name", *keys]
    assert "differ in algorithm.name, k0, k1, k2, k3 and 3 more, not only" in warning.message


def test_same_configs_but_name_and_seed_give_no_warning() -> None:
    runs = [record(i, "fedavg", i, config=config("fedavg", i, name=f"n{i}")) for i in range(3)]

    assert group_runs(runs, WORDS).warnings == []


def test_cell_labels_read_as_a_paper_never_a_dotted_key() -> None:
    def cell(i: int, alpha: float) -> RunRecord:
        cfg = config("fedavg", 0, name="mine", data={"dirichlet_alpha": alpha}, client={"lr": 0.01})
        label = f"data.dirichlet_alpha={alpha}, client.lr=0.01"
        return record(i, "fedavg", 0, config=cfg, experiment=1, cell=label)

    got = group_runs([cell(1, 0.1), cell(2, 1.0)], WORDS, "experiment_cell")

    assert [g.label for g in got.groups] == ["α = 0.1, lr = 0.01", "α = 1, lr = 0.01"]
    assert (got.reference, got.why) == ("data.dirichlet_alpha=0.1, client.lr=0.01", "sweep")
    sweep = group_runs(readme_runs()[1:], WORDS, "experiment_cell")
    assert [g.label for g in sweep.groups] == ["FedAvg", "FedLaAvg"]


def test_a_preset_method_cell_is_named_after_its_algorithm() -> None:
    runs = [
        record(1, "fedavg", 0, experiment=1, cell="fedavg"),
        record(2, "fedavg", 0, experiment=1, cell="fedavg-deadline"),
    ]

    got = group_runs(runs, WORDS, "experiment_cell")

    assert [g.label for g in got.groups] == ["FedAvg", "FedAvg-deadline"]


def test_labels_rename_groups_by_key_label_or_value() -> None:
    runs = readme_runs()[1:]
    renamed = {"fedavg": "FedAvg (ours)", "FedLaAvg": "LaAvg"}

    got = group_runs(runs, WORDS, "experiment_cell", labels=renamed)

    assert list(got.labels.values()) == ["FedAvg (ours)", "LaAvg"]
    assert got.reference_label == "LaAvg"
    with pytest.raises(GroupingError, match="'mifa' is not one of the groups") as err:
        group_runs(runs, WORDS, labels={"mifa": "M"})
    assert err.value.field == "labels"
    with pytest.raises(GroupingError, match="both 'X'"):
        group_runs(runs, WORDS, labels={"fedavg": "X", "fedlaavg": "X"})


def test_reference_order_explicit_then_preset_then_sweep_then_first() -> None:
    plain = [record(1, "fedlaavg", 0, config=config("fedlaavg", 0, name="mine")),
             record(2, "fedavg", 0, config=config("fedavg", 0, name="mine"))]  # fmt: skip
    swept = [
        record(1, "fedlaavg", 0, config=config("fedlaavg", 0, name="mine")),
        record(2, "fedavg", 0, config=config("fedavg", 0, name="mine"), experiment=4),
    ]

    # README's runs: a sweep whose first method is FedAvg, from the example1 preset,
    # whose proposed method is FedLaAvg
    assert group_runs(readme_runs(), WORDS, reference="FedAvg").why == "explicit"
    assert group_runs(readme_runs(), WORDS, reference="FedAvg").reference == "fedavg"
    assert (group_runs(readme_runs(), WORDS).reference, group_runs(readme_runs(), WORDS).why) == (
        "fedlaavg",
        "preset",
    )
    assert (group_runs(plain, WORDS).reference, group_runs(plain, WORDS).why) == (
        "fedlaavg",
        "first",
    )
    assert (group_runs(swept, WORDS).reference, group_runs(swept, WORDS).why) == (
        "fedavg",
        "sweep",
    )
    with pytest.raises(GroupingError, match="'sgd' is not one of the groups") as err:
        group_runs(plain, WORDS, reference="sgd")
    assert err.value.field == "reference"


@pytest.mark.parametrize(
    ("preset", "headline"),
    [
        ("stragglers", ["time_to_target_s", "dropped_updates_avg"]),
        ("fedscale-trace", ["time_to_target_s", "dropped_updates_avg"]),
        ("async-vs-sync", ["time_to_target_s", "update_staleness_mean_avg"]),
    ],
)
def test_presets_headline_values_are_compared_and_come_first(
    preset: str, headline: list[str]
) -> None:
    methods = PRESETS[preset].compare
    runs = [
        record(i, m.algorithm, 0, config=config(m.algorithm, 0, name=preset), cell=m.name)
        for i, m in enumerate(methods)
    ]

    got = group_runs(runs, vocabulary_of(current()), "experiment_cell")

    assert list(PRESETS[preset].headline) == got.headline == headline
    assert [c.name for c in columns_of(headline)] == headline  # compared values
    assert got.columns is not None and got.columns[:2] == headline


def test_sync_and_async_are_not_compared_in_rounds() -> None:
    runs = [
        record(1, "fedavg", 0, config=config("fedavg", 0, name="async-vs-sync")),
        record(2, "fedbuff", 0, config=config("fedbuff", 0, name="async-vs-sync")),
    ]

    got = group_runs(runs, WORDS)

    assert got.columns is not None and "rounds_to_target" not in got.columns
    assert got.left_out == ["rounds_to_target", "dropped_updates_avg"]
    note = got.column_note() or ""
    assert "FedAvg counts synchronous rounds, FedBuff (async) server updates" in note
    assert note in got.table_notes().caption
    same = group_runs(runs[:1], WORDS)
    assert same.left_out == [] and same.column_note() is None


def test_the_vocabulary_reads_the_registry() -> None:
    words = vocabulary_of(current())

    assert words.algorithm("fedavg") == "FedAvg" and words.algorithm("fedlaavg") == "FedLaAvg"
    assert {"fedbuff", "fedasync"} <= words.asynchronous and "fedavg" not in words.asynchronous
    assert words.setting("data.dirichlet.alpha", 0.1) == "α = 0.1"
    assert words.setting("data.dirichlet_alpha", 0.1) == "α = 0.1"  # an old sweep's label
    assert words.setting("client.lr", 0.01) == "lr = 0.01"
    assert words.setting("algorithm.name", "mifa") == "MIFA"


@pytest.mark.parametrize(
    ("text", "pairs"),
    [
        ("fedavg:FedAvg (ours),fedlaavg:FedLaAvg", {"fedavg": "FedAvg (ours)",
                                                    "fedlaavg": "FedLaAvg"}),
        ("a:x\\, y\\: z", {"a": "x, y: z"}),
        ("k=v:name:with colon", {"k=v": "name:with colon"}),
    ],
)  # fmt: skip
def test_labels_parse_and_the_sdk_writes_them(text: str, pairs: dict[str, str]) -> None:
    assert parse_labels(text) == pairs
    assert parse_labels(labels_param(pairs)) == pairs  # the SDK's writing


@pytest.mark.parametrize(
    ("text", "bad"),
    [("fedavg", "'fedavg': expected GROUP:NAME"), ("a:x,:y", "':y': the group and the name"),
     ("a:x,a:y", "'a' is renamed twice")],
)  # fmt: skip
def test_bad_labels_name_the_bad_part(text: str, bad: str) -> None:
    with pytest.raises(ValueError, match=bad.replace("(", r"\(")):
        parse_labels(text)


def test_runs_without_a_seed_are_never_duplicates() -> None:
    """External runs that named no seed (None) are all kept, with no warning."""
    runs = [RunRecord(i, "ext", "mine", None, created=float(i)) for i in (1, 2)]
    grouping = group_runs(runs, WORDS, "algorithm")
    assert [g.runs for g in grouping.groups] == [[1, 2]]
    assert grouping.warnings == [] and grouping.groups[0].dropped == []
