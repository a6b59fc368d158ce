"""Setting a bonus holds the amount it replaces, as a page or the API holds its record."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from sqlalchemy import select, update
from sqlalchemy.orm import sessionmaker

from tests import factories
from tests.locks import racing_engine, while_another_writes
from tracker.careers.models import CertificationBonus
from tracker.careers.services.bonuses import set_bonus
from tracker.db import session_scope
from tracker.errors import ValidationError

STARTED = dt.date(2026, 1, 1)


def test_a_bonus_set_waits_for_a_change_of_its_amount_and_checks_what_it_committed(
    racing_url: str,
) -> None:
    engine = racing_engine(racing_url)
    try:
        factory = sessionmaker(bind=engine, expire_on_commit=False)
        with session_scope(factory) as session:
            credential = factories.credential(session, "NCA-AIIO")
            bonus = set_bonus(
                session, credential, Decimal(500), effective_on=STARTED, today=factories.TODAY
            )
            # Passed in 2026-Q2, a quarter over: what it paid is paid.
            factories.certification(session, factories.engineer(session), "NCA-AIIO", STARTED)

        def set_again() -> dict[str, str]:
            try:
                with session_scope(factory) as session:
                    set_bonus(
                        session,
                        factories.credential(session, "NCA-AIIO"),
                        Decimal(500),
                        effective_on=STARTED,
                        today=factories.TODAY,
                    )
            except ValidationError as refused:
                return dict(refused.errors)
            return {}

        # Another writer's amount for the same day, uncommitted when the set reads it:
        # the set waits for it, then checks the paid quarters against the amount committed.
        errors = while_another_writes(
            engine,
            update(CertificationBonus)
            .where(CertificationBonus.id == bonus.id)
            .values(amount=Decimal(800)),
            set_again,
        )
        assert errors == {
            "effective_on": "the ledger of 2026-Q1 is paid and would change (NCA-AIIO passed"
            " on 2026-01-01): set the amount from 2026-10-01 or later"
        }
        with engine.connect() as conn:
            amounts = conn.execute(select(CertificationBonus.amount)).scalars().all()
        assert amounts == [Decimal("800.00")]
    finally:
        engine.dispose()
