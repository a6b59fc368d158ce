"""hour_days: every engineer's total per day, kept by the database, at most 24 hours.

docs/domain.md: an engineer logs at most 24 hours on one day. Triggers on hour_logs
keep the totals whoever writes (the services, an import, raw SQL), and the
check refuses the entry that would pass 24 hours, also when two writers race.
"""

from __future__ import annotations

import datetime as dt
import threading
from decimal import Decimal

import pytest
from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from tests import factories
from tests.locks import wait_until_one_waits_for_a_lock
from tracker.db import make_engine, session_scope
from tracker.errors import ValidationError
from tracker.people.models import Engineer
from tracker.progress.models import HourDay, HourLog
from tracker.progress.services.hours import delete_hours, log_hours, update_hours
from tracker.progress.services.hours_checks import overfills_a_day

MONDAY = dt.date(2026, 11, 23)
TUESDAY = dt.date(2026, 11, 24)


def _days(db: Session, who: Engineer) -> dict[dt.date, Decimal]:
    """The totals hour_days keeps for an engineer, days at zero left out."""
    rows = db.execute(
        select(HourDay.logged_on, HourDay.hours).where(
            HourDay.engineer_id == who.id, HourDay.hours > 0
        )
    )
    return dict(rows.tuples().all())


def _sums(db: Session, who: Engineer) -> dict[dt.date, Decimal]:
    """The same totals summed from the entries."""
    rows = db.execute(
        select(HourLog.logged_on, func.sum(HourLog.hours))
        .where(HourLog.engineer_id == who.id)
        .group_by(HourLog.logged_on)
    )
    return dict(rows.tuples().all())


def _log(db: Session, who: Engineer, day: dt.date, hours: str) -> HourLog:
    logged = log_hours(db, who, factories.course(db, "FDL"), day, Decimal(hours), factories.TODAY)
    entry = db.get(HourLog, logged.id)
    assert entry is not None
    return entry


def test_the_days_follow_every_entry_written_changed_moved_or_deleted(db: Session) -> None:
    who = factories.engineer(db)
    first = _log(db, who, MONDAY, "3")
    second = _log(db, who, MONDAY, "2.5")
    assert _days(db, who) == {MONDAY: Decimal("5.50")}
    update_hours(db, first, first.course, MONDAY, Decimal(8), factories.TODAY, actor=who)
    assert _days(db, who) == {MONDAY: Decimal("10.50")}
    update_hours(db, second, second.course, TUESDAY, Decimal("2.5"), factories.TODAY, actor=who)
    assert _days(db, who) == {MONDAY: Decimal(8), TUESDAY: Decimal("2.50")}
    delete_hours(db, first, actor=who)
    assert _days(db, who) == {TUESDAY: Decimal("2.50")} == _sums(db, who)


def test_writes_that_bypass_the_services_keep_the_days_too(db: Session) -> None:
    who = factories.engineer(db)
    course_id = factories.course(db, "FDL").id
    row = {"engineer_id": who.id, "course_id": course_id, "logged_on": MONDAY}
    db.execute(insert(HourLog), [{**row, "hours": Decimal(h)} for h in ("1", "2", "4.25")])
    assert _days(db, who) == {MONDAY: Decimal("7.25")}
    db.execute(update(HourLog).where(HourLog.engineer_id == who.id).values(logged_on=TUESDAY))
    assert _days(db, who) == {TUESDAY: Decimal("7.25")}
    db.execute(delete(HourLog).where(HourLog.engineer_id == who.id, HourLog.hours == 2))
    assert _days(db, who) == {TUESDAY: Decimal("5.25")} == _sums(db, who)


def test_the_database_refuses_a_25th_hour_whoever_writes_it(db: Session) -> None:
    who = factories.engineer(db)
    course_id = factories.course(db, "FDL").id
    row = {"engineer_id": who.id, "course_id": course_id, "logged_on": MONDAY}
    db.execute(insert(HourLog), [{**row, "hours": Decimal(12)}, {**row, "hours": Decimal(12)}])
    with pytest.raises(IntegrityError) as refused, db.begin_nested():
        db.execute(insert(HourLog).values(**row, hours=Decimal("0.25")))
    assert overfills_a_day(refused.value)
    assert _days(db, who) == {MONDAY: Decimal(24)}


def test_an_engineers_days_go_with_them(db: Session) -> None:
    who = factories.engineer(db)
    _log(db, who, MONDAY, "3")
    db.execute(delete(Engineer).where(Engineer.id == who.id))
    assert db.scalar(select(func.count()).where(HourDay.engineer_id == who.id)) == 0


def test_a_service_that_loses_the_race_for_a_day_refuses_with_the_total(
    racing_url: str,
) -> None:
    """A form's log waits on the day's row; the other writer commits first; the check refuses.

    The service's own check saw an empty day; the database's refusal becomes
    the same error, and the savepoint keeps the rest of the transaction.
    """
    if not racing_url.startswith("postgresql"):
        pytest.skip("row locks: PostgreSQL only (SQLite's writers take turns)")
    engine = make_engine(racing_url)
    factory = sessionmaker(bind=engine, expire_on_commit=False)
    try:
        with session_scope(factory) as session:
            who = factories.engineer(session)
            course_id = factories.course(session, "FDL").id
        errors = []

        def second() -> None:
            with session_scope(factory) as session:
                other = factories.engineer(session)  # the transaction's other work
                try:
                    _log(session, session.get(Engineer, who.id), MONDAY, "5")
                except ValidationError as exc:
                    errors.append((exc.errors, other.id))

        with engine.connect() as first:
            first.execute(
                insert(HourLog).values(
                    engineer_id=who.id, course_id=course_id, logged_on=MONDAY, hours=20
                )
            )
            thread = threading.Thread(target=second)
            thread.start()
            wait_until_one_waits_for_a_lock(engine)
            first.commit()
            thread.join()
        [(error, other_id)] = errors
        assert error == {
            "hours": "a day holds at most 24 hours; 20 h are already logged on 2026-11-23"
        }
        with factory() as session:
            assert _days(session, session.get(Engineer, who.id)) == {MONDAY: Decimal(20)}
            assert session.get(Engineer, other_id) is not None
    finally:
        engine.dispose()
