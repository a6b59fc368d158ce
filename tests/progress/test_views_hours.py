"""The hours pages: logging, listing, editing and deleting entries, and who may."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from html import unescape

import pytest
from sqlalchemy import func, select

from tests import factories
from tests.helpers import count
from tests.progress.helpers import SCRIPT, SQL, YESTERDAY, D, Page, counts, hours_form, log, page
from tracker.audit.models import AuditEvent
from tracker.progress.models import HourLog
from tracker.progress.rules import HOUR_LOG_PAGE_SIZE

pytestmark = pytest.mark.usefixtures("pinned_today")


def chosen_course(html: str) -> list[str]:
    """Return the text of the course select's chosen options."""
    select_ = re.search(r'<select[^>]*name="course".*?</select>', html, re.S)
    assert select_ is not None
    return [
        unescape(label)
        for attrs, label in re.findall(r"<option([^>]*)>([^<]*)</option>", select_.group(0))
        if re.search(r"\bselected\b", attrs)
    ]


def test_the_hours_form_opens_on_the_course_of_the_newest_entry(db, client, auth, alice):
    """Not on the alphabetically first course (Cluster Management): on what the
    top entry of the list was logged on."""
    log(db, alice, "FDL", 2, on=D(2026, 11, 20))
    log(db, alice, "IB-NET", 1, on=D(2026, 11, 27))
    log(db, alice, "GPU-ARCH", 1, on=D(2026, 11, 10))  # logged later, about an earlier day
    auth.sign_in(alice)

    assert chosen_course(client.get("/hours").get_data(as_text=True)) == [
        "InfiniBand Networking for AI (IB-NET)"
    ]


def test_the_hours_form_opens_a_newcomer_on_the_first_course_of_their_path(client, auth, alice):
    auth.sign_in(alice)

    assert chosen_course(client.get("/hours").get_data(as_text=True)) == [
        "Fundamentals of Deep Learning (FDL)"
    ]


def test_the_hours_form_opens_past_a_path_whose_exam_is_held(db, client, auth, alice):
    """NCA-AIIO recorded, nothing logged: Alice is on the Professional path."""
    factories.certification(db, alice, "NCA-AIIO", D(2026, 1, 10), D(2028, 1, 10))
    auth.sign_in(alice)

    assert chosen_course(client.get("/hours").get_data(as_text=True)) == [
        "Multi-GPU Programming (MULTI-GPU)"
    ]


def test_a_refused_entry_keeps_the_course_it_was_for(db, client, auth, alice):
    log(db, alice, "FDL", 2)
    course = factories.course(db, "AI-STORAGE")
    auth.sign_in(alice)

    response = client.post(
        "/hours", data={"course": course.id, "logged_on": "2026-11-28", "hours": "0"}
    )

    assert response.status_code == 400
    assert chosen_course(response.get_data(as_text=True)) == ["Storage Systems for AI (AI-STORAGE)"]


def test_logging_hours_shows_the_entry_and_moves_the_bar(db, client, auth, alice):
    auth.sign_in(alice)

    response = client.post("/hours", data=hours_form(db, hours="2.5", note="lab one"))

    assert response.status_code == 302
    assert response.headers["Location"] == "/hours"
    entry = db.scalars(select(HourLog).where(HourLog.engineer_id == alice.id)).one()
    assert (entry.hours, entry.logged_on, entry.note) == (Decimal("2.5"), YESTERDAY, "lab one")
    created = db.scalars(select(AuditEvent).where(AuditEvent.entity_id == entry.id)).one()
    assert (created.entity, created.action, created.actor_id) == ("hour_logs", "create", alice.id)

    listing = page(client.get("/hours"))
    assert "Logged 2.5 h on Fundamentals of Deep Learning." in listing.flashes
    assert any(
        r.startswith("Nov 28, 2026 Fundamentals of Deep Learning 2.5 lab one") for r in listing.rows
    )

    bars = page(client.get("/dashboard")).progress
    assert bars["course-FOUNDATIONS-FDL"] == (Decimal("2.5"), 8)
    assert bars["path-FOUNDATIONS"] == (Decimal("2.5"), 48)


