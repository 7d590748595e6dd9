"""How compared runs are grouped: the one function (`group_runs`) behind the compare page,
`GET /api/compare` and its files, the SDK's `fw.compare` and the command line's tables
and figures. From plain run records it decides:
- the groups and their order (by the group's first run: a sweep's cell order);
- each group's label, as a paper writes it: the method's display name ("FedAvg") or the
  swept value ("α = 0.1"), never a dotted key; renamed where asked (`labels`);
- the runs kept: one a seed, the newest where a seed ran twice (the others are dropped,
  and a warning says which);
- a warning for a group whose runs' configs differ in more than their name and seed;
- the reference: the one asked for, else the preset's proposed method, else the first
  method of the sweep, else the first group;
- the columns the table shows by default: the preset's headline values first, and no
  value counted in rounds where synchronous and asynchronous methods are compared (a
  server update is not a round).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from worker.engine import Components, metrics, run_config_for
from worker.engine.moved import MOVED, moved
from worker.presets import PRESETS, Preset
from worker.results.choices import Choice
from worker.results.table import TableNotes

GroupBy = Literal["algorithm", "experiment_cell", "none"]
GROUP_BY_CHOICES = (
    Choice("algorithm", "group by algorithm"),
    Choice("experiment_cell", "group by experiment cell"),
    Choice("none", "no grouping"),
)
Why = Literal["explicit", "preset", "sweep", "first"]
WarningKind = Literal["duplicate_seed", "mixed_configs"]

NAMED_KEYS = 5
"""A mixed-configs warning names this many keys, then says how many more (`keys` has all)."""
CONFIG_IGNORED = ("name", "seed")
"""Left out of a config comparison: the name is the run's own, and seeds pair runs."""

PER_ROUND = frozenset({"rounds_to_target", *(metrics.summary_name(m) for m in ("round_time_s",
                       "dropped_updates"))})  # fmt: skip
"""Summary values counted in rounds or per round: in an asynchronous run a "round" is one
server update, so they are not compared across synchronous and asynchronous methods."""
ACROSS_MODES = ("time_to_target_s", "sim_time_total_s")
"""What is compared instead across the modes: simulated time."""

WHY_TEXT: dict[Why, str] = {
    "explicit": "as asked",
    "preset": "the preset's proposed method",
    "sweep": "the sweep's first method",
    "first": "the first group",
}


@dataclass(frozen=True)
class RunRecord:
    """A compared run as the grouping reads it. `created`: when it was created (seconds
    since the epoch; the newest of a seed's runs is kept); `experiment` and `cell`: the
    sweep it belongs to and its cell's label there; `preset`: the paper preset its
    experiment reproduces (a run also names its preset by its config's `name`);
    `variant`: the preset's variant it ran (`fedwatch compare`), before its cell.
    `seed`: None where the run named none (an external run): such a run is never another
    run's duplicate."""

    id: int
    name: str
    algorithm: str
    seed: int | None
    config: Mapping[str, Any] = field(default_factory=dict)
    created: float = 0.0
    experiment: int | None = None
    cell: str | None = None
    preset: str | None = None
    variant: str = ""

    def __post_init__(self) -> None:
        # A run stored before a field moved (`data.dirichlet_alpha`) reads as one stored
        # after (`data.dirichlet.alpha`): the same setting is never a difference.
        object.__setattr__(self, "config", moved(self.config))


