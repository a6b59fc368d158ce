"""Senders and passes running at once, and a sender's marks, on databases of their own."""

from __future__ import annotations

import datetime as dt
import threading
import time

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.exc import OperationalError

from tests.reminders.helpers import (
    DAY,
    DAY30,
    EXPIRES,
    MAIL,
    NOW,
    WINDOWS,
    days_before,
    holder,
)
from tracker.db import session_scope
from tracker.reminders.models import Notification
from tracker.reminders.services.daily_pass import plan
from tracker.reminders.services.delivery import DeliveryReport, deliver
from tracker.reminders.services.marks import Marks, finish


def _scene(factory, people: int) -> None:
    with session_scope(factory) as session:
        for _ in range(people):
            holder(session)


def _in_threads(count: int, target) -> list[BaseException]:
    barrier = threading.Barrier(count)
    errors: list[BaseException] = []

    def work(index: int) -> None:
        try:
            barrier.wait(timeout=10)
            target(index)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    return errors


def test_two_concurrent_senders_deliver_each_notice_once(committing_db, smtp):
    """ "... none is sent twice, also ... with more than one scheduler." """
    _scene(committing_db, 16)
    with session_scope(committing_db) as session:
        assert plan(session, DAY30, WINDOWS, MAIL).count("reminder") == 16
    reports: dict[int, DeliveryReport] = {}

    def send(index: int) -> None:
        reports[index] = deliver(
            committing_db, smtp.settings, NOW, batch=2, worker=f"sender-{index}"
        )

    assert _in_threads(2, send) == []
    assert sum(r.sent for r in reports.values()) == 16
    assert sum(r.retried + r.failed for r in reports.values()) == 0
    by_id = smtp.mailbox.by_message_id()
    assert len(by_id) == 16
    assert all(len(v) == 1 for v in by_id.values())
    with committing_db() as session:
        rows = session.scalars(select(Notification)).all()
        assert {r.status for r in rows} == {"sent"}
        assert {r.message_id for r in rows} == set(by_id)


def _queue_reminders(factory, people: int) -> None:
    _scene(factory, people)
    with session_scope(factory) as session:
        assert plan(session, DAY30, WINDOWS, MAIL).count("reminder") == people


def test_each_row_is_marked_before_the_next_message_goes_out(separate_db, smtp, monkeypatch):
    """A sender that dies sends at most one message again: marks run beside the
    sending (in a thread of their own), but the previous row's mark has committed
    before the next message's DATA, however slow the database is.
    """
    _queue_reminders(separate_db, 4)
    mark = Marks._mark

    def slow_mark(self, statement, params):
        time.sleep(0.05)
        mark(self, statement, params)

    monkeypatch.setattr(Marks, "_mark", slow_mark)
    sent_at_data: list[int] = []
    handle_data = smtp.mailbox.handle_DATA

    async def counting(server, session, envelope):
        with separate_db() as db_session:
            sent_at_data.append(
                db_session.scalar(
                    select(func.count(Notification.id)).where(Notification.status == "sent")
                )
            )
        return await handle_data(server, session, envelope)

    monkeypatch.setattr(smtp.mailbox, "handle_DATA", counting)
    assert deliver(separate_db, smtp.settings, NOW).sent == 4
    assert sent_at_data == [0, 1, 2, 3]
    with separate_db() as session:
        assert set(session.scalars(select(Notification.status))) == {"sent"}


def test_a_mark_that_fails_stops_the_sender_before_the_next_message(separate_db, smtp, monkeypatch):
    _queue_reminders(separate_db, 3)

    def failing_mark(self, statement, params):
        raise OperationalError("UPDATE notifications ...", {}, Exception("database gone"))

    monkeypatch.setattr(Marks, "_mark", failing_mark)
    with pytest.raises(OperationalError):
        deliver(separate_db, smtp.settings, NOW)
    # The first message went out; its mark failed, so no other one followed it.
    assert len(smtp.mailbox.attempts) == 1
    with separate_db() as session:
        assert set(session.scalars(select(Notification.status))) == {"sending"}


def test_a_mark_the_database_refuses_is_raised_and_the_next_one_still_commits(committing_db):
    """On a connection of their own (PostgreSQL's in pipeline mode, SQLite's in a
    thread): a refused mark raises at the wait before the next message; the
    marks after it go through."""
    _queue_reminders(committing_db, 2)
    with session_scope(committing_db) as session:
        rows = session.execute(
            update(Notification)
            .values(status="sending", claimed_by="sender-1")
            .returning(Notification.id, Notification.attempts)
        ).all()
    first, second = sorted(rows)
    marks = Marks(committing_db)
    try:
        finish(marks, first, "sender-1", NOW, status="lost")  # not a status: refused
        with pytest.raises(Exception, match="status_known"):
            marks.wait()
        finish(marks, second, "sender-1", NOW, status="sent", sent_at=NOW, attempts=1)
        marks.wait()
    finally:
        marks.close()
    with committing_db() as session:
        statuses = dict(
            session.execute(select(Notification.id, Notification.status)).tuples().all()
        )
    assert statuses == {first.id: "sending", second.id: "sent"}


def test_two_concurrent_passes_queue_each_notice_once(committing_db):
    """ "Each (certification, window) is sent at most once, ever", also when two
    passes run at once (the unique key settles the race).
    """
    _scene(committing_db, 10)
    for day in (days_before(90), days_before(60), days_before(30), EXPIRES + DAY):
        counts: dict[int, int] = {}

        def run_pass(index: int, day: dt.date = day, counts: dict[int, int] = counts) -> None:
            with session_scope(committing_db) as session:
                counts[index] = plan(session, day, WINDOWS, MAIL).count()

        assert _in_threads(2, run_pass) == []
        assert len(counts) == 2 and sum(counts.values()) == 10, day
    with committing_db() as session:
        keys = session.scalars(select(Notification.dedupe_key)).all()
    assert len(keys) == 40 == len(set(keys))