def test_a_spanish_reader_logs_one_and_a_half_hours_as_they_write_it(db, client, auth, alice):
    # An English browser's number box would have sent "1,5" as 15.
    alice.locale = "es"
    auth.sign_in(alice)

    response = client.post("/hours", data=hours_form(db, hours="1,5"))

    assert response.status_code == 302
    entry = db.scalars(select(HourLog).where(HourLog.engineer_id == alice.id)).one()
    assert entry.hours == Decimal("1.5")
    edit = client.get(f"/hours/{entry.id}/edit").get_data(as_text=True)
    assert re.search(r'<input[^>]*id="hours"[^>]*value="1,5"', edit), edit


def test_hours_page_lists_only_the_signed_in_engineers_entries(db, client, auth, alice, bob):
    log(db, bob, "GPU-ARCH", 3)
    log(db, alice, "FDL", 1)
    auth.sign_in(alice)

    listing = page(client.get("/hours"))

    assert any("Fundamentals of Deep Learning" in r for r in listing.rows)
    assert not any("GPU Architecture Essentials" in r for r in listing.rows)


def test_the_hours_page_lists_every_entry_a_page_at_a_time(db, client, auth, alice):
    logged = HOUR_LOG_PAGE_SIZE + 3
    for n in range(logged):
        log(db, alice, "FDL", "0.5", on=YESTERDAY - dt.timedelta(days=n))
    auth.sign_in(alice)

    first = page(client.get("/hours"))
    entries = [row for row in first.rows if "Fundamentals of Deep Learning" in row]
    assert len(entries) == HOUR_LOG_PAGE_SIZE
    assert f"{logged} entries, {logged / 2} h in all." in first.text
    assert "Page 1 of 2" in first.text
    html = client.get("/hours").get_data(as_text=True)
    assert 'href="/hours?page=2" rel="next"' in html
    assert 'rel="prev"' not in html

    # The oldest three, on the second page; a page past the end shows the last.
    for url in ("/hours?page=2", "/hours?page=99"):
        last = page(client.get(url))
        oldest = [row for row in last.rows if "Fundamentals of Deep Learning" in row]
        assert len(oldest) == 3
        assert "Page 2 of 2" in last.text
        assert "← Newer" in last.text and "Older" not in last.text


def test_owner_edits_an_entry_and_the_history_shows_both_versions(db, client, auth, alice):
    auth.sign_in(alice)
    client.post("/hours", data=hours_form(db, hours="2.5", note="first take"))
    entry = db.scalars(select(HourLog).where(HourLog.engineer_id == alice.id)).one()

    response = client.post(
        f"/hours/{entry.id}/edit",
        data=hours_form(db, hours="4", note="second take", logged_on="2026-11-27"),
    )

    assert response.status_code == 302
    db.expire_all()
    stored = db.get(HourLog, entry.id)
    assert (stored.hours, stored.logged_on, stored.note) == (
        Decimal(4),
        D(2026, 11, 27),
        "second take",
    )
    assert page(client.get("/dashboard")).progress["course-FOUNDATIONS-FDL"] == (4, 8)
    edit = page(client.get(f"/hours/{entry.id}/edit"))
    history = [r for r in edit.rows if " create " in f" {r} " or " update " in f" {r} "]
    assert len(history) == 2
    created, updated = history
    assert re.search(r"create Nov 28, 2026 · 2\.5 h · first take$", created)
    assert re.search(
        r"update Nov 28, 2026 · 2\.5 h · first take Nov 27, 2026 · 4 h · second take$", updated
    )
    events = db.scalars(
        select(AuditEvent)
        .where(AuditEvent.entity == "hour_logs", AuditEvent.entity_id == entry.id)
        .order_by(AuditEvent.id)
    ).all()
    assert [e.action for e in events] == ["create", "update"]
    assert events[1].before["note"] == "first take"
    assert events[1].after["note"] == "second take"


def test_edit_page_shows_the_current_values(db, client, auth, alice):
    entry = log(db, alice, "GPU-ARCH", "3.25")
    auth.sign_in(alice)

    response = client.get(f"/hours/{entry.id}/edit")

    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert 'value="3.25"' in html
    assert 'value="2026-11-28"' in html
    assert re.search(rf'<option selected value="{entry.course_id}">', html)


