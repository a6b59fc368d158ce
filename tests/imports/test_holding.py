"""The import holds the person whose records it changes, as a page or the API holds theirs."""

from __future__ import annotations

from sqlalchemy import func, select, update
from sqlalchemy.orm import sessionmaker

from tests import factories
from tests.locks import racing_engine, while_another_writes
from tracker.db import session_scope
from tracker.i18n import day, msg
from tracker.imports.services.kinds import ImportRefused, RowError
from tracker.imports.services.run import import_csv
from tracker.people.models import Engineer
from tracker.progress.models import HourLog

HIRED = factories.TODAY.replace(month=6, day=1)


def test_an_import_waits_for_a_change_to_the_person_and_checks_what_it_committed(
    racing_url: str,
) -> None:
    engine = racing_engine(racing_url)
    try:
        factory = sessionmaker(bind=engine, expire_on_commit=False)
        with session_scope(factory) as session:
            who = factories.engineer(session)
        content = f"email,course,date,hours,note\n{who.email},FDL,2026-03-02,1.5,reading\n"

        def import_hours() -> list[RowError]:
            try:
                with session_scope(factory) as session:
                    import_csv(session, "hours", content, factories.TODAY)
            except ImportRefused as refused:
                return refused.errors
            return []

        # Another writer's change of the hire date, uncommitted when the import reads the
        # person: the import waits for it, then checks the row against the date it committed.
        errors = while_another_writes(
            engine,
            update(Engineer).where(Engineer.id == who.id).values(hired_on=HIRED),
            import_hours,
        )
        assert errors == [
            RowError(
                2, "date", msg("date must not be before the hire date %(date)s", date=day(HIRED))
            )
        ]
        with engine.connect() as conn:
            assert conn.execute(select(func.count()).select_from(HourLog)).scalar_one() == 0
    finally:
        engine.dispose()