@dataclass(frozen=True)
class Vocabulary:
    """The names a label reads: the algorithms' display names and which run asynchronously,
    each component selector's labels (`availability.kind` → name → label), and the config
    keys' display names where the schema gives one (`data.dirichlet.alpha` → "α")."""

    algorithms: Mapping[str, str] = field(default_factory=dict)
    asynchronous: frozenset[str] = frozenset()
    selectors: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    titles: Mapping[str, str] = field(default_factory=dict)

    def algorithm(self, name: str) -> str:
        return self.algorithms.get(name) or name

    def method(self, name: str, algorithm: str) -> str:
        """A method's label: the algorithm's display name, with the rest of a method's
        own name after it ("fedavg-deadline" → "FedAvg-deadline")."""
        if name == algorithm or name in self.algorithms:
            return self.algorithm(name)
        if name.startswith(algorithm + "-"):
            return self.algorithm(algorithm) + name[len(algorithm) :]
        return name

    def key(self, dotted: str) -> str:
        """A config key as a table heading writes it: its title, or its last name; a key
        that moved (an old sweep's cell label) by where it lives now."""
        dotted = MOVED.get(dotted, (dotted,))[0]
        return self.titles.get(dotted) or dotted.rsplit(".", 1)[-1].replace("_", " ")

    def setting(self, dotted: str, value: Any) -> str:
        """`key = value` as a paper writes it ("α = 0.1"); a component by its label."""
        if dotted in self.selectors:
            return self.selectors[dotted].get(str(value)) or str(value)
        return f"{self.key(dotted)} = {written(value)}"


def written(value: Any) -> str:
    """A config value as a paper writes it: 0.1, 1e-05, 100, on/off, text as it is."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, float) and math.isfinite(value):
        return f"{value:g}"
    if isinstance(value, str):
        return value
    return json.dumps(value)


@dataclass(frozen=True)
class GroupWarning:
    """Something a reader must know about a group: `kind`, the group's key, what to say,
    the runs concerned (dropped, or mixed) and, for mixed configs, the keys that differ."""

    kind: WarningKind
    group: str
    message: str
    runs: list[int]
    keys: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Group:
    """`key`: what `group_by` groups by (the algorithm, the cell); `label`: its name in
    every answer; `runs`: the kept runs' ids (in the order given); `dropped`: runs of a
    seed the group already has a newer run of; `aliases`: what `reference` and `labels`
    may call it."""

    key: str
    label: str
    runs: list[int]
    dropped: list[int]
    aliases: tuple[str, ...]
    asynchronous: bool


@dataclass(frozen=True)
class Grouping:
    groups: list[Group]
    reference: str | None
    why: Why | None
    warnings: list[GroupWarning]
    preset: str | None
    headline: list[str]
    columns: list[str] | None
    left_out: list[str]

    @property
    def labels(self) -> dict[str, str]:
        """Group key → label."""
        return {g.key: g.label for g in self.groups}

    @property
    def reference_label(self) -> str | None:
        return None if self.reference is None else self.labels[self.reference]

    @property
    def kept_runs(self) -> list[int]:
        return [i for g in self.groups for i in g.runs]

    def reference_note(self) -> str | None:
        if self.reference is None or self.why is None:
            return None
        return f"Reference: {self.reference_label} ({WHY_TEXT[self.why]})."

    def column_note(self) -> str | None:
        """Why rounds are not compared, where they are not."""
        if not self.left_out:
            return None
        sync = [g.label for g in self.groups if not g.asynchronous]
        asyn = [g.label for g in self.groups if g.asynchronous]
        verb = "count" if len(sync) > 1 else "counts"
        return (
            f"Rounds are not compared: {listed(sync)} {verb} synchronous rounds, "
            f"{listed(asyn)} server updates (a server update is not a round); simulated "
            "time is compared instead."
        )

    def table_notes(self) -> TableNotes:
        """The caption's sentences about the groups (the reference, the columns left
        out, then each warning), and each group's warnings by its label."""
        head = [n for n in (self.reference_note(), self.column_note()) if n]
        rows: dict[str, tuple[str, ...]] = {}
        for w in self.warnings:
            label = self.labels[w.group]
            rows[label] = (*rows.get(label, ()), w.message)
        return TableNotes((*head, *(w.message for w in self.warnings)), rows)


def listed(names: Sequence[str]) -> str:
    """ "A", "A and B", "A, B and C"."""
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


class GroupingError(ValueError):
    """A `reference` or `labels` that names no group, or labels that clash; `field` is
    the parameter at fault, the message names the bad part."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(message)
        self.field = field_name


def flatten(config: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Dotted key -> value of every leaf (lists are leaves: `data.mean_estimation.means`)."""
    out: dict[str, Any] = {}
    for key, value in config.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            out.update(flatten(value, path + "."))
        else:
            out[path] = value
    return out


def canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def differing_keys(configs: Sequence[Mapping[str, Any]]) -> list[str]:
    """The dotted keys (config order; name and seed aside) whose values are not all the
    same, a key some configs lack included."""
    flat = [flatten(c) for c in configs]
    keys = [k for k in dict.fromkeys(k for f in flat for k in f) if k not in CONFIG_IGNORED]
    return [k for k in keys if len({canon(f[k]) if k in f else "\0" for f in flat}) > 1]


def parse_labels(text: str) -> dict[str, str]:
    """`labels=` of the REST API: comma-separated `GROUP:NAME` pairs; a backslash keeps the
    next character as it is (`\\,` and `\\:` inside a name or a group). ValueError names
    the part at fault."""
    pairs: dict[str, str] = {}
    for part in _split(text, ","):
        bits = _split(part, ":", 1)
        if len(bits) != 2:
            raise ValueError(f"{_unescape(part)!r}: expected GROUP:NAME")
        group, name = (_unescape(b).strip() for b in bits)
        if not group or not name:
            raise ValueError(f"{_unescape(part)!r}: the group and the name must not be empty")
        if group in pairs:
            raise ValueError(f"{group!r} is renamed twice")
        pairs[group] = name
    return pairs


def _unescape(s: str) -> str:
    return re.sub(r"\\(.)", r"\1", s)


def _split(text: str, sep: str, maxsplit: int = -1) -> list[str]:
    """`text` split at each `sep` that no backslash escapes."""
    parts, start, i, n = [], 0, 0, 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == sep and (maxsplit < 0 or n < maxsplit):
            parts.append(text[start:i])
            start, n = i + 1, n + 1
        i += 1
    return [*parts, text[start:]]


def key_of(run: RunRecord, group_by: GroupBy) -> str:
    if group_by == "algorithm":
        return run.algorithm
    if group_by == "experiment_cell" and run.cell:
        return " ".join(x for x in (run.variant, run.cell) if x)
    return f"#{run.id} {run.name}"


def preset_of(runs: Iterable[RunRecord]) -> Preset | None:
    """The paper preset every run comes from: its experiment's, or its config's name."""
    names = {r.preset or str(r.config.get("name", "")) for r in runs}
    if len(names) != 1:
        return None
    return PRESETS.get(names.pop())


def group_runs(
    runs: Sequence[RunRecord],
    vocabulary: Vocabulary,
    group_by: GroupBy = "algorithm",
    reference: str | None = None,
    labels: Mapping[str, str] | None = None,
    columns: Sequence[str] | None = None,
) -> Grouping:
    """The grouping of `runs` (the order given breaks no tie: groups come in the order of
    their first run by id). Raises GroupingError for a `reference` or a `labels` key
    that names no group (a group is named by its key, its label, or for a sweep's cell
    its values), or labels that clash."""
    ordered = sorted(runs, key=lambda r: r.id)
    members: dict[str, list[RunRecord]] = {}
    for run in ordered:
        members.setdefault(key_of(run, group_by), []).append(run)
    groups = []
    for key, mine in members.items():
        label, aliases = _label(key, mine, group_by, vocabulary)
        kept, dropped = _deduplicated(mine)
        asynchronous = all(r.algorithm in vocabulary.asynchronous for r in mine)
        groups.append(Group(key, label, kept, dropped, (key, label, *aliases), asynchronous))
    groups = _renamed(_unique(groups), labels or {})
    warnings = [w for g in groups for w in _warnings(g, members[g.key])]
    preset = preset_of(ordered)
    ref, why = _reference(groups, ordered, reference, preset, group_by)
    headline = list(preset.headline) if preset else []
    shown, left_out = _columns(groups, headline, columns)
    return Grouping(
        groups, ref, why, warnings, preset.name if preset else None, headline, shown, left_out
    )


