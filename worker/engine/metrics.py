"""The metric catalogue: the one place a metric's name, label, unit, panel and direction
are defined; the recorder, the API, the CLI and the front end read it from here.

Two kinds of entries:
- `round`: a scalar recorded in some rounds (`test_acc`, `staleness_max`, an
  algorithm's own such as `cafed_excluded`);
- `summary`: one value per run (`best_test_acc`, `wall_s`, ...).

A round metric declared with `summary=True` also gets a summary value, its average over
the rounds that recorded it, named `<name>_avg` (`summary_name`). An algorithm adds
its own round metrics (its `metric_specs`) when the installed components include it
(`components.install`); names are unique across both kinds.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any, Literal

Better = Literal["higher", "lower"]
Kind = Literal["round", "summary"]
Domain = tuple[float | None, float | None]

NON_NEGATIVE_UNITS = frozenset({"s", "B", "updates", "rounds", "clients", "versions", "points"})
"""Units of counts and times: a value in one of them is never below 0 (a metric in one of
them that states no domain, a plug-in's too, gets [0, ∞); one in "%", a share, gets
[0, 100 %])."""


@dataclass(frozen=True)
class MetricSpec:
    """One metric. `short` is a compact label for table headings (the label when empty);
    `scale` multiplies a value for display (1 → %: 100); `panel` groups round metrics into
    one chart on the run page; `compare` puts a summary value in the comparison tables
    (API and CLI), with paired t-tests where `better` is set (on a round metric with
    `summary`, its average); `rank` lets runs be ranked
    by it. `domain` is the closed range a value can take, in the stored unit (before
    `scale`): (0, 1) for an accuracy, (0, None) for a count or a time; None is unbounded
    on that side. Intervals and figure bands are kept inside it (`stats`). `machine` marks
    a figure of the machine and its load (wall time, updates/s), not of the method: it is
    shown apart, never tested and never marked best."""

    name: str
    label: str
    kind: Kind = "round"
    unit: str = ""
    scale: float = 1.0
    panel: str = "other"
    better: Better | None = None
    summary: bool = False
    compare: bool = False
    rank: bool = False
    description: str = ""
    short: str = ""
    domain: Domain = (None, None)
    machine: bool = False

    def __post_init__(self) -> None:
        if self.domain != (None, None):
            return
        if self.unit in NON_NEGATIVE_UNITS:  # frozen: the implied domain is set once, here
            object.__setattr__(self, "domain", (0.0, None))
        elif self.unit == "%":
            object.__setattr__(self, "domain", (0.0, 100.0 / self.scale))

    @property
    def heading(self) -> str:
        return self.short or self.label

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "domain": list(self.domain), "log": log_scaled(self)}


@dataclass(frozen=True)
class PanelSpec:
    """A chart of the run page and of a run's figure: the round metrics whose `panel` it
    is, under `title`, their y axis titled `y_title` (log-scaled with `log`);
    `description`, where set, is the one line that says what the chart measures, shown
    beside it."""

    name: str
    title: str
    y_title: str = ""
    log: bool = False
    description: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


# The two staleness measures of a run, told apart (an async run has both, in versions).
CLIENT_AGE = (
    "Client age: rounds (server updates, i.e. model versions, in an async run) since the "
    "client's latest update entered the model, for every client, those not training "
    "included; a client never heard from counts from the start."
)
UPDATE_STALENESS = (
    "Update staleness: model versions between the one an arriving update started from and "
    "the one it met at the server (async runs)."
)
CLIENT_AGE_S = (
    "Client age in simulated seconds: time since the client's latest update entered the "
    "model, at the round's end; a client never heard from counts from the start."
)

# The built-in panels, in display order; a plug-in's panel (such as "algorithm") comes
# after them, titled "<Panel> metrics" (`panels`).
PANELS: tuple[PanelSpec, ...] = (
    PanelSpec("accuracy", "Test accuracy", "accuracy"),
    PanelSpec("param", "Parameter x", "x"),
    PanelSpec("gap", "Optimality gap (x − x*)²", log=True),
    PanelSpec("loss", "Loss", "loss"),
    PanelSpec("per-client", "Per-client accuracy", "accuracy"),
    PanelSpec("per-client-var", "Per-client accuracy variance", "variance"),
    PanelSpec("bias", "Bias: TV distance between target α and effective weights p", "TV"),
    PanelSpec("staleness", "Client age", "rounds", description=CLIENT_AGE),
    PanelSpec("staleness-s", "Client age in simulated seconds", "s", description=CLIENT_AGE_S),
    PanelSpec("versions", "Update staleness", "versions", description=UPDATE_STALENESS),
    PanelSpec("clients", "Participation", "clients"),
    PanelSpec("sim-time", "Simulated time at the end of each round", "s"),
    PanelSpec("round-time", "Round time (simulated)", "s"),
    PanelSpec("updates", "Updates dropped or partial", "updates"),
    PanelSpec("wasted", "Client compute spent on dropped updates", "s"),
    PanelSpec("traffic", "Traffic per round", "bytes"),
    PanelSpec("traffic-total", "Traffic, cumulative", "bytes"),
    PanelSpec("privacy", "Privacy loss ε at δ = privacy.delta", "ε"),
    PanelSpec("clip", "Clipping norm (privacy)", "C"),
)


def summary_name(round_metric: str) -> str:
    """The summary value that averages a round metric declared with `summary=True`."""
    return f"{round_metric}_avg"


def _round(name: str, label: str, panel: str, **kw: Any) -> MetricSpec:
    return MetricSpec(name, label, "round", panel=panel, **kw)


def _summary(name: str, label: str, **kw: Any) -> MetricSpec:
    return MetricSpec(name, label, "summary", panel="summary", **kw)


UNIT_INTERVAL = (0.0, 1.0)
NON_NEGATIVE = (0.0, None)
PERCENT = {"unit": "%", "scale": 100.0, "domain": UNIT_INTERVAL}
COUNT = {"domain": NON_NEGATIVE}
TIMED = "Recorded by runs with a system model (system.kind other than none)."
GAP = {"unit": "pp", "scale": 100.0, "domain": (-1.0, 1.0), "compare": True}
VALIDATION = {
    "description": "The global model on the held-out validation split (eval.validation > 0), "
    "in the rounds the test set is evaluated; what a tune's objective reads."
}
EXTERNAL_ALPHA = "An external run's data shares are not known: each client's is taken as 1 / N."

# The clock's round metrics (`worker/engine/system/clock.py`, `tracker.py`).
SIMULATED_TIME: tuple[MetricSpec, ...] = (
    _round(
        "sim_time_s",
        "simulated time",
        "sim-time",
        unit="s",
        description=f"Simulated seconds from the run's start to the end of the round. {TIMED}",
    ),
    _round(
        "round_time_s",
        "round time",
        "round-time",
        unit="s",
        better="lower",
        summary=True,
        description="Simulated seconds the round took: from the previous round's end (a wait "
        f"for a client to come online included) to its last kept update or deadline. {TIMED}",
    ),
    _round("bytes_down", "bytes down", "traffic", unit="B", description=TIMED),
    _round("bytes_up", "bytes up", "traffic", unit="B", description=TIMED),
    _round("bytes_down_total", "bytes down, cumulative", "traffic-total", unit="B"),
    _round("bytes_up_total", "bytes up, cumulative", "traffic-total", unit="B"),
    _round(
        "dropped_updates",
        "dropped updates",
        "updates",
        unit="updates",
        better="lower",
        summary=True,
        compare=True,
        description="Selected clients whose update did not enter the round: they left, "
        f"missed the deadline, or arrived after the K kept by over-commitment. {TIMED}",
    ),
    _round(
        "partial_updates",
        "partial updates",
        "updates",
        unit="updates",
        description="Kept updates with fewer local steps than planned (client.partial_work "
        f"= keep). {TIMED}",
    ),
    _round(
        "wasted_client_s",
        "wasted client compute",
        "wasted",
        unit="s",
        better="lower",
        description=f"Client compute seconds spent on updates that did not enter. {TIMED}",
    ),
    *(
        _round(
            f"staleness_s_{stat}",
            f"client age {label} (s)",
            "staleness-s",
            unit="s",
            description=f"{CLIENT_AGE_S} {TIMED}",
        )
        for stat, label in (("mean", "mean"), ("p50", "median"), ("p90", "p90"), ("max", "max"))
    ),
)

# The async mode's round metrics (`worker/engine/loop.py`, `algorithms/asynchronous.py`),
# per server update.
ASYNCHRONOUS: tuple[MetricSpec, ...] = (
    _round(
        "update_staleness_mean",
        "update staleness mean",
        "versions",
        unit="versions",
        summary=True,
        compare=True,
        better="lower",
        description=UPDATE_STALENESS,
    ),
    _round(
        "update_staleness_p90",
        "update staleness p90",
        "versions",
        unit="versions",
        description=UPDATE_STALENESS,
    ),
    _round(
        "update_staleness_max",
        "update staleness max",
        "versions",
        unit="versions",
        description=UPDATE_STALENESS,
    ),
    _round(
        "stale_dropped",
        "updates older than the ring",
        "updates",
        unit="updates",
        better="lower",
        description="Arrived updates whose starting version had left the ring of recent "
        "versions (algorithm.<name>.ring): dropped without entering.",
    ),
    _round(
        "in_flight",
        "clients training",
        "clients",
        unit="clients",
        description="Clients training when the server update is applied (async runs).",
    ),
)

# The privacy accountant's round metrics (`worker/engine/privacy/accountant.py`): ε at
# the run's privacy.delta after the round. An external run logs its own under these names.
EPSILON_UNIT = "ε"
EPSILON = {"unit": EPSILON_UNIT, "better": "lower", "domain": NON_NEGATIVE}
PRIVACY: tuple[MetricSpec, ...] = (
    _round(
        "epsilon_assumed",
        "ε as assumed (Poisson at K/N)",
        "privacy",
        short="ε assumed",
        description="What a paper reports: every round a Poisson sample at q = K/N of the "
        "Gaussian mechanism, composed over the rounds so far (RDP, dp-accounting).",
        **EPSILON,
    ),
    _round(
        "epsilon_client_max",
        "ε of the worst client",
        "privacy",
        short="ε worst",
        description="The largest per-client ε from each client's own participation: "
        "amplified at its own availability where that is drawn independently every round "
        "(Bernoulli, central DP), else composed over the rounds it contributed to.",
        **EPSILON,
    ),
    _round(
        "epsilon_client_median",
        "ε of the median client",
        "privacy",
        short="ε median",
        description="The median of the per-client ε (see ε of the worst client).",
        **EPSILON,
    ),
    _round(
        "clip_norm",
        "clipping norm C",
        "clip",
        description="The norm each update was clipped to this round (privacy.central or "
        "privacy.local; adaptive clipping moves it).",
        domain=NON_NEGATIVE,
    ),
)

ROUND_METRICS: tuple[MetricSpec, ...] = (
    _round("test_acc", "test accuracy", "accuracy", better="higher", **PERCENT),
    _round(
        "initial_test_acc",
        "initial model's accuracy",
        "accuracy",
        better="higher",
        description="The model before round 0, in round 0's record, where the eval schedule "
        "evaluates it (eval.schedule = cafed_log).",
        **PERCENT,
    ),
    _round("test_loss", "test loss", "loss", better="lower", **COUNT),
    _round("val_acc", "validation accuracy", "accuracy", better="higher", **VALIDATION, **PERCENT),
    _round("val_loss", "validation loss", "loss", better="lower", **VALIDATION, **COUNT),
    _round("train_loss", "train loss", "loss", better="lower", **COUNT),
    _round("n_available", "available clients", "clients", unit="clients"),
    _round("n_selected", "selected clients", "clients", unit="clients"),
    *(
        _round(
            f"staleness_{stat}",
            f"client age {label}",
            "staleness",
            unit="rounds",
            description=CLIENT_AGE,
        )
        for stat, label in (("mean", "mean"), ("p50", "median"), ("p90", "p90"), ("max", "max"))
    ),
    _round("tv_bias", "TV(α, p) this round", "bias", better="lower", domain=UNIT_INTERVAL),
    _round("tv_bias_avg", "TV(α, p̄) running average", "bias", better="lower", domain=UNIT_INTERVAL),
    _round("client_acc_mean", "client accuracy mean", "per-client", better="higher", **PERCENT),
    _round(
        "client_acc_var",
        "client accuracy variance",
        "per-client-var",
        better="lower",
        scale=1e4,
        unit="%²",
        domain=(0.0, 0.25),
    ),
    _round("client_acc_worst10", "worst 10 % clients", "per-client", better="higher", **PERCENT),
    _round("client_acc_best10", "best 10 % clients", "per-client", better="higher", **PERCENT),
    _round("param", "parameter x", "param"),
    _round("opt_gap", "optimality gap (x − x*)²", "gap", better="lower", **COUNT),
    *SIMULATED_TIME,
    *ASYNCHRONOUS,
    *PRIVACY,
)

HIGHER = {"better": "higher"}
LOWER = {"better": "lower"}
TABLE = {"compare": True}
RANKED = {"compare": True, "rank": True}

SUMMARY_VALUES: tuple[MetricSpec, ...] = (
    _summary("best_test_acc", "best accuracy", short="best acc", **HIGHER, **RANKED, **PERCENT),
    _summary("final_test_acc", "final accuracy", short="final acc", **HIGHER, **RANKED, **PERCENT),
    _summary(
        "time_avg_test_acc",
        "time-average accuracy",
        short="avg acc",
        **HIGHER,
        **RANKED,
        **PERCENT,
    ),
    _summary(
        "time_avg_points",
        "evaluations averaged",
        short="avg over",
        unit="points",
        description="How many evaluations time_avg_test_acc is the mean of: the rounds the "
        "eval schedule evaluated, and the initial model where it was evaluated (the CA-Fed "
        "paper's time-average is the mean of 28 such points over 150 rounds).",
    ),
    _summary(
        "std_test_acc_second_half",
        "std, second half",
        short="std 2nd half",
        **LOWER,
        **TABLE,
        **PERCENT,
    ),
    _summary(
        "rounds_to_target",
        "rounds to target",
        short="rounds→target",
        unit="rounds",
        **LOWER,
        **RANKED,
    ),
    _summary("final_test_loss", "final test loss", short="loss", rank=True, **LOWER, **COUNT),
    _summary("final_val_acc", "final validation accuracy", short="val acc", **HIGHER, **PERCENT),
    _summary("final_val_loss", "final validation loss", short="val loss", **LOWER, **COUNT),
    _summary("final_client_acc_mean", "client mean", **HIGHER, **TABLE, **PERCENT),
    _summary(
        "final_client_acc_var",
        "client variance",
        scale=1e4,
        unit="%²",
        domain=(0.0, 0.25),
        **LOWER,
        **TABLE,
    ),
    _summary("final_client_acc_worst10", "worst 10 % clients", **HIGHER, **TABLE, **PERCENT),
    _summary("final_client_acc_best10", "best 10 % clients", **HIGHER, **TABLE, **PERCENT),
    _summary("final_param", "final x", **TABLE),
    _summary(
        "period_avg_param",
        "x, mean over the last period",
        short="x̄ last period",
        description="The mean of x over the last full period of a periodic availability "
        "model (diurnal: E₀ + E₁ rounds), where an oscillating x settles: FedLaAvg's "
        "Example 1 gives it in closed form (FedAvg: 0.5, the optimum: 0). None without a "
        "periodic model or before a whole period was recorded.",
        **TABLE,
    ),
    _summary("final_opt_gap", "final gap (x − x*)²", short="gap", **LOWER, **RANKED, **COUNT),
    *(
        _summary(f"final_{spec.name}", f"final {spec.label}", short=spec.short, **EPSILON, **TABLE)
        for spec in PRIVACY
        if spec.name.startswith("epsilon_")
    ),
    _summary(
        "time_to_target_s",
        "simulated time to target",
        short="time→target",
        unit="s",
        description="Simulated seconds up to the end of the first evaluated round that reached "
        f"eval.target_acc. {TIMED}",
        **LOWER,
        **RANKED,
    ),
    _summary(
        "sim_time_total_s",
        "simulated time",
        short="sim time",
        unit="s",
        description=f"Simulated seconds up to the end of the last round. {TIMED}",
        **TABLE,
    ),
    _summary(
        "total_bytes",
        "total traffic",
        short="traffic",
        unit="B",
        description=f"Bytes sent down and up over the run. {TIMED}",
        **LOWER,
        **TABLE,
    ),
    _summary("rounds_done", "rounds done", unit="rounds"),
    _summary("wall_s", "wall time", unit="s", machine=True, **LOWER, **RANKED),
    _summary(
        "startup_s",
        "process start-up",
        short="start-up",
        unit="s",
        machine=True,
        description="Seconds from the start of the process that ran the rounds to its first "
        "round (interpreter, imports, data, model, an algorithm's set-up); wall_s counts "
        "the rounds only.",
        **LOWER,
    ),
    _summary(
        "client_updates_per_s",
        "client updates / s",
        short="updates/s",
        unit="1/s",
        domain=NON_NEGATIVE,
        machine=True,
        **HIGHER,
        **TABLE,
    ),
    _summary(
        "participation_tv",
        "participation bias (TV)",
        short="bias TV",
        domain=UNIT_INTERVAL,
        description="Total variation distance ½ Σ_k |α_k − p̄_k| between the clients' data "
        "shares α (the target weights) and their shares of the aggregate p̄ (each client's "
        "normalised aggregation weight, stale memory entries included, averaged over the "
        "rounds; in an async run, over the server updates). 0: every client weighed as its "
        "data over the run; 1: the aggregate held none of the clients that hold the data. "
        f"Lower is better. {EXTERNAL_ALPHA}",
        **LOWER,
        **TABLE,
    ),
    _summary(
        "least_available_gap",
        "least available fifth: aggregate − data share",
        short="least avail. gap",
        **GAP,
        description="The fifth of the clients least often available (by their share of rounds "
        "available): their share of the aggregate minus their share of the data. Negative: "
        "they weigh less in the model than their data (−17 pp: a fifth holding 20 % of the "
        "data made 3 % of the aggregate); 0: as much. None where every client was available "
        f"as often. {EXTERNAL_ALPHA}",
    ),
    _summary(
        "slowest_gap",
        "slowest fifth of devices: aggregate − data share",
        short="slowest gap",
        **GAP,
        description="The fifth of the clients whose devices take longest for a round's work "
        "(download, local steps, upload): their share of the aggregate minus their share of "
        "the data. Negative: a deadline or over-commitment leaves them out. " + TIMED,
    ),
)

_registered: list[MetricSpec] = []


def _derived(spec: MetricSpec) -> MetricSpec:
    return MetricSpec(
        summary_name(spec.name),
        f"{spec.label}, average",
        "summary",
        unit=spec.unit,
        scale=spec.scale,
        panel="summary",
        better=spec.better,
        compare=spec.compare,
        rank=spec.rank,
        description=f"Average of {spec.name} over the rounds that recorded it.",
        domain=spec.domain,
        machine=spec.machine,
    )


def catalogue(registered: Iterable[MetricSpec] | None = None) -> list[MetricSpec]:
    """Every metric: the built-in round metrics, the registered ones (by default, those
    of the installed components), then the summary values (built-in, then those derived
    from round metrics declared `summary=True`)."""
    rounds = [*ROUND_METRICS, *(_registered if registered is None else registered)]
    derived = [_derived(s) for s in rounds if s.summary]
    return [*rounds, *SUMMARY_VALUES, *derived]


def by_name(registered: Iterable[MetricSpec] | None = None) -> dict[str, MetricSpec]:
    return {spec.name: spec for spec in catalogue(registered)}


def check_new(specs: Iterable[MetricSpec], taken: Iterable[MetricSpec]) -> None:
    """Raise ValueError where `specs` (an algorithm's own round metrics) are not round
    metrics or take a name of the catalogue that `taken` (round metrics registered
    already) adds to the built-in one."""
    names = set(by_name(taken))
    for spec in specs:
        if spec.kind != "round":
            raise ValueError(f"metric {spec.name!r}: only round metrics can be registered")
        derived = {spec.name, summary_name(spec.name)} if spec.summary else {spec.name}
        if clash := derived & names:
            raise ValueError(f"metric {sorted(clash)[0]!r} is already in the catalogue")
        names |= derived


def use(specs: Iterable[MetricSpec]) -> None:
    """Make `specs` the catalogue's registered round metrics: those of the components
    this process installed (`components.install`)."""
    _registered[:] = list(specs)


def panels() -> list[PanelSpec]:
    """Every panel a round metric of the catalogue is in: the built-in ones in display
    order, then the others (plug-ins') in catalogue order, titled "<Panel> metrics"."""
    used = [s.panel for s in catalogue() if s.kind == "round"]
    known = {p.name for p in PANELS}
    extra = [name for name in dict.fromkeys(used) if name not in known]
    return [
        *(p for p in PANELS if p.name in used),
        *(PanelSpec(name, f"{name[:1].upper()}{name[1:]} metrics") for name in extra),
    ]


def log_scaled(spec: MetricSpec) -> bool:
    """Whether its charts and figures default to a log y axis: its panel's."""
    return any(p.log for p in PANELS if p.name == spec.panel)


def compared() -> list[MetricSpec]:
    """Summary values in the comparison tables, in catalogue order."""
    return [s for s in catalogue() if s.kind == "summary" and s.compare]


def rankings() -> list[MetricSpec]:
    """Summary values runs can be ranked by."""
    return [s for s in catalogue() if s.kind == "summary" and s.rank]
