"""A page's form that records results for someone holds them until it commits."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, sessionmaker

from tests import factories
from tests.helpers import sign_in
from tests.locks import racing_app, while_another_writes
from tracker.db import session_scope
from tracker.people.models import Engineer
from tracker.progress.models import Certification, ExamAttempt

HIRED = dt.date(2026, 6, 1)
BEFORE = "2026-03-02"


def _attempt(session: Session) -> dict[str, Any]:
    return {"exam": factories.exam(session, "NCA-AIIO").id, "attempted_on": BEFORE, "score": 80}


def _credential(session: Session) -> dict[str, Any]:
    credential = factories.credential(session, "NCP-AII")
    return {"credential": credential.id, "issued_on": BEFORE, "evidence": "certificate 7"}


# What an admin records for someone on a day before the hire date committed meanwhile:
# the page, its form's fields, where it would be stored and what the page says.
FORMS: dict[str, tuple[str, Callable[[Session], dict[str, Any]], type[Any], str]] = {
    "exam attempt": (
        "/exams",
        _attempt,
        ExamAttempt,
        "date must not be before the hire date 2026-06-01",
    ),
    # NCP-AII asks 12 months of experience: hired since, the person has none.
    "credential": (
        "/credentials",
        _credential,
        Certification,
        "NCP-AII requires 12 months of documented experience; 0 on 2026-03-02",
    ),
}


@pytest.mark.parametrize("form", FORMS)
def test_a_form_for_someone_waits_for_a_change_to_them_and_checks_what_it_committed(
    racing_url: str, form: str
) -> None:
    url, fields, model, refusal = FORMS[form]
    app = racing_app(racing_url)
    engine = app.extensions["tracker.engine"]
    try:
        with session_scope(sessionmaker(bind=engine, expire_on_commit=False)) as session:
            who, admin = factories.someone_and_an_admin(session)
            sent = {**fields(session), "engineer": who.id, "passed": "y"}
        client = app.test_client()
        sign_in(client, admin)
        # Another writer's change of the hire date, uncommitted when the form reads the
        # person: the form waits for it, then checks what it records against that date.
        response = while_another_writes(
            engine,
            update(Engineer).where(Engineer.id == who.id).values(hired_on=HIRED),
            lambda: client.post(url, data=sent),
        )
        assert response.status_code == 400
        assert refusal in response.get_data(as_text=True)
        with engine.connect() as conn:
            stored = select(func.count()).select_from(model).where(model.engineer_id == who.id)
            # The credential's prerequisite stays: nothing was added to it.
            assert conn.execute(stored).scalar_one() == (model is Certification)
    finally:
        engine.dispose()
