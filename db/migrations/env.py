"""Alembic environment: the URL comes from `db.migrate` or, on the command line, Settings."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from db.models import Base
from db.session import make_engine


def run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


def main() -> None:
    url = context.config.get_main_option("sqlalchemy.url")
    if not url:
        from db.settings import settings

        url = settings.database_url
    engine = make_engine(url)
    with engine.connect() as connection:
        run(connection)
    engine.dispose()


main()
