"""Deleting an hour entry and cancelling a planned exam ask first, on a page of their own.

The button is a link to the confirmation page (GET, which changes nothing); its
button posts with the page's CSRF token and does it; Cancel goes back to the
page the button was on. A direct POST still works (test_views_hours.py and
test_views_exam_plans.py).
"""

from __future__ import annotations

import datetime as dt
import re
from html import unescape
from urllib.parse import urlencode

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.factories import hours
from tests.helpers import ELSEWHERE, confirmation, count
from tests.progress.helpers import counts, log_entries, page
from tracker.audit.models import AuditEvent
from tracker.people.models import Engineer
from tracker.progress.models import ExamPlan, HourLog
from tracker.progress.rules import HOUR_LOG_PAGE_SIZE
from tracker.progress.services.exam_plans import plan_exam
from tracker.progress.services.hours import log_hours

TODAY = factories.TODAY
ON = dt.date(2026, 11, 3)
PLANNED = dt.date(2026, 12, 3)

pytestmark = pytest.mark.usefixtures("pinned_today")


@pytest.fixture
def entry(db: Session, alice: Engineer) -> HourLog:
    course = factories.course(db, "FDL")
    return log_hours(db, alice, course, ON, hours("2.5"), TODAY, note="lab", actor=alice)


@pytest.fixture
def plan(db: Session, alice: Engineer) -> ExamPlan:
    return plan_exam(db, alice, factories.exam(db, "NCA-AIIO"), PLANNED, TODAY)


def test_deleting_an_entry_asks_what_it_deletes_and_what_is_kept(db, client, auth, alice, entry):
    auth.sign_in(alice)
    url = f"/hours/{entry.id}/delete?back=/hours"
    assert f'<a href="{url}" role="button"' in client.get("/hours").text
    before = counts(db)

    asked = confirmation(client, url)

    assert asked.question == "Delete the entry of 2.5 h on FDL of 2026-11-03?"
    assert "Its hours no longer count towards the course." in asked.text
    assert "The audit trail keeps a record of the entry." in asked.text
    assert "Delete the entry" in asked.text
    assert counts(db) == before  # asking deletes nothing
    # Cancel: back to the list, the entry on it.
    assert (asked.back, asked.back_label) == ("/hours", "Cancel")
    assert "lab" in page(client.get(asked.back)).rows[1]

    response = asked.confirm(follow_redirects=True)

    assert response.request.path == "/hours"
    assert "Entry deleted." in page(response).flashes
    assert db.get(HourLog, entry.id) is None
    kept = select(AuditEvent).where(AuditEvent.entity_id == entry.id, AuditEvent.action == "delete")
    assert db.scalars(kept).one().before["note"] == "lab"


def delete_buttons(client, url: str) -> list[str]:
    """Return the links of the Delete buttons on a page of the hours list."""
    html = client.get(url).get_data(as_text=True)
    return [unescape(link) for link in re.findall(r'<a href="(/hours/\d+/delete[^"]*)"', html)]


def test_deleting_from_a_later_page_of_the_list_returns_to_that_page(db, client, auth, alice):
    log_entries(db, alice, 2 * HOUR_LOG_PAGE_SIZE + 3)
    auth.sign_in(alice)
    buttons = delete_buttons(client, "/hours?page=2")
    assert len(buttons) == HOUR_LOG_PAGE_SIZE
    assert all(link.endswith("?back=/hours?page%3D2") for link in buttons)

    asked = confirmation(client, buttons[0])
    assert asked.back == "/hours?page=2"  # Cancel: the page the button was on
    response = asked.confirm()

    assert response.status_code == 302 and response.headers["Location"] == "/hours?page=2"
    landed = page(client.get(response.headers["Location"]))
    assert "Entry deleted." in landed.flashes
    assert "Page 2 of 3" in landed.text
    assert count(db, HourLog) == 2 * HOUR_LOG_PAGE_SIZE + 2


def test_deleting_the_only_entry_of_the_last_page_lands_on_the_new_last_page(
    db, client, auth, alice
):
    log_entries(db, alice, 2 * HOUR_LOG_PAGE_SIZE + 1)
    auth.sign_in(alice)
    [button] = delete_buttons(client, "/hours?page=3")

    response = confirmation(client, button).confirm()

    assert response.headers["Location"] == "/hours?page=2"
    landed = page(client.get(response.headers["Location"]))
    assert "Entry deleted." in landed.flashes
    assert "Page 2 of 2" in landed.text


@pytest.mark.parametrize("elsewhere", ELSEWHERE)
def test_the_way_back_is_only_ever_a_page_of_this_site(db, client, auth, alice, entry, elsewhere):
    auth.sign_in(alice)

    asked = confirmation(client, f"/hours/{entry.id}/delete?" + urlencode({"back": elsewhere}))
    response = asked.confirm()

    assert asked.back == "/hours"
    assert response.status_code == 302 and response.headers["Location"] == "/hours"
    assert db.get(HourLog, entry.id) is None


def test_nobody_else_is_asked_about_an_entry(db, client, auth, entry):
    auth.sign_in(factories.engineer(db))
    assert client.get(f"/hours/{entry.id}/delete").status_code == 403
    assert client.get("/hours/999999/delete").status_code == 404


@pytest.mark.parametrize(("back", "returns_to"), [(None, "/exams"), ("dashboard", "/dashboard")])
def test_cancelling_a_plan_asks_first_from_either_page(
    db, client, auth, alice, plan, back, returns_to
):
    auth.sign_in(alice)
    url = f"/exams/plans/{plan.id}/cancel" + ("?back=dashboard" if back else "")
    assert f'href="{url}"' in client.get(returns_to).text

    asked = confirmation(client, url)

    assert asked.question == "Cancel your plan to take NCA-AIIO on 2026-12-03?"
    assert "The exam leaves your planned exams." in asked.text
    assert "Your attempts and certifications stay as they are" in asked.text
    assert (asked.back, asked.back_label) == (returns_to, "Keep the plan")
    db.refresh(plan)
    assert plan.cancelled_at is None
    assert "NCA-AIIO" in client.get(asked.back).text

    response = asked.confirm()

    assert response.status_code == 302 and response.headers["Location"] == returns_to
    db.refresh(plan)
    assert plan.cancelled_at is not None
    # Cancelled, nothing is left to ask about.
    assert client.get(url).status_code == 404


def test_a_plan_is_asked_about_by_its_owner_only(db, client, auth, plan):
    auth.sign_in(factories.engineer(db, access_role="admin"))
    assert client.get(f"/exams/plans/{plan.id}/cancel").status_code == 404
    assert count(db, ExamPlan) == 1


def test_the_questions_are_asked_in_spanish(db, client, auth, entry, plan, alice):
    auth.sign_in(alice)
    client.post("/profile/locale", data={"locale": "es"})

    asked = confirmation(client, f"/hours/{entry.id}/delete")
    assert asked.question == "¿Eliminar la entrada de 2,5 h en FDL del 3 nov 2026?"
    assert "El registro de auditoría guarda constancia de la entrada." in asked.text
    assert asked.back_label == "Cancelar"

    asked = confirmation(client, f"/exams/plans/{plan.id}/cancel")
    assert asked.question == "¿Cancelar tu plan de presentar NCA-AIIO el 3 dic 2026?"
    assert asked.back_label == "Mantener el plan"
