"""A run's model stored in parts: read back part by part as it was written; a reader of
a model that another replaced since gets no part of the new one."""

from __future__ import annotations

from sqlalchemy.orm import Session, sessionmaker

from db.run_models import PART_BYTES, model_part, model_size, save_model, stored_model
from tests.db.records import make_run


def test_a_model_is_stored_and_read_in_parts(sessions: sessionmaker[Session]) -> None:
    data = bytes(range(256)) * (PART_BYTES // 128) + b"end"  # two parts and 3 bytes
    run_id = make_run(sessions, 2, 1)
    with sessions.begin() as session:
        save_model(session, run_id, data)
    with sessions() as session:
        model = stored_model(session, run_id)
        assert model is not None and (model.size, model.parts) == (len(data), 3)
        parts = [model_part(session, run_id, seq, model) for seq in range(model.parts)]
        assert model_size(session, run_id) == len(data)
    assert [len(p or b"") for p in parts] == [PART_BYTES, PART_BYTES, 3]
    assert b"".join(p or b"" for p in parts) == data


def test_a_replaced_model_s_reader_gets_none_of_the_new_one(
    sessions: sessionmaker[Session],
) -> None:
    run_id = make_run(sessions, 2, 1)
    with sessions.begin() as session:
        save_model(session, run_id, b"old")
    with sessions() as session:
        old = stored_model(session, run_id)
    with sessions.begin() as session:
        save_model(session, run_id, b"new!")
    with sessions() as session:
        new = stored_model(session, run_id)
        assert old is not None and new is not None
        assert model_part(session, run_id, 0, old) is None
        assert model_part(session, run_id, 0, new) == b"new!"
