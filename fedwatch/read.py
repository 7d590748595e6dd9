"""Reading FedWatch back into Python, as pandas DataFrames (`pip install
'fedwatch-client[pandas]'`): runs with their configs and summaries, a run's every round, its
client records, a comparison's table. Reached from `fedwatch.client.FedWatch`:

    fw = FedWatch("http://127.0.0.1:8000")
    runs = fw.runs(experiment="cafed-synthetic")
    curves = {i: fw.run(i).history(["test_acc"]) for i in runs.id}
    fw.compare(list(runs.id)).filter(like="best_test_acc")

Everything comes through the REST API's full-resolution reads (`/rounds`,
`/clients/rounds`, paged), never its downsampled chart series.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from importlib import metadata
from typing import TYPE_CHECKING, Any, Literal

from fedwatch import tensorfile
from fedwatch.transport import Transport

if TYPE_CHECKING:
    import pandas as pd

ClientView = Literal["availability", "selection", "weights", "staleness"]
CLIENT_FIELDS: dict[ClientView, str] = {
    "availability": "available",
    "selection": "selected",
    "weights": "weights",
    "staleness": "staleness",
}
LIST_PAGE = 500
# Entry points `(bytes) -> model`, raising ValueError for a file they do not build: the
# full `fedwatch` distribution's engine rebuilds a simulated run's module.
MODEL_LOADERS = "fedwatch.model_loaders"
RUN_COLUMNS = ("id", "name", "status", "source", "algorithm", "dataset", "availability", "seed",
               "n_clients", "rounds_done", "rounds_total", "experiment_id", "tags",
               "created_at", "finished_at")  # fmt: skip


def pandas() -> Any:
    try:
        import pandas as pd
    except ImportError:
        raise ImportError(
            "FedWatch's read API returns pandas DataFrames: pip install 'fedwatch-client[pandas]'"
        ) from None
    return pd


def flatten(config: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Dotted key -> value of every leaf of a config (`client.lr`); lists are leaves."""
    out: dict[str, Any] = {}
    for key, value in config.items():
        if isinstance(value, Mapping) and value:
            out.update(flatten(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


def paged(transport: Transport, path: str, params: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """The items of a paged read (`after`, `next_after`), page after page."""
    after = -1
    while True:
        page = transport.get_json(path, {**params, "after": after})
        yield from page["data"]
        if page.get("next_after") is None:
            return
        after = page["next_after"]


def list_runs(
    transport: Transport,
    experiment: int | str | None = None,
    tags: Sequence[str] | str | None = None,
    status: str | None = None,
    query: str | None = None,
) -> pd.DataFrame:
    """One row a run: its fields, its flattened config and its summary values."""
    pd = pandas()
    wanted = [tags] if isinstance(tags, str) else list(tags or [])
    rows = []
    for experiment_id in _experiments(transport, experiment):
        params = {"experiment_id": experiment_id, "status": status, "q": query,
                  "tag": wanted[0] if wanted else None, "config": "true"}  # fmt: skip
        rows += [r for r in listed(transport, "/api/runs", params) if set(wanted) <= set(r["tags"])]
    return pd.DataFrame([_row(r) for r in rows], columns=_columns(rows))


def listed(transport: Transport, path: str, params: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every item of a list read (`limit`, `offset`, `count`)."""
    items: list[dict[str, Any]] = []
    while True:
        page = transport.get_json(path, {**params, "limit": LIST_PAGE, "offset": len(items)})
        items += page["data"]
        if len(items) >= page["count"] or not page["data"]:
            return items


def _experiments(transport: Transport, experiment: int | str | None) -> list[int | None]:
    """The experiment ids to list (None: every run)."""
    if experiment is None:
        return [None]
    if isinstance(experiment, int):
        return [experiment]
    found = [e["id"] for e in listed(transport, "/api/experiments", {}) if e["name"] == experiment]
    if not found:
        raise LookupError(f"no experiment named {experiment!r}")
    return found


def _row(run: Mapping[str, Any]) -> dict[str, Any]:
    row = {k: run.get(k) for k in RUN_COLUMNS}
    for key, value in flatten(run.get("config") or {}).items():
        row[f"config.{key}" if key in row else key] = value
    for key, value in (run.get("summary") or {}).items():
        row.setdefault(key, value)
    return row


def _columns(rows: list[dict[str, Any]]) -> list[str]:
    """The run fields, then every config key, then every summary key, first seen first."""
    names: dict[str, None] = dict.fromkeys(RUN_COLUMNS)
    for run in rows:
        names.update(dict.fromkeys(_row(run)))
    return list(names)


class RunReader:
    """One run on the server: `fw.run(id)`: its history, client records and model."""

    def __init__(self, transport: Transport, run_id: int) -> None:
        self.transport = transport
        self.id = run_id

    def info(self) -> dict[str, Any]:
        """The run as `GET /api/runs/{id}` gives it: status, config, summary, ..."""
        info: dict[str, Any] = self.transport.get_json(f"/api/runs/{self.id}")
        return info

    @property
    def config(self) -> dict[str, Any]:
        return dict(self.info()["config"])

    @property
    def summary(self) -> dict[str, Any]:
        return dict(self.info().get("summary") or {})

    def model_file(self) -> bytes:
        """The run's final model as stored: a safetensors file."""
        return self.transport.get(f"/api/runs/{self.id}/model")

    def state_dict(self) -> dict[str, Any]:
        """The run's final model as a state dict of torch tensors."""
        return tensorfile.to_torch(self.model_file())

    def model(self) -> Any:
        """The run's final model: a ready `torch.nn.Module` (in evaluation mode) where
        a model loader is installed that builds it (FedWatch's engine, for a simulated
        run), else its state dict."""
        data = self.model_file()
        for entry in sorted(metadata.entry_points(group=MODEL_LOADERS), key=lambda e: e.name):
            try:
                return entry.load()(data)
            except tensorfile.ModelFileError:  # one this loader builds, but not as it says
                raise
            except ValueError:  # not a file this loader builds (an external run's)
                continue
        return tensorfile.to_torch(data)

    def history(self, metrics: Iterable[str] | None = None) -> pd.DataFrame:
        """Every recorded round (no downsampling), indexed by round, a column a metric
        (`wall_s` included); NaN where a round did not record a metric."""
        pd = pandas()
        names = ",".join(metrics) if metrics is not None else None
        rows = list(paged(self.transport, f"/api/runs/{self.id}/rounds",
                          {"names": names, "limit": 5000}))  # fmt: skip
        frame = pd.DataFrame(rows).set_index("round") if rows else pd.DataFrame()
        if metrics is not None:
            frame = frame.reindex(columns=list(metrics))
        return frame.astype(float)

    def clients(self, view: ClientView) -> pd.DataFrame:
        """A long DataFrame (round, client, value) at full resolution:
        - availability: one row per available client and round, value 1;
        - selection: one row per selected client and round, value 1;
        - weights: one row per client whose update entered the model, its weight;
        - staleness: every client every round, rounds since its last selection."""
        pd = pandas()
        if view not in CLIENT_FIELDS:
            raise ValueError(f"view: {view!r} is not one of {', '.join(CLIENT_FIELDS)}")
        field = CLIENT_FIELDS[view]
        rounds: list[int] = []
        clients: list[int] = []
        values: list[float] = []
        for row in paged(self.transport, f"/api/runs/{self.id}/clients/rounds",
                         {"fields": field, "limit": 5000}):  # fmt: skip
            pairs = _pairs(field, row[field])
            rounds += [row["round"]] * len(pairs)
            clients += [k for k, _ in pairs]
            values += [v for _, v in pairs]
        return pd.DataFrame({"round": rounds, "client": clients, "value": values})


def _pairs(field: str, got: Any) -> list[tuple[int, float]]:
    """(client, value) of one round's client field."""
    if field == "weights":
        return [(int(k), float(v)) for k, v in (got or {}).items()]
    if field == "staleness":
        return [(k, float(v)) for k, v in enumerate(got or [])]
    return [(int(k), 1.0) for k in got or []]


class ComparisonWarning(UserWarning):
    """Something the server's grouping says about a compared group: a duplicate seed
    dropped (the newest run kept), or runs of mixed configs."""


def labels_param(labels: Mapping[str, str]) -> str:
    """`labels` as `GET /api/compare`'s `labels=`: GROUP:NAME pairs, commas and colons
    inside escaped with a backslash."""

    def escaped(s: str) -> str:
        return re.sub(r"([\\,:])", r"\\\1", s)

    return ",".join(f"{escaped(k)}:{escaped(v)}" for k, v in labels.items())


def table_params(
    reference: str | None = None,
    alpha: float | None = None,
    columns: Sequence[str] | None = None,
    labels: Mapping[str, str] | None = None,
) -> dict[str, str | float | None]:
    """A comparison table's arguments as the query of `GET /api/compare` and
    `GET /api/tunes/{id}/tables` (None: the server's default)."""
    return {
        "reference": reference,
        "alpha": alpha,
        "columns": ",".join(columns) if columns else None,
        "labels": labels_param(labels) if labels else None,
    }


def compare_table(
    transport: Transport,
    runs: Sequence[int] | int | str,
    *,
    reference: str | None = None,
    alpha: float | None = None,
    columns: Sequence[str] | None = None,
    group_by: str | None = None,
    labels: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """The comparison table, a row a group, indexed by the group's label ("FedAvg",
    "α = 0.1"; `labels` renames groups, by key or label): `key`, `n`, `seeds`,
    `reference`, and per summary value `<name>.mean`, `.std`, `.ci_low`, `.ci_high`,
    `.interval` (how the CI was drawn), `.identical` (the same in every run: no CI), `.n`
    and, against the reference, `.test`, `.p`, `.p_adjusted` (Holm), `.verdict`,
    `.mean_diff` and `.reason` (why no test ran: "deterministic: the values differ by a
    constant in every pair", ...). `runs`: run ids, or an experiment (id or name),
    grouped by its cells. Values as stored (fractions, not percent). `attrs`: `caption`
    (what the table shows), `reference` (the reference's label) and `reference_why`,
    `labels` (key → label), `warnings` (a seed's older runs dropped, mixed configs; each
    also a `ComparisonWarning`), `dropped` (run ids), `alpha`, `headings` and `machine`
    (the values that are figures of the machine, never tested)."""
    pd = pandas()
    if isinstance(runs, int | str):
        ids = [i for e in _experiments(transport, runs) if e is not None
               for i in transport.get_json(f"/api/experiments/{e}")["run_ids"]]  # fmt: skip
        group_by = group_by or "experiment_cell"
    else:
        ids = list(runs)
    if not ids:
        raise ValueError("nothing to compare: no runs")
    params = {"runs": ",".join(map(str, ids)), "group_by": group_by, "max_points": 2,
              **table_params(reference, alpha, columns, labels)}  # fmt: skip
    body = transport.get_json("/api/compare", params)
    tests = {(t["group"], t["metric"]): t for t in body["ttests"]}
    rows = []
    for row in body["table"]:
        out: dict[str, Any] = {"group": row.get("label") or row["group"], "key": row["group"],
                               "n": row["n"], "seeds": row["seeds"],
                               "reference": row["group"] == body["reference"]}  # fmt: skip
        for name, stat in row["stats"].items():
            if not any(r["stats"][name]["n"] for r in body["table"]):
                continue  # no group has it
            for key in ("mean", "std", "ci_low", "ci_high", "interval", "identical", "n"):
                out[f"{name}.{key}"] = stat.get(key)
            test = tests.get((row["group"], name), {})
            out[f"{name}.test"] = test.get("test")
            out[f"{name}.p"] = test.get("p_value")
            out[f"{name}.p_adjusted"] = test.get("p_adjusted")
            out[f"{name}.verdict"] = test.get("verdict")
            out[f"{name}.mean_diff"] = test.get("mean_diff")
            out[f"{name}.reason"] = test.get("reason")
        rows.append(out)
    frame = pd.DataFrame(rows).set_index("group")
    said = body.get("warnings", [])
    frame.attrs.update(
        caption=body["caption"], alpha=body["alpha"], headings=body["headings"],
        reference=body.get("reference_label") or body["reference"],
        reference_why=body.get("reference_why"), labels=body.get("labels", {}),
        warnings=[w["message"] for w in said], dropped=body.get("dropped", []),
        machine=body.get("machine", []),
    )  # fmt: skip
    for w in said:
        warnings.warn(w["message"], ComparisonWarning, stacklevel=3)
    return frame
