"""The hours pages' refusals of bad hours, dates, courses, notes and full days, and their limits."""

from __future__ import annotations

from decimal import Decimal

import pytest
from sqlalchemy import select

from tests import factories
from tests.helpers import count
from tests.progress.helpers import TODAY, YESTERDAY, D, assert_page_refused, counts, hours_form, log
from tracker.progress.models import HourLog

pytestmark = pytest.mark.usefixtures("pinned_today")


BAD_HOURS = [
    pytest.param({"hours": "0"}, "hours", "more than 0", id="zero"),
    pytest.param({"hours": "-1"}, "hours", "more than 0", id="negative"),
    pytest.param({"hours": "25"}, "hours", "at most 24", id="above-24"),
    pytest.param({"hours": "24.01"}, "hours", "at most 24", id="just-above-24"),
    pytest.param(
        {"hours": "abc"}, "hours", "“Hours” must be a number, written like 1.5", id="not-a-number"
    ),
    pytest.param({"hours": "NaN"}, "hours", "", id="nan"),
    pytest.param({"hours": ""}, "hours", "", id="missing"),
    pytest.param({"hours": "1.234"}, "hours", "at most 2 decimals", id="three-decimals"),
    pytest.param({"logged_on": "2026-11-30"}, "logged_on", "future", id="future-date"),
    pytest.param({"logged_on": "2020-12-31"}, "logged_on", "hire date 2021-01-01", id="pre-hire"),
    pytest.param({"logged_on": "28/11/2026"}, "logged_on", "", id="bad-date"),
    pytest.param({"course": "999999"}, "course", "choose one of the listed", id="unknown-course"),
    pytest.param({"course": "abc"}, "course", "choose one of the listed", id="course-not-an-id"),
    pytest.param(
        {"note": "x" * 501}, "note", "“Note” must be at most 500 characters", id="note-too-long"
    ),
]


@pytest.mark.parametrize(("overrides", "field", "message"), BAD_HOURS)
def test_bad_hours_are_refused_next_to_the_field(
    db, client, auth, alice, overrides, field, message
):
    auth.sign_in(alice)
    before = counts(db)

    response = client.post("/hours", data=hours_form(db, **overrides))

    assert_page_refused(response, field, message)
    assert counts(db) == before


@pytest.mark.parametrize("value", ["sNaN", "Infinity", "-Infinity", "1e400"])
def test_special_decimal_hours_are_refused_next_to_the_field(db, client, auth, alice, value):
    auth.sign_in(alice)
    before = counts(db)

    response = client.post("/hours", data=hours_form(db, hours=value))

    assert_page_refused(response, "hours", "")
    assert counts(db) == before


def test_a_days_total_above_24_is_refused(db, client, auth, alice):
    log(db, alice, "GPU-ARCH", 20, YESTERDAY)
    auth.sign_in(alice)
    before = counts(db)

    response = client.post("/hours", data=hours_form(db, hours="4.25"))

    view = assert_page_refused(response, "hours", "a day holds at most 24 hours")
    assert "20 h are already logged on 2026-11-28" in " ".join(view.errors["hours"])
    assert counts(db) == before


def test_a_full_day_shows_with_the_forms_own_errors_in_one_round(db, client, auth, alice):
    log(db, alice, "GPU-ARCH", 20, YESTERDAY)
    auth.sign_in(alice)
    before = counts(db)

    response = client.post("/hours", data=hours_form(db, hours="4.25", note="x" * 501))

    view = assert_page_refused(response, "note", "“Note” must be at most 500 characters")
    assert "a day holds at most 24 hours" in " ".join(view.errors["hours"])
    assert "20 h are already logged on 2026-11-28" in " ".join(view.errors["hours"])
    assert counts(db) == before


