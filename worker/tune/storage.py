"""Where a service tune's Optuna studies live: FedWatch's own database, kept apart from
its tables because both use Alembic's `alembic_version`. On Postgres: the schema
`optuna` of the same database; on SQLite: the file beside the database's, with
`.optuna` appended to its name."""

from __future__ import annotations

import threading

import optuna
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

SCHEMA = "optuna"
_made: dict[str, optuna.storages.RDBStorage] = {}
_making = threading.Lock()  # a first use creates the tables: once, whatever the threads


def optuna_storage(database_url: str) -> optuna.storages.RDBStorage:
    """The Optuna storage of the FedWatch database at `database_url` (one a process)."""
    with _making:
        if database_url not in _made:
            _made[database_url] = _open(database_url)
        return _made[database_url]


def _open(database_url: str) -> optuna.storages.RDBStorage:
    optuna.logging.set_verbosity(optuna.logging.WARNING)  # a line per study loaded, else
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        path = f"{url.database}.{SCHEMA}"
        return optuna.storages.RDBStorage(
            f"sqlite:///{path}", engine_kwargs={"connect_args": {"timeout": 30}}
        )
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(text(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}"))
    engine.dispose()
    return optuna.storages.RDBStorage(
        url.render_as_string(hide_password=False),
        engine_kwargs={
            "pool_pre_ping": True,
            "connect_args": {"options": f"-c search_path={SCHEMA}"},
        },
    )


def study_name(tune_id: int, method: str) -> str:
    return f"fedwatch-tune-{tune_id}:{method}"