def _label(
    key: str, runs: list[RunRecord], group_by: GroupBy, vocabulary: Vocabulary
) -> tuple[str, tuple[str, ...]]:
    """A group's label and the other names it answers to."""
    first = runs[0]
    if group_by == "algorithm":
        return vocabulary.algorithm(key), ()
    if group_by == "experiment_cell" and first.cell:
        label, aliases = _cell_label(first.cell, first, vocabulary)
        if first.variant:
            return f"{first.variant}: {label}", tuple(f"{first.variant} {a}" for a in aliases)
        return label, aliases
    return key, ()


def _cell_label(cell: str, run: RunRecord, vocabulary: Vocabulary) -> tuple[str, tuple[str, ...]]:
    """A sweep cell's label from its name (`api.sweep`): an explicit cell's name (a
    preset's method) as a method, then each swept `key=value` as "key = value" with the
    run's own value. Its values joined ("fedavg", "fedavg, 0.1") name it too."""
    flat = flatten(run.config)
    parts: list[str] = []
    values: list[str] = []
    named: list[str] = []
    for part in cell.split(", "):
        key, eq, _ = part.partition("=")
        key = next((k for k in MOVED.get(key, ()) if k in flat), key)  # an old sweep's
        if eq and key in flat:
            parts.append(vocabulary.setting(key, flat[key]))
            values.append(written(flat[key]))
        elif not parts:  # an explicit cell's name (its later parts: a value's commas)
            named.append(part)
    if named:
        name = ", ".join(named)
        parts.insert(0, vocabulary.method(name, run.algorithm))
        values.insert(0, name)
    if not parts:
        return cell, ()
    return ", ".join(parts), (", ".join(values),)


def _deduplicated(runs: list[RunRecord]) -> tuple[list[int], list[int]]:
    """The newest run of each seed kept (by creation, then id), the others dropped; a run
    without a seed is kept (it duplicates none)."""
    newest: dict[object, RunRecord] = {}
    for run in runs:
        key = object() if run.seed is None else run.seed
        if key not in newest or (run.created, run.id) > (newest[key].created, newest[key].id):
            newest[key] = run
    kept = {r.id for r in newest.values()}
    return [r.id for r in runs if r.id in kept], [r.id for r in runs if r.id not in kept]


def _warnings(group: Group, runs: list[RunRecord]) -> list[GroupWarning]:
    """A warning per seed that ran twice or more in the group, and one where its kept
    runs' configs differ."""
    out = []
    by_id = {r.id: r for r in runs}
    for seed in dict.fromkeys(r.seed for r in runs if r.seed is not None):
        gone = [i for i in group.dropped if by_id[i].seed == seed]
        if not gone:
            continue
        kept = next(i for i in group.runs if by_id[i].seed == seed)
        out.append(
            GroupWarning(
                "duplicate_seed",
                group.key,
                f"{group.label}: seed {seed} ran {len(gone) + 1} times: kept the newest run, "
                f"#{kept}; dropped {', '.join(f'#{i}' for i in gone)}.",
                gone,
            )
        )
    mixed = differing_keys([by_id[i].config for i in group.runs])
    if mixed:
        named = ", ".join(mixed[:NAMED_KEYS])
        more = f" and {len(mixed) - NAMED_KEYS} more" if len(mixed) > NAMED_KEYS else ""
        out.append(
            GroupWarning(
                "mixed_configs",
                group.key,
                f"{group.label}: mixed configs: its runs differ in {named}{more}, not only in "
                "name and seed.",
                list(group.runs),
                mixed,
            )
        )
    return out


def _unique(groups: list[Group]) -> list[Group]:
    """Labels made unique: a label two groups share gets its group's key after it."""
    counts: dict[str, int] = {}
    for g in groups:
        counts[g.label] = counts.get(g.label, 0) + 1
    return [g if counts[g.label] == 1 else _with_label(g, f"{g.label} ({g.key})") for g in groups]


def _with_label(group: Group, label: str) -> Group:
    return Group(
        group.key, label, group.runs, group.dropped, (*group.aliases, label), group.asynchronous
    )