def test_owner_deletes_an_entry_and_the_audit_trail_keeps_it(db, client, auth, alice):
    auth.sign_in(alice)
    client.post("/hours", data=hours_form(db, hours="3", note="to be deleted"))
    entry_id = db.scalars(select(HourLog.id).where(HourLog.engineer_id == alice.id)).one()

    response = client.post(f"/hours/{entry_id}/delete")

    assert response.status_code == 302
    assert db.scalar(select(func.count()).where(HourLog.engineer_id == alice.id)) == 0
    deleted = db.scalars(
        select(AuditEvent).where(
            AuditEvent.entity == "hour_logs",
            AuditEvent.entity_id == entry_id,
            AuditEvent.action == "delete",
        )
    ).one()
    assert deleted.actor_id == alice.id
    assert deleted.after is None
    assert deleted.before["note"] == "to be deleted"
    assert Decimal(deleted.before["hours"]) == 3
    assert deleted.before["logged_on"] == "2026-11-28"
    assert deleted.before["engineer_id"] == alice.id
    listing = page(client.get("/hours"))
    assert "Entry deleted." in listing.flashes
    assert "No hours logged yet." in listing.text
    assert page(client.get("/dashboard")).progress["course-FOUNDATIONS-FDL"] == (0, 8)


def test_admin_may_edit_someone_elses_entry(db, client, auth, admin, alice):
    entry = log(db, alice, "FDL", 2)
    auth.sign_in(admin)

    response = client.post(f"/hours/{entry.id}/edit", data=hours_form(db, hours="5"))

    assert response.status_code == 302
    db.expire_all()
    assert db.get(HourLog, entry.id).hours == 5
    update = db.scalars(
        select(AuditEvent).where(AuditEvent.entity_id == entry.id, AuditEvent.action == "update")
    ).one()
    assert update.actor_id == admin.id


def test_admin_may_delete_someone_elses_entry(db, client, auth, admin, alice):
    entry = log(db, alice, "FDL", 2)
    auth.sign_in(admin)

    assert client.post(f"/hours/{entry.id}/delete").status_code == 302
    assert db.scalar(select(func.count()).where(HourLog.id == entry.id)) == 0
    deleted = db.scalars(
        select(AuditEvent).where(AuditEvent.entity_id == entry.id, AuditEvent.action == "delete")
    ).one()
    assert deleted.actor_id == admin.id


@pytest.mark.parametrize("who", ["bob", "boss"])
def test_only_owner_or_admin_edits_or_deletes(request, db, client, auth, report, who):
    entry = log(db, report, "FDL", 2)
    intruder = request.getfixturevalue(who)  # another engineer, or the owner's own manager
    auth.sign_in(intruder)
    before = counts(db)

    assert client.get(f"/hours/{entry.id}/edit").status_code == 403
    assert client.post(f"/hours/{entry.id}/edit", data=hours_form(db)).status_code == 403
    assert client.post(f"/hours/{entry.id}/delete").status_code == 403

    assert counts(db) == before
    db.expire_all()
    assert db.get(HourLog, entry.id).hours == 2


def test_unknown_entry_is_404(db, client, auth, alice):
    auth.sign_in(alice)

    assert client.get("/hours/999999/edit").status_code == 404
    assert client.post("/hours/999999/edit", data=hours_form(db)).status_code == 404
    assert client.post("/hours/999999/delete").status_code == 404


@pytest.mark.parametrize("note", [SCRIPT, SQL, f"{SCRIPT} {SQL}"])
def test_notes_are_stored_verbatim_and_shown_escaped(db, client, auth, alice, note):
    auth.sign_in(alice)

    response = client.post("/hours", data=hours_form(db, note=note))

    assert response.status_code == 302
    entry = db.scalars(select(HourLog).where(HourLog.engineer_id == alice.id)).one()
    assert entry.note == note
    assert count(db, HourLog) >= 1  # the table survived

    listing = client.get("/hours").get_data(as_text=True)
    assert SCRIPT not in listing
    assert any(note in r for r in Page(listing).rows)
    if SCRIPT in note:
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in listing
    if SQL in note:
        assert "&#39;; DROP TABLE hour_logs; --" in listing

    # Change it once so the history has a before and an after carrying the note.
    client.post(f"/hours/{entry.id}/edit", data=hours_form(db, hours="3", note=note))
    edit = client.get(f"/hours/{entry.id}/edit").get_data(as_text=True)
    assert SCRIPT not in edit
    history = [r for r in Page(edit).rows if " update " in f" {r} "]
    assert len(history) == 1
    assert history[0].count(note) == 2
    if SCRIPT in note:
        # The input's value and the history's before and after cells.
        assert edit.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 3
