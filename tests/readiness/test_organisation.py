"""The organisation summary (tracker.readiness.services.organisation): one row per team,
read from the stored readiness (brought to the day first by services.current.refresh).

TODAY (2026-11-29) is the date the services are told it is.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import Session

from tests import factories
from tests.readiness.helpers import FAR, LONG_AGO, TODAY, person
from tracker.catalog.models.team_templates import TeamTemplate
from tracker.people.services.persons import set_active
from tracker.progress.rules import EXPIRING_WITHIN_DAYS
from tracker.readiness.services.current import refresh
from tracker.readiness.services.organisation import SummaryRow, summary_rows


def organisation_summary(db: Session, on: dt.date) -> list[SummaryRow]:
    """Bring the stored readiness to `on` and read every team's row."""
    refresh(db, on)
    return summary_rows(db)


IN_90_DAYS = TODAY + dt.timedelta(days=EXPIRING_WITHIN_DAYS)  # 2027-02-27


def test_lapsing_counts_valid_certifications_expiring_within_90_days(db: Session) -> None:
    """Counted: expiring today, in 90 days. Not: in 91 days, expired, never expiring,
    renewed early (the renewal lasts), earned after the date, inactive members."""
    crew = factories.team(db, gpus=50, name="Crew")
    person(db, "Today", crew, certs={"NCA-AIIO": TODAY})
    person(db, "Edge", crew, certs={"NCA-AIIO": IN_90_DAYS, "CKA": FAR})
    person(db, "Later", crew, certs={"NCA-AIIO": IN_90_DAYS + dt.timedelta(days=1)})
    person(db, "Lapsed", crew, certs={"NCA-AIIO": TODAY - dt.timedelta(days=1)})
    person(db, "Forever", crew, certs={"NVIDIA-NETWORKING": None})
    renewed = person(db, "Renewed", crew, certs={"NCA-AIIO": TODAY + dt.timedelta(days=10)})
    factories.certification(db, renewed, "NCA-AIIO", TODAY - dt.timedelta(days=5), FAR)
    future = person(db, "Future", crew)
    factories.certification(db, future, "NCA-AIIO", TODAY + dt.timedelta(days=1), IN_90_DAYS)
    gone = person(db, "Gone", crew, certs={"NCA-AIIO": IN_90_DAYS})
    set_active(db, gone, False)
    other = factories.team(db, gpus=50, name="Other")
    person(db, "Elsewhere", other, certs={"NCA-AIIO": TODAY, "CKA": TODAY})
    db.flush()

    rows = {row.team_name: row for row in organisation_summary(db, TODAY)}

    assert rows["Crew"].lapsing == 2
    assert rows["Other"].lapsing == 2
    # Ninety days on: Edge's on its last day, Later's a day from it, Future's.
    assert {r.team_name: r.lapsing for r in organisation_summary(db, IN_90_DAYS)} == {
        "Crew": 3,
        "Other": 0,
    }


def test_summary_rows_carry_the_team_band_seats_and_percent(db: Session) -> None:
    crew = factories.team(db, gpus=500, name="Medium crew")
    person(db, "Op", crew, certs={"NCA-AIIO": FAR})
    person(db, "Idle", crew, certs={"NCA-AIIO": LONG_AGO})
    (row,) = organisation_summary(db, TODAY)
    assert (row.team_id, row.gpus, row.filled, row.total, row.percent) == (
        crew.id,
        500,
        1,
        10,
        10.0,
    )
    assert db.get(TeamTemplate, row.template_id).name == "Medium (100-1,000 GPUs)"
    assert row.lapsing == 0
