"""The one settings object of the service; nothing else reads the environment.

It lives in the lowest package of the service, so the migrations, the workers and the
API all read it without importing one another."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parents[1]


def usable_cores() -> int:
    """Cores this process may run on (its affinity mask, e.g. a container's share)."""
    return len(os.sched_getaffinity(0))


class Settings(BaseSettings):
    """Every field is read from `FEDWATCH_<FIELD>` (e.g. `FEDWATCH_DATABASE_URL`)."""

    model_config = SettingsConfigDict(env_prefix="FEDWATCH_", extra="ignore")

    database_url: str = Field(
        "sqlite:///var/fedwatch.sqlite3", description="SQLAlchemy URL of the tracking database."
    )
    broker_url: str | None = Field(
        None, description="Celery broker (redis://...); unset = embedded in-process execution."
    )
    api_token: str | None = Field(
        None, description="When set, writes need `Bearer <token>`; empty = no token."
    )
    protect_reads: bool = Field(False, description="Require the token for reads too.")
    data_root: str = Field(
        "data", description="Root of the datasets' files; runs read only inside it."
    )
    allow_download: bool = Field(
        False, description="Let runs download missing datasets into the data root."
    )
    frontend_dir: Path = Field(REPO_ROOT / "frontend", description="Static front-end files.")
    manual_dir: Path = Field(
        REPO_ROOT / "var" / "manual",
        description="The built manual (`make docs`), served under /manual.",
    )
    max_body_bytes: int = Field(1_000_000, ge=1, description="Largest accepted request body.")
    max_model_bytes: int = Field(
        256_000_000,
        ge=1,
        description="Largest model file an external run may attach (`POST .../model`); "
        "larger ones get a 413.",
    )
    model_transfers: int = Field(
        8,
        ge=1,
        description="Model files sent or received at once (each holds about a megabyte); "
        "past it a 503 with Retry-After.",
    )
    embedded_concurrency: int = Field(
        default_factory=lambda: max(2, min(8, usable_cores())),
        ge=1,
        description="Embedded server: runs executed at once (each in its own process).",
    )
    run_threads: int | None = Field(
        None,
        ge=1,
        description="Torch threads of each run, exactly (default: up to the usable cores ÷ "
        "runs at once, at least 1, fewer while other processes hold the cores), so runs "
        "sharing the cores do not oversubscribe them.",
    )
    run_cores: Literal["apart", "shared"] = Field(
        "apart",
        description="Embedded server with more than one usable core: `apart` keeps it on its "
        "first core and its runs on the others, so that serving viewers never preempts a run; "
        "`shared` lets runs and the API use every core.",
    )
    max_run_memory_mb: int = Field(
        6144,
        ge=64,
        description="Largest memory of one run, in MiB: a run estimated above it is refused "
        "(422) before anything is queued, and a run's process is capped there beyond its "
        "start-up. The default lets a 24 GiB machine run three at once beside the API and "
        "the database; the presets need at most 4.2 GiB.",
    )
    max_file_read_mb: int = Field(
        1024,
        ge=16,
        description="Memory that reading a run's system-model files (FedScale's traces) may "
        "take at admission, in MiB, in a process apart from the API's: a file that takes "
        "more is refused (422 naming it). The largest trace admitted (2^22 values) takes "
        "about 330 MiB.",
    )
    keep_datasets_mb: int = Field(
        2048,
        ge=0,
        description="Datasets the server or a worker keeps in memory across its runs, in "
        "MiB (0: none): runs map them instead of reading them again, and share their pages. "
        "The default holds CIFAR-10 (737 MiB) and SVHN (1225 MiB) at once.",
    )
    keep_datasets_dir: str | None = Field(
        None,
        description="Where the kept datasets lie (default: /dev/shm, shared memory, where "
        "the system has it, else the temporary folder).",
    )
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
    db_retry_s: float = Field(
        60.0,
        ge=0,
        description="Transient database errors (a restart, a dropped connection, a locked "
        "SQLite file) are retried with backoff for this long before a run fails.",
    )
    min_free_disk_mb: float = Field(
        64,
        ge=0,
        description="`/healthz` fails (503) when the disk of a SQLite database has less free "
        "space than this, in MiB: the database soon takes no more writes (a flush of a "
        "1000-client run's rounds is about 2 MB, a checkpoint up to hundreds).",
    )
    ingest_max_rounds: int = Field(
        1000, ge=1, description="External runs: most rounds in one `POST .../rounds` batch."
    )
    ingest_window: int = Field(
        65_536,
        ge=32,
        description="External runs: rounds may arrive in any order, at most this many "
        "rounds past the latest round stored (a round further ahead is a 409); rounds still "
        "missing this far behind the latest one count as rounds nobody took part in. With "
        "many clients the window is smaller: the staleness marks it makes due fit 64 MiB.",
    )
    stall_s: float = Field(
        300.0,
        gt=0,
        description="An external run that sent nothing for this long shows as `stalled`.",
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
    sse_poll_s: float = Field(
        0.25, gt=0, description="How often the live feed looks for new rounds of watched runs."
    )
    supervise_poll_s: float = Field(
        0.2, gt=0, description="How often a run's supervisor looks for cancel or delete."
    )
    tune_poll_s: float = Field(
        0.5,
        gt=0,
        description="How often the server advances its tunes: settles trials from their "
        "runs' rounds (reports, prunes) and starts new ones.",
    )

    max_run_gflop: float = Field(
        3_000_000,
        gt=0,
        description="Largest estimated work of one run, in GFLOP (10^9 floating-point "
        "operations): larger runs are refused (422). The default is about 21 hours at "
        "40 GFLOP/s, what a 2-core CPU reaches on the CNN, within the task time limit.",
    )

    max_tune_gflop: float = Field(
        30_000_000,
        gt=0,
        description="Largest estimated work of a tune's whole budget (every method's "
        "trials and final runs), in GFLOP: larger budgets are refused (422).",
    )

    @field_validator("api_token")
    @classmethod
    def _empty_token_is_none(cls, token: str | None) -> str | None:
        """An empty token (`FEDWATCH_API_TOKEN=`, as compose's `${FEDWATCH_API_TOKEN:-}` sets
        it) means no token, not a token no request can match."""
        return token or None

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

    def threads_per_run(self, concurrency: int, cores: int | None = None) -> int:
        """Torch threads for each of `concurrency` runs sharing `cores` cores (default:
        every usable one)."""
        return self.run_threads or max(1, (cores or usable_cores()) // concurrency)


settings = Settings()