def test_a_full_day_is_left_unsaid_while_the_hours_themselves_are_wrong(db, client, auth, alice):
    log(db, alice, "GPU-ARCH", 20, YESTERDAY)
    auth.sign_in(alice)

    response = client.post("/hours", data=hours_form(db, hours="1.234", note="x" * 501))

    view = assert_page_refused(response, "hours", "at most 2 decimals")
    assert "a day holds" not in " ".join(view.errors["hours"])
    assert "note" in view.errors


def test_a_days_total_of_exactly_24_is_accepted(db, client, auth, alice):
    log(db, alice, "GPU-ARCH", 20, YESTERDAY)
    auth.sign_in(alice)

    response = client.post("/hours", data=hours_form(db, hours="4"))

    assert response.status_code == 302
    assert count(db, HourLog) >= 2


@pytest.mark.parametrize(
    ("amount", "on", "note"),
    [
        ("0.25", YESTERDAY, ""),
        ("24", D(2026, 11, 27), ""),
        ("23.99", D(2026, 11, 26), ""),
        ("1", TODAY, ""),
        ("1", D(2021, 1, 1), "x" * 500),
    ],
)
def test_the_limits_are_accepted(db, client, auth, alice, amount, on, note):
    auth.sign_in(alice)

    response = client.post(
        "/hours", data=hours_form(db, hours=amount, logged_on=on.isoformat(), note=note)
    )

    assert response.status_code == 302
    entry = db.scalars(select(HourLog).where(HourLog.engineer_id == alice.id)).one()
    assert (entry.hours, entry.logged_on, entry.note) == (Decimal(amount), on, note)


def test_the_smallest_amount_is_accepted(db, client, auth, alice):
    auth.sign_in(alice)

    response = client.post("/hours", data=hours_form(db, hours="0.01"))

    assert response.status_code == 302
    assert db.scalars(select(HourLog.hours).where(HourLog.engineer_id == alice.id)).one() == (
        Decimal("0.01")
    )


@pytest.mark.parametrize(("overrides", "field", "message"), BAD_HOURS)
def test_bad_edits_are_refused_and_change_nothing(
    db, client, auth, alice, overrides, field, message
):
    entry = log(db, alice, "FDL", 2, D(2026, 11, 20))
    log(db, alice, "GPU-ARCH", 20, YESTERDAY)  # so 2.5 more on YESTERDAY breaks the day
    auth.sign_in(alice)
    before = counts(db)
    data = hours_form(db, **overrides)
    if "hours" not in overrides and "logged_on" not in overrides:
        data["hours"] = "1"  # valid on its own, so the other field is the culprit

    response = client.post(f"/hours/{entry.id}/edit", data=data)

    assert_page_refused(response, field, message)
    assert counts(db) == before
    db.expire_all()
    stored = db.get(HourLog, entry.id)
    assert (stored.hours, stored.logged_on, stored.course_id) == (
        2,
        D(2026, 11, 20),
        factories.course(db, "FDL").id,
    )


def test_an_edit_may_keep_the_days_own_hours(db, client, auth, alice):
    entry = log(db, alice, "FDL", 24, YESTERDAY)
    auth.sign_in(alice)

    response = client.post(f"/hours/{entry.id}/edit", data=hours_form(db, hours="24"))

    assert response.status_code == 302


# With a note too long, the full day shows in the same round as the note's error.
@pytest.mark.parametrize("note", ["", "x" * 501], ids=["alone", "with-the-forms-own-error"])
def test_moving_an_entry_onto_a_full_day_is_refused(db, client, auth, alice, note):
    entry = log(db, alice, "FDL", 5, D(2026, 11, 20))
    log(db, alice, "GPU-ARCH", 20, YESTERDAY)
    auth.sign_in(alice)
    before = counts(db)

    response = client.post(
        f"/hours/{entry.id}/edit",
        data=hours_form(db, hours="5", logged_on="2026-11-28", note=note),
    )

    assert_page_refused(response, "hours", "a day holds at most 24 hours")
    if note:
        assert_page_refused(response, "note", "at most 500 characters")
    assert counts(db) == before
    db.expire_all()
    assert db.get(HourLog, entry.id).logged_on == D(2026, 11, 20)
