"""What the database's columns hold, for every layer that stores or checks a value:
standard library only, so any layer may import it. The sizes of a request's body are
the API's own (`api/limits.py`)."""

from __future__ import annotations

# Ids, rounds, counts and seeds live in `Integer` columns, 32-bit on Postgres: a larger
# value addresses nothing, and past 64 bits SQLite cannot even compare with it.
INT32_MAX = 2**31 - 1
# A metric's name: the key of its stored series (`metric_chunks.name`).
METRIC_NAME_MAX = 64
# A component's name: a run's `algorithm`, `dataset` and `availability` columns; every
# kind of component is held to it where it is declared, so any may be stored.
COMPONENT_NAME_MAX = 40
# A run's tag (`run_tags.tag`).
TAG_MAX = 40
