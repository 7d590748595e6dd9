"""Run schemas: what clients send and what they get back."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    StrictBool,
    StringConstraints,
    computed_field,
    model_validator,
)
from pydantic import Tag as UnionTag
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, core_schema

from api.schemas.catalog import REFERENCES_DESCRIPTION, ReferencePublic
from api.schemas.ingest import ExternalRunCreate
from api.storable import NO_NUL
from db.models import EXTERNAL
from db.status import ACTIVE, RESUMABLE, Status
from fedwatch.limits import INT32_MAX, TAG_MAX
from worker.engine import RunConfig, current, metrics, run_config_for
from worker.presets import references_for

Source = Literal["simulated", "external"]


def ranking_names() -> list[str]:
    """The summary values runs can be ranked by: the catalogue's, plug-ins' included."""
    return [spec.name for spec in metrics.rankings()]


def _ranking(name: str) -> str:
    names = ranking_names()
    if name not in names:
        raise ValueError(f"not a ranking; one of {', '.join(names)}")
    return name


class _RankingEnum:
    """The rankings as an enum in the OpenAPI schema, read from the catalogue when the
    schema is built (after plug-ins registered theirs)."""

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        out = handler(schema)
        out["enum"] = ranking_names()
        return out


Ranking = Annotated[str, AfterValidator(_ranking), _RankingEnum()]


class _Installed:
    """A `RunConfig` validated, and described in the schema, by the class built from this
    process's components (the request models are defined before they are installed)."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.no_info_plain_validator_function(
            lambda data: run_config_for(current()).model_validate(data),
            serialization=core_schema.plain_serializer_function_ser_schema(
                lambda config: config.model_dump(mode="json")
            ),
        )

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return handler(run_config_for(current()).__pydantic_core_schema__)


InstalledConfig = Annotated[RunConfig, _Installed]


class RunCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    config: InstalledConfig = Field(
        default_factory=lambda: run_config_for(current())(),
        description="Partial configs get defaults.",
    )
    notes: str = Field("", max_length=20_000, description="Free text, stored as data.")


class RunItem(BaseModel):
    """A run (list views, status events), its config only where asked for (`without_config`
    leaves it out). Built by `api.shown.shown_run`, the one place that sets what a run
    shows: `stalled`, its speed, queue place and ETA."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    name: str
    status: Status = Field(description="`GET /api/meta` lists the statuses and their flags.")
    source: Source = Field(
        "simulated", description="`external`: its rounds come through the ingest API."
    )
    progress: float
    rounds_done: int
    rounds_total: int
    algorithm: str
    dataset: str
    availability: str
    seed: int | None = Field(description="None: an external run that names no seed.")
    n_clients: int
    experiment_id: int | None
    notes: str
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    summary: dict[str, Any] | None
    error: str | None
    worker: str | None
    tags: list[str] = Field(description="Labels set with PATCH; the list filters by them.")
    archived: bool = Field(
        False, description="Kept with its records, left out of the runs list unless asked for."
    )
    cancel_requested: bool = Field(
        description="A cancel was asked for; while the run is still active it is stopping "
        "(the dashboard shows it as cancelling)."
    )
    rounds_per_s: float | None = Field(
        None,
        description="Measured speed: rounds per second of the run's training time (`wall_s`); "
        "a finished run's from its summary. Set by the runs list and `GET /api/runs/{id}`.",
    )
    queue_position: int | None = Field(
        None, description="A queued run's place in its queue: 1 starts next."
    )
    eta_s: float | None = Field(
        None,
        description="An active run's estimated seconds until it finishes, from the measured "
        "speeds and the runs queued ahead of it; null until they are measured.",
    )
    config: dict[str, Any] | None = Field(
        None,
        description="The run's config: in the runs list with `config=true` (null otherwise); "
        "always in `GET /api/runs/{id}`.",
    )

    @computed_field(description="Queued, running or stalled (`GET /api/meta`).")  # type: ignore[prop-decorator]
    @property
    def active(self) -> bool:
        return self.status in ACTIVE

    @computed_field(description="`POST /api/runs/{id}/resume` queues it again.")  # type: ignore[prop-decorator]
    @property
    def resumable(self) -> bool:
        return self.source != EXTERNAL and self.status in RESUMABLE


Tag = Annotated[
    str,
    StringConstraints(pattern=rf"^[A-Za-z0-9_.:+-]{{1,{TAG_MAX}}}$"),
    Field(description=f"Letters, digits and _ . : + -, at most {TAG_MAX}."),
]


class RunEdit(BaseModel):
    """`PATCH /api/runs/{id}`: what a user changes after creating a run; a field left out
    stays as it is."""

    model_config = ConfigDict(extra="forbid")

    name: str | None = Field(None, min_length=1, max_length=200, pattern=NO_NUL)
    notes: str | None = Field(None, max_length=20_000, pattern=NO_NUL)
    tags: list[Tag] | None = Field(None, max_length=20, description="Replaces the run's tags.")
    archived: StrictBool | None = Field(None, description="Archive the run, or bring it back.")


class RunsBulk(BaseModel):
    """`POST /api/runs/bulk`: one action on many runs, in one transaction."""

    model_config = ConfigDict(extra="forbid")

    ids: list[Annotated[int, Field(ge=1, le=INT32_MAX)]] = Field(min_length=1, max_length=1000)
    action: Literal["delete", "archive", "unarchive", "tag", "untag"]
    tag: Tag | None = Field(None, description="The tag of `tag` and `untag`.")

    @model_validator(mode="after")
    def _tag_given(self) -> Self:
        if self.action in ("tag", "untag") and self.tag is None:
            raise ValueError(f"{self.action}: needs a tag")
        return self


class RunsBulkDone(BaseModel):
    action: str
    done: list[int] = Field(description="The runs the action applied to.")
    missing: list[int] = Field(description="Ids that name no run (nothing done to them).")


def without_config(item: RunItem) -> RunItem:
    return item.model_copy(update={"config": None})


class RunPublic(RunItem):
    config: dict[str, Any]  # always: required here
    availability_period: int | None = Field(
        None,
        description="An external run's availability period, as it declared it; null without "
        "one, and for a simulated run (its config's availability model has it).",
    )
    model_bytes: int | None = Field(
        None,
        description="Size of the run's final model file (`GET /api/runs/{id}/model`); null "
        "without one.",
    )
    references: dict[str, list[ReferencePublic]] = Field(
        default_factory=dict,
        description=f"{REFERENCES_DESCRIPTION} From the preset whose data and availability "
        "the run has unchanged.",
    )

    @model_validator(mode="after")
    def _references(self) -> Self:
        self.references = {
            metric: [ReferencePublic(value=r.value, label=r.label) for r in lines]
            for metric, lines in references_for(self.config).items()
        }
        return self


def _source(body: Any) -> Any:
    return body.get("source") if isinstance(body, dict) else getattr(body, "source", None)


# The body of `POST /api/runs`: a config the engine simulates, or an external run. Its
# tags are not fields: `api.errors` drops them from an error's `loc`.
BODY_TAGS = ("simulated", "external")
RunBody = Annotated[
    Annotated[RunCreate, UnionTag("simulated")]
    | Annotated[ExternalRunCreate, UnionTag("external")],
    Discriminator(lambda body: "external" if _source(body) == "external" else "simulated"),
]


class RunsPublic(BaseModel):
    data: list[RunItem]
    count: int
