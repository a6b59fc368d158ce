"""A write for the engineer a body names holds them, as a write at their URL does."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.orm import sessionmaker

from tests import factories
from tests.locks import racing_app, while_another_writes
from tracker.db import session_scope
from tracker.people.models import Engineer
from tracker.people.services.accounts import create_token
from tracker.progress.models import Certification, ExamAttempt, HourLog

HIRED = dt.date(2026, 6, 1)
BEFORE = "2026-03-02"

# What an admin records for someone on a day before the hire date committed meanwhile:
# the path, the body, the field refused and where it would have been stored.
WRITES: dict[str, tuple[str, dict[str, Any], str, type[Any]]] = {
    "hours": (
        "/api/v1/hours",
        {"course": "FDL", "date": BEFORE, "hours": 1.5},
        "date",
        HourLog,
    ),
    "exam attempt": (
        "/api/v1/exam-attempts",
        {"exam": "NCA-AIIO", "date": BEFORE, "score": 80, "passed": True},
        "date",
        ExamAttempt,
    ),
    # NCP-AII asks 12 months of experience: hired since, the person has none.
    "credential": (
        "/api/v1/credentials",
        {"code": "NCP-AII", "issued_on": BEFORE, "evidence": "certificate 7"},
        "code",
        Certification,
    ),
}


@pytest.mark.parametrize("write", WRITES)
def test_a_write_for_someone_waits_for_a_change_to_them_and_checks_what_it_committed(
    racing_url: str, write: str
) -> None:
    app = racing_app(racing_url)
    engine = app.extensions["tracker.engine"]
    try:
        with session_scope(sessionmaker(bind=engine, expire_on_commit=False)) as session:
            who, admin = factories.someone_and_an_admin(session)
            secret = create_token(session, admin, "race")[1]
        url, body, field, model = WRITES[write]
        client = app.test_client()
        # Another writer's change of the hire date, uncommitted when the write reads the
        # person: the write waits for it, then checks the body against the date committed.
        response = while_another_writes(
            engine,
            update(Engineer).where(Engineer.id == who.id).values(hired_on=HIRED),
            lambda: client.post(
                url,
                json={**body, "engineer": who.id},
                headers={"Authorization": f"Bearer {secret}"},
            ),
        )
        assert response.status_code == 400, response.get_json()
        assert set(response.get_json()["errors"]) == {field}
        with engine.connect() as conn:
            stored = select(func.count()).select_from(model).where(model.engineer_id == who.id)
            # The credential's prerequisite stays: nothing was added to it.
            assert conn.execute(stored).scalar_one() == (model is Certification)
    finally:
        engine.dispose()
