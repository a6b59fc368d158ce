"""An hour entry edited in two tabs: the later save is refused, naming the change."""

from __future__ import annotations

from decimal import Decimal

import pytest
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import count, drawn_form, sign_in
from tracker.audit.models import AuditEvent
from tracker.progress.models import HourLog
from tracker.progress.services.hours import log_hours

pytestmark = pytest.mark.usefixtures("pinned_today")


def test_a_second_tab_saving_over_the_first_is_refused_then_goes_through(
    client: FlaskClient, db: Session
):
    alice = factories.engineer(db, name="Alice Ops")
    entry = log_hours(
        db,
        alice,
        factories.course(db, "FDL"),
        factories.TODAY.replace(day=2),
        factories.hours("1.5"),
        factories.TODAY,
        note="reading",
        actor=alice,
    )
    sign_in(client, alice)
    url = f"/hours/{entry.id}/edit"
    first, second = (drawn_form(client.get(url).text, url) for _ in range(2))
    first["hours"] = "3"
    assert client.post(url, data=first).status_code == 302
    events = count(db, AuditEvent)

    second["note"] = "chapter 2"
    refused = client.post(url, data=second)
    assert refused.status_code == 409
    page = refused.get_data(as_text=True)
    alert = page[page.index('role="alert"') :].split("</div>")[0]
    assert "Hours: now 3" in alert and "Note" not in alert
    assert 'value="chapter 2"' in page
    db.expire_all()
    stored = db.get(HourLog, entry.id)
    assert (stored.hours, stored.note) == (Decimal(3), "reading")
    assert count(db, AuditEvent) == events

    again = drawn_form(page, url)
    again["hours"] = "3"
    assert client.post(url, data=again).status_code == 302
    db.expire_all()
    assert (stored.hours, stored.note) == (Decimal(3), "chapter 2")
