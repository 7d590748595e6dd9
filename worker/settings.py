"""The one settings object of the service; nothing else reads the environment."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parents[1]


class Settings(BaseSettings):
    """Every field is read from `FEDWATCH_<FIELD>` (e.g. `FEDWATCH_DATABASE_URL`)."""

    model_config = SettingsConfigDict(env_prefix="FEDWATCH_", extra="ignore")

    database_url: str = Field(
        "sqlite:///var/fedwatch.sqlite3", description="SQLAlchemy URL of the tracking database."
    )
    broker_url: str | None = Field(
        None, description="Celery broker (redis://...); unset = embedded in-process execution."
    )
    api_token: str | None = Field(None, description="When set, writes need `Bearer <token>`.")
    protect_reads: bool = Field(False, description="Require the token for reads too.")
    data_root: str = Field("data", description="Root of torchvision datasets.")
    frontend_dir: Path = Field(REPO_ROOT / "frontend", description="Static front-end files.")
    max_body_bytes: int = Field(1_000_000, ge=1, description="Largest accepted request body.")
    embedded_concurrency: int = Field(1, ge=1, description="Runs executed at once in-process.")
    flush_rounds: int = Field(200, ge=1, description="Recorder: flush after this many rounds.")
    flush_seconds: float = Field(0.5, gt=0, description="Recorder: flush at least this often.")
    checkpoint_seconds: float = Field(
        10.0,
        ge=0,
        description="Recorder: store a checkpoint at most this often (0: each one the engine "
        "makes); a resumed run replays at most this much more.",
    )
    lease_s: float = Field(
        60.0, gt=0, description="A running run silent this long is taken over by a new worker."
    )
    soft_time_limit_s: int = Field(86_400, ge=1, description="Task soft time limit.")
    time_limit_s: int = Field(90_000, ge=1, description="Task hard time limit.")
    visibility_timeout_s: int = Field(
        93_600, ge=1, description="Redis redelivers an unacknowledged run after this long."
    )
    restore_interval_s: float = Field(
        10.0, gt=0, description="How often a worker looks for messages to redeliver."
    )
    sweep_interval_s: float = Field(
        60.0,
        gt=0,
        description="How often a worker re-enqueues running runs silent longer than the lease.",
    )
    sse_poll_s: float = Field(0.25, gt=0, description="How often an event stream polls.")
    max_run_memory_mb: int = Field(
        6144,
        ge=1,
        description="Largest estimated peak memory of one run, in MiB: larger runs are "
        "refused (422) before anything is queued. The default lets a 24 GiB machine run "
        "three at once beside the API and the database; the presets need at most 4.2 GiB.",
    )
    max_run_gflop: float = Field(
        3_000_000,
        gt=0,
        description="Largest estimated work of one run, in GFLOP (10^9 floating-point "
        "operations): larger runs are refused (422). The default is about 21 hours at "
        "40 GFLOP/s, what a 2-core CPU reaches on the CNN, within the task time limit.",
    )

    @classmethod
    def env_name(cls, field: str) -> str:
        """The environment variable that sets `field`."""
        return f"{cls.model_config.get('env_prefix', '')}{field}".upper()

    @model_validator(mode="after")
    def _limits(self) -> Settings:
        """Soft time limit < hard limit < visibility timeout, or a live run is redelivered."""
        if not self.soft_time_limit_s < self.time_limit_s < self.visibility_timeout_s:
            raise ValueError(
                "FEDWATCH_SOFT_TIME_LIMIT_S < FEDWATCH_TIME_LIMIT_S < "
                "FEDWATCH_VISIBILITY_TIMEOUT_S must hold"
            )
        return self


settings = Settings()
