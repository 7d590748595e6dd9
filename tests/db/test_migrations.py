from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy.orm import Session, sessionmaker

from db.migrate import upgrade
from db.models import Base


def test_migrated_schema_matches_the_models(sessions: sessionmaker[Session]) -> None:
    with sessions() as session:
        context = MigrationContext.configure(session.connection())
        assert compare_metadata(context, Base.metadata) == []


def test_upgrade_twice_is_harmless(db_url: str, sessions: sessionmaker[Session]) -> None:
    upgrade(db_url)
    with sessions() as session:
        context = MigrationContext.configure(session.connection())
        assert context.get_current_revision() == "0001"