def find(groups: Sequence[Group], name: str, field_name: str) -> Group:
    """The group `name` names (its key first, then its label, then its other names)."""
    for level in range(3):
        found = [g for g in groups if name in _level(g, level)]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise GroupingError(field_name, f"{name!r} names {len(found)} groups")
    known = ", ".join(repr(g.key) for g in groups)
    raise GroupingError(field_name, f"{name!r} is not one of the groups: {known}")


def _level(group: Group, level: int) -> tuple[str, ...]:
    return ((group.key,), (group.label,), group.aliases)[level]


def _renamed(groups: list[Group], labels: Mapping[str, str]) -> list[Group]:
    new = {find(groups, name, "labels").key: label for name, label in labels.items()}
    out = [_with_label(g, new[g.key]) if g.key in new else g for g in groups]
    seen: dict[str, str] = {}
    for g in out:
        if g.label in seen:
            raise GroupingError("labels", f"{seen[g.label]!r} and {g.key!r} are both {g.label!r}")
        seen[g.label] = g.key
    return out


def _reference(
    groups: list[Group],
    runs: list[RunRecord],
    asked: str | None,
    preset: Preset | None,
    group_by: GroupBy,
) -> tuple[str | None, Why | None]:
    if not groups:
        return None, None
    if asked is not None:
        return find(groups, asked, "reference").key, "explicit"
    proposed = _proposed(groups, runs, preset, group_by)
    if proposed is not None:
        return proposed, "preset"
    swept = next((r for r in runs if r.experiment is not None), None)
    if swept is not None:
        return next(g.key for g in groups if swept.id in g.runs + g.dropped), "sweep"
    return groups[0].key, "first"


def _proposed(
    groups: list[Group], runs: list[RunRecord], preset: Preset | None, group_by: GroupBy
) -> str | None:
    """The group of the preset's proposed method (its config's algorithm): the group of
    that name, else the one group all of whose runs run it."""
    if preset is None:
        return None
    name = str(preset.config["algorithm"]["name"])
    if any(g.key == name for g in groups):
        return name
    algorithm = {r.id: r.algorithm for r in runs}
    runs_it = [g for g in groups if all(algorithm[i] == name for i in g.runs + g.dropped)]
    return runs_it[0].key if len(runs_it) == 1 and group_by != "none" else None


def _columns(
    groups: list[Group], headline: list[str], asked: Sequence[str] | None
) -> tuple[list[str] | None, list[str]]:
    """The table's columns (None: the catalogue's, all of them) and the rounds-based ones
    left out because synchronous and asynchronous methods are compared."""
    mixed = len({g.asynchronous for g in groups}) > 1
    if asked is None and not headline and not mixed:
        return None, []
    names = list(asked) if asked is not None else _headline_first(headline)
    if not mixed:
        return names, []
    left_out = [n for n in names if n in PER_ROUND]
    kept = [n for n in names if n not in PER_ROUND]
    if asked is None:
        kept = [*dict.fromkeys([*(n for n in ACROSS_MODES if n in headline), *kept])]
    return kept, left_out


def _headline_first(headline: list[str]) -> list[str]:
    compared = [c.name for c in metrics.compared()]
    return [*headline, *(n for n in compared if n not in headline)]


def vocabulary_of(components: Components) -> Vocabulary:
    """The vocabulary of a process's components (`worker.engine.components.current()`)."""
    selectors = {
        f"{r.section}.{r.selector}": {e.name: e.label or e.name for e in r}
        for r in components.registries
    }
    algorithms = {e.name: e.label or e.name for e in components.algorithms}
    return Vocabulary(
        algorithms,
        frozenset(e.name for e in components.algorithms if e.runs_async),
        selectors,
        field_titles(run_config_for(components)),
    )


def field_titles(model: Any, prefix: str = "") -> dict[str, str]:
    """The dotted keys of a pydantic model whose field declares a `title`."""
    out: dict[str, str] = {}
    for name, info in model.model_fields.items():
        path = f"{prefix}{name}"
        if info.title:
            out[path] = info.title
        annotation = info.annotation
        if isinstance(annotation, type) and hasattr(annotation, "model_fields"):
            out.update(field_titles(annotation, path + "."))
    return out
