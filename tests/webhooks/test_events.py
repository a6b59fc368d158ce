"""Each event is queued by its cause, in its transaction; and not when no endpoint takes it."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import event, select

from tests import factories
from tests.helpers import Api, token_for
from tests.reminders.helpers import DAY, EXPIRES, MAIL, WINDOWS, days_before, holder, run
from tests.webhooks.conftest import deliveries
from tests.webhooks.helpers import subscribe
from tracker.progress.services.certifications import record_attempt, record_credential
from tracker.progress.services.hours import log_hours
from tracker.reminders.services.daily_pass import plan
from tracker.webhooks.models import WebhookDelivery
from tracker.webhooks.schemas import HoursLoggedData
from tracker.webhooks.services.events import forget_subscribers, subscribers

TODAY = factories.TODAY


def log(db, who=None, hours="2"):
    who = who or factories.engineer(db)
    return log_hours(db, who, factories.course(db, "FDL"), TODAY, factories.hours(hours), TODAY)


# --- hours.logged ---------------------------------------------------------------------


def test_logging_hours_queues_hours_logged_for_the_endpoints_that_take_it(db):
    takes = subscribe(db, "hours.logged", "certification.earned")
    subscribe(db, "certification.earned")
    subscribe(db, "hours.logged", active=False)
    entry = log(db)
    (row,) = deliveries(db)
    assert (row.endpoint_id, row.event, row.status, row.attempts) == (
        takes.id,
        "hours.logged",
        "pending",
        0,
    )
    assert row.webhook_id.startswith("msg_") and row.webhook_id.endswith(f"_{takes.id}")
    assert row.payload["type"] == "hours.logged"
    assert row.payload["data"]["id"] == entry.id
    HoursLoggedData.model_validate(row.payload["data"])


def test_no_endpoint_no_delivery_and_one_small_read_a_transaction(db):
    who = factories.engineer(db)
    seen: list[str] = []

    def note(conn, cursor, statement, *args) -> None:
        seen.append(statement)

    event.listen(db.get_bind(), "before_cursor_execute", note)
    try:
        log(db, who, "1")  # the transaction's first event reads who subscribes...
        first = [s for s in seen if "webhook" in s]
        seen.clear()
        log(db, who, "1")  # ...and the next one reads nothing more
    finally:
        event.remove(db.get_bind(), "before_cursor_execute", note)
    assert len(first) == 1 and first[0].startswith("SELECT")
    assert [s for s in seen if "webhook" in s] == []
    assert deliveries(db) == []


def test_an_event_name_is_matched_as_written_not_as_a_pattern(db):
    # The name is written into the SQL's LIKE: its "_" and "%" must stand for themselves.
    endpoint = subscribe(db, "hours.logged")
    endpoint.events = "hoursXlogged,certification.100"
    db.flush()
    assert subscribers(db, "hours_logged") == []
    assert subscribers(db, "certification.%") == []
    endpoint.events = "hours_logged,certification.%"
    db.flush()
    forget_subscribers(db)
    assert subscribers(db, "hours_logged") == subscribers(db, "certification.%") == [endpoint.id]


def test_a_refused_entry_queues_nothing(db):
    subscribe(db, "hours.logged")
    who = factories.engineer(db)
    log(db, who, "20")
    with pytest.raises(Exception, match="a day holds at most 24 hours"):
        log(db, who, "5")
    assert len(deliveries(db)) == 1


@pytest.mark.parametrize("subscribed", [True, False])
def test_the_apis_own_hours_path_queues_in_its_statement_as_log_hours_would(
    app, client, db, pinned_today, subscribed
):
    """On PostgreSQL in the one statement that writes the entry; on SQLite beside it."""
    if subscribed:
        subscribe(db, "hours.logged")
    who = factories.engineer(db, name="Grace")
    token = token_for(db, who)
    response = Api(client).post(
        "/api/v1/hours", token, {"course": "fdl", "date": "2026-11-20", "hours": 7.5, "note": "x"}
    )
    assert response.status_code == 201, response.get_json()
    rows = deliveries(db)
    if not subscribed:
        assert rows == []
        return
    (row,) = rows
    entry = response.get_json()
    course = factories.course(db, "FDL")
    assert row.payload["type"] == "hours.logged"
    assert row.payload["timestamp"].endswith("Z")
    assert row.payload["data"] == {
        "id": entry["id"],
        "engineer": {"id": who.id, "name": "Grace"},
        "course": {"id": course.id, "code": "FDL", "title": course.title},
        "date": "2026-11-20",
        "hours": 7.5,
        "note": "x",
    }


# --- certifications ---------------------------------------------------------------------


def test_a_pass_queues_earned_and_the_next_pass_renewed(db):
    subscribe(db, "certification.earned", "certification.renewed")
    who = factories.engineer(db, name="Linus")
    exam = factories.exam(db, "NCA-AIIO")
    record_attempt(db, who, exam, dt.date(2024, 1, 10), 50, False, TODAY)
    assert deliveries(db) == []  # a failed attempt earns nothing
    first = record_attempt(db, who, exam, dt.date(2024, 3, 1), 80, True, TODAY)
    second = record_attempt(db, who, exam, dt.date(2026, 1, 5), 90, True, TODAY)
    earned, renewed = deliveries(db)
    assert earned.event == "certification.earned"
    data = earned.payload["data"]
    assert data["certification"]["id"] == first.certification.id
    assert data["certification"]["code"] == "NCA-AIIO"
    assert data["certification"]["expires_on"] == "2026-03-01"
    assert data["engineer"] == {"id": who.id, "name": "Linus"}
    assert data["renews"] is None
    assert renewed.event == "certification.renewed"
    assert renewed.payload["data"]["renews"] == first.certification.id
    assert renewed.payload["data"]["certification"]["id"] == second.certification.id


def test_a_recorded_credential_queues_earned_only_where_subscribed(db):
    subscribe(db, "certification.renewed")
    who = factories.engineer(db)
    record_credential(db, who, factories.credential(db, "CKA"), TODAY, TODAY, "cert #1")
    assert deliveries(db) == []
    subscribe(db, "certification.earned")
    other = factories.engineer(db)
    record_credential(db, other, factories.credential(db, "CKA"), TODAY, TODAY, "cert #2")
    (row,) = deliveries(db)
    assert row.event == "certification.earned"


# --- the daily pass: expiring, lapsed, readiness dropped --------------------------------


def test_the_pass_queues_expiring_at_each_reminder_window_once(db):
    subscribe(db, "certification.expiring")
    who, cert = holder(db, name="Kim")
    run(db, days_before(91))
    assert deliveries(db) == []
    run(db, days_before(90))
    run(db, days_before(89))  # the same window: nothing new
    run(db, days_before(60))
    first, second = deliveries(db, "certification.expiring")
    assert first.payload["data"]["window_days"] == 90
    assert first.payload["data"]["days_left"] == 90
    assert second.payload["data"]["window_days"] == 60
    assert first.payload["data"]["certification"]["id"] == cert.id
    assert first.payload["data"]["engineer"] == {"id": who.id, "name": "Kim"}


def test_the_pass_queues_lapsed_and_readiness_dropped_the_day_after_the_expiry(db):
    subscribe(db, "certification.lapsed", "readiness.dropped", "certification.expiring")
    boss = factories.engineer(db, access_role="manager")
    crew = factories.team(db, gpus=64, manager=boss, name="Night shift")
    who, cert = holder(db, team=crew, level=2, job_roles=("operations",))
    run(db, days_before(7))
    assert [d.event for d in deliveries(db)] == ["certification.expiring"]
    run(db, EXPIRES)  # valid on its expiry day
    assert len(deliveries(db)) == 1
    run(db, EXPIRES + dt.timedelta(days=1))
    run(db, EXPIRES + dt.timedelta(days=2))
    (lapsed,) = deliveries(db, "certification.lapsed")
    assert lapsed.payload["data"]["certification"]["id"] == cert.id
    (dropped,) = deliveries(db, "readiness.dropped")
    data = dropped.payload["data"]
    assert data["team"] == {"id": crew.id, "name": "Night shift"}
    assert data["engineer"]["id"] == who.id
    assert "seats no one else can fill" in data["impact"]


def test_a_quiet_pass_without_endpoints_sends_two_statements(db):
    """The first takes the lock and reads what else is due, whether any endpoint is
    active included; the second finds and writes what is owed. With an endpoint, the
    pass reads who takes its events, once, and queues them."""
    holder(db)
    _, later = holder(db, expires_on=EXPIRES + DAY)
    run(db, days_before(91))  # the week's digests, the lapses judged: nothing else due
    seen: list[str] = []

    def note(conn, cursor, statement, *args) -> None:
        seen.append(statement)

    def quiet_pass(day):
        seen.clear()
        event.listen(db.get_bind(), "before_cursor_execute", note)
        try:
            return plan(db, day, WINDOWS, MAIL, keep=False, compose=False).count()
        finally:
            event.remove(db.get_bind(), "before_cursor_execute", note)

    assert quiet_pass(days_before(90)) == 1
    assert len(seen) == 2
    subscribe(db, "certification.expiring")
    assert quiet_pass(days_before(90, later.expires_on)) == 1
    assert len([s for s in seen if s.startswith("SELECT webhook_endpoints.id")]) == 1
    (delivery,) = deliveries(db, "certification.expiring")
    assert delivery.payload["data"]["certification"]["id"] == later.id


def test_the_pass_queues_no_event_without_an_endpoint(db):
    holder(db)
    run(db, days_before(90))
    run(db, EXPIRES + dt.timedelta(days=1))
    assert db.scalars(select(WebhookDelivery)).all() == []
