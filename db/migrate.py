"""Apply the Alembic migrations shipped inside the package."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

INI = Path(__file__).with_name("alembic.ini")


def alembic_config(url: str) -> Config:
    config = Config(str(INI))
    config.set_main_option("script_location", str(INI.with_name("migrations")))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def upgrade(url: str) -> None:
    command.upgrade(alembic_config(url), "head")
