"""Driver statements: SQLAlchemy's rows, errors and cursor events, without its execution."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from sqlalchemy import JSON, Integer, bindparam, create_engine, event, insert, select
from sqlalchemy.exc import IntegrityError, InvalidRequestError
from sqlalchemy.orm import Session

from tracker.db import MAX_ID, Fixed
from tracker.driver import DriverStatement
from tracker.progress.models import HourDay

# A processed bind and column (Fixed: a decimal stored as hundredths), a JSON bind,
# and a bind with a value of its own that the caller need not give.
_STATEMENT = select(
    bindparam("amount", type_=Fixed()).label("amount"),
    bindparam("data", type_=JSON).label("data"),
    bindparam("fixed", value=7, type_=Integer).label("fixed"),
)


def _postgresql(db: Session) -> None:
    if db.get_bind().dialect.name != "postgresql":
        pytest.skip("driver statements run on psycopg: PostgreSQL only")


def test_a_row_is_the_one_sqlalchemy_returns(db: Session) -> None:
    _postgresql(db)
    connection = db.connection()
    params = {"amount": Decimal("1.5"), "data": {"hours": "1.5", "note": "labs"}}
    row = DriverStatement(_STATEMENT).first(connection, params)
    assert row == tuple(connection.execute(_STATEMENT, params).one())
    assert row == (Decimal("1.50"), {"hours": "1.5", "note": "labs"}, 7)


def test_a_missing_value_is_refused_and_a_bind_with_its_own_value_takes_it(db: Session) -> None:
    _postgresql(db)
    connection = db.connection()
    with pytest.raises(InvalidRequestError, match="'data'"):
        DriverStatement(_STATEMENT).first(connection, {"amount": Decimal(1)})
    counted = iter(range(10, 20))
    called = select(bindparam("n", callable_=lambda: next(counted), type_=Integer))
    statement = DriverStatement(called)
    assert [statement.first(connection, {}) for _ in range(2)] == [(10,), (11,)]


def test_no_row_is_none(db: Session) -> None:
    _postgresql(db)
    empty = select(bindparam("n", type_=Integer)).where(bindparam("n", type_=Integer) < 0)
    assert DriverStatement(empty).first(db.connection(), {"n": 1}) is None


def test_the_cursor_events_see_the_statement(db: Session) -> None:
    _postgresql(db)
    connection = db.connection()
    seen: list[tuple[str, str]] = []

    def before(conn, cursor, statement, parameters, context, executemany) -> None:
        seen.append(("before", statement))

    def after(conn, cursor, statement, parameters, context, executemany) -> None:
        seen.append(("after", statement))

    event.listen(connection, "before_cursor_execute", before)
    event.listen(connection, "after_cursor_execute", after)
    try:
        DriverStatement(_STATEMENT).first(connection, {"amount": Decimal(1), "data": {}})
    finally:
        event.remove(connection, "before_cursor_execute", before)
        event.remove(connection, "after_cursor_execute", after)
    assert [when for when, _ in seen] == ["before", "after"]
    assert all("%(amount)s" in statement for _, statement in seen)


def test_a_refused_write_is_sqlalchemys_integrity_error(db: Session) -> None:
    _postgresql(db)
    days = HourDay.__table__
    orphan = DriverStatement(
        insert(days)
        .values(engineer_id=bindparam("engineer_id"), logged_on=bindparam("day"), hours=1)
        .returning(days.c.engineer_id)
    )
    with pytest.raises(IntegrityError, match="hour_days"):
        orphan.first(db.connection(), {"engineer_id": MAX_ID, "day": dt.date(2026, 11, 20)})


def test_other_drivers_are_refused() -> None:
    engine = create_engine("sqlite://")
    try:
        with engine.connect() as connection, pytest.raises(ValueError, match="psycopg"):
            DriverStatement(_STATEMENT).first(connection, {"amount": 1, "data": {}})
    finally:
        engine.dispose()
