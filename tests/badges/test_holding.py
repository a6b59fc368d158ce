"""The badge import page holds the person it records a badge for until it commits."""

from __future__ import annotations

from sqlalchemy import func, select, update
from sqlalchemy.orm import sessionmaker

from tests import factories
from tests.badges.conftest import Issuer
from tests.helpers import sign_in
from tests.locks import racing_app, while_another_writes
from tracker.db import session_scope
from tracker.people.models import Engineer
from tracker.progress.models import Certification


def test_a_badge_imported_for_someone_checks_the_email_committed_meanwhile(
    racing_url: str, issuer: Issuer
) -> None:
    app = racing_app(racing_url, BADGE_ALLOW_HOSTS="127.0.0.1")
    engine = app.extensions["tracker.engine"]
    try:
        with session_scope(sessionmaker(bind=engine, expire_on_commit=False)) as session:
            who = factories.engineer(session, email="ada@example.com")
            admin = factories.engineer(session, access_role="admin")
        issuer.assertion("/a/1", who.email, issued="2026-03-15")
        client = app.test_client()
        sign_in(client, admin)
        # Another writer's change of the person's address, uncommitted when the page reads
        # them: the import waits for it, then finds the badge is not the person's.
        response = while_another_writes(
            engine,
            update(Engineer).where(Engineer.id == who.id).values(email="ada@example.org"),
            lambda: client.post(
                "/credentials/badges",
                data={"badge_engineer": who.id, "badge_url": issuer.server.url("/a/1")},
            ),
        )
        assert response.status_code == 400
        assert "issued to someone else&#39;s e-mail address" in response.get_data(as_text=True)
        with engine.connect() as conn:
            stored = select(func.count()).where(Certification.engineer_id == who.id)
            assert conn.execute(stored).scalar_one() == 0
    finally:
        engine.dispose()
