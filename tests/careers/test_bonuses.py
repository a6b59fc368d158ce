"""Certification bonuses (docs/domain.md section 8): amounts, the ledger per quarter, the CLI."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tests import factories
from tracker.careers.models import CertificationBonus
from tracker.careers.rules import EARLIEST_DATE
from tracker.careers.services.bonuses import (
    Quarter,
    bonus_credential,
    bonuses,
    ledger,
    set_bonus,
    since,
)
from tracker.errors import ValidationError
from tracker.progress.services.certifications import record_attempt, record_credential

D = dt.date
TODAY = factories.TODAY  # 2026-11-29
Q4 = Quarter(2026, 4)


def bonus(
    db: Session,
    code: str,
    amount: int | str,
    renewals: bool | None = None,
    effective_on: dt.date = EARLIEST_DATE,
):
    """Set a bonus, from the start unless `effective_on` says from when."""
    return set_bonus(
        db,
        factories.credential(db, code),
        Decimal(amount),
        renewals,
        effective_on=effective_on,
        today=TODAY,
    )


def passes(db: Session, who, code: str, on: dt.date):
    """Pass an exam (a second pass renews the first)."""
    return record_attempt(db, who, factories.exam(db, code), on, 80, True, TODAY).certification


def earns(db: Session, who, code: str, on: dt.date):
    """Record a credential earned elsewhere (a second one renews the first)."""
    return record_credential(db, who, factories.credential(db, code), on, TODAY, evidence="cert")


def rows(db: Session, quarter: Quarter = Q4, ids=None) -> list[tuple[str, str, dt.date, str, bool]]:
    return [
        (r.engineer.name, r.credential.code, r.passed_on, f"{r.amount:.2f}", r.renewal)
        for r in ledger(db, quarter, ids)
    ]


# --- quarters ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("2026-Q1", D(2026, 1, 1), D(2026, 3, 31)),
        ("2026-Q2", D(2026, 4, 1), D(2026, 6, 30)),
        ("2026-q3", D(2026, 7, 1), D(2026, 9, 30)),
        ("2026-Q4", D(2026, 10, 1), D(2026, 12, 31)),
        ("2024-Q1", D(2024, 1, 1), D(2024, 3, 31)),
    ],
)
def test_a_quarter_runs_from_its_first_to_its_last_day(text, start, end):
    quarter = Quarter.parse(text)
    assert (quarter.starts_on, quarter.ends_on) == (start, end)
    assert str(quarter) == text.upper()


@pytest.mark.parametrize(
    "text",
    ["2026-Q0", "2026-Q5", "2026Q4", "26-Q1", "2026-4", "Q4-2026", "", "2026-Q4x"],
)
def test_a_malformed_quarter_is_refused(text):
    with pytest.raises(ValidationError) as caught:
        Quarter.parse(text)
    assert "YYYY-Qn" in caught.value.errors["quarter"]


@pytest.mark.parametrize("text", ["0001-Q1", "1969-Q4", "3000-Q1"])
def test_a_quarter_of_a_year_out_of_range_is_refused_naming_the_range(text):
    with pytest.raises(ValidationError) as caught:
        Quarter.parse(text)
    assert caught.value.errors["quarter"] == (
        "the year must be from 1970 to 2999 (quarters 1970-Q1 to 2999-Q4)"
    )


def test_quarters_of_days_and_neighbours():
    assert Quarter.of(D(2026, 9, 30)) == Quarter(2026, 3)
    assert Quarter.of(D(2026, 10, 1)) == Q4
    assert (str(Q4.previous), str(Q4.next)) == ("2026-Q3", "2027-Q1")
    assert str(Quarter(2027, 1).previous) == "2026-Q4"


# --- amounts ---------------------------------------------------------------------------


def test_setting_a_bonus_creates_then_updates_one_row(db: Session):
    first = bonus(db, "NCA-AIIO", "500")
    assert (first.amount, first.renewals_earn) == (Decimal("500.00"), False)
    again = bonus(db, "NCA-AIIO", "750.50", True)
    assert again.id == first.id
    assert (again.amount, again.renewals_earn) == (Decimal("750.50"), True)
    kept = bonus(db, "NCA-AIIO", "800")  # renewals left as they were
    assert kept.renewals_earn is True
    assert db.scalar(select(func.count()).select_from(CertificationBonus)) == 1


@pytest.mark.parametrize(
    ("amount", "message"),
    [
        (Decimal("-1"), "amount must be from 0 to 1,000,000"),
        (Decimal("1000000.01"), "amount must be from 0 to 1,000,000"),
        (Decimal("1.005"), "amount must have at most 2 decimals"),
        (Decimal("NaN"), "amount must be from 0 to 1,000,000"),
        ("500", "amount must be a number"),
        (True, "amount must be a number"),
    ],
)
def test_a_bad_amount_is_refused_and_nothing_is_stored(db: Session, amount, message):
    with pytest.raises(ValidationError) as caught:
        set_bonus(
            db,
            factories.credential(db, "NCA-AIIO"),
            amount,
            effective_on=EARLIEST_DATE,
            today=TODAY,
        )
    assert caught.value.errors["amount"] == message
    assert db.scalar(select(func.count()).select_from(CertificationBonus)) == 0


def test_a_group_or_unknown_code_takes_no_bonus(db: Session):
    with pytest.raises(ValidationError) as caught:
        bonus_credential(db, "NVIDIA-ASSOCIATE+")
    assert "is a group" in caught.value.errors["credential"]
    assert "NCA-AIIO, NCP-AII, NCP-AIO" in caught.value.errors["credential"]
    with pytest.raises(ValidationError) as caught:
        bonus_credential(db, "NOPE")
    assert caught.value.errors["credential"] == "unknown credential code 'NOPE'"
    assert bonus_credential(db, "nca-aiio").code == "NCA-AIIO"


# --- the ledger --------------------------------------------------------------------------


def test_the_ledger_holds_the_passes_inside_the_quarter(db: Session):
    bonus(db, "NCA-AIIO", "500")
    bonus(db, "VENDOR-EXPERT", "2000")
    ann = factories.engineer(db, name="Ann")
    bob = factories.engineer(db, name="Bob")
    cy = factories.engineer(db, name="Cy")
    passes(db, ann, "NCA-AIIO", D(2026, 9, 30))  # the last day of Q3
    passes(db, bob, "NCA-AIIO", D(2026, 10, 1))  # the first day of Q4
    earns(db, cy, "VENDOR-EXPERT", D(2026, 11, 29))
    earns(db, cy, "CKA", D(2026, 11, 1))  # no bonus set for CKA
    record_attempt(db, ann, factories.exam(db, "NCA-AIIO"), D(2026, 11, 1), 40, False, TODAY)

    assert rows(db) == [
        ("Bob", "NCA-AIIO", D(2026, 10, 1), "500.00", False),
        ("Cy", "VENDOR-EXPERT", D(2026, 11, 29), "2000.00", False),
    ]
    assert rows(db, Quarter(2026, 3)) == [("Ann", "NCA-AIIO", D(2026, 9, 30), "500.00", False)]
    assert rows(db, Quarter(2027, 1)) == []


def test_the_last_day_of_the_year_is_in_q4_and_the_next_day_in_q1(db: Session):
    """Judged on later dates: the attempts are recorded with a 'today' after them."""
    bonus(db, "NCA-AIIO", "500")
    dee = factories.engineer(db, name="Dee")
    eve = factories.engineer(db, name="Eve")
    for who, on in ((dee, D(2026, 12, 31)), (eve, D(2027, 1, 1))):
        record_attempt(db, who, factories.exam(db, "NCA-AIIO"), on, 80, True, D(2027, 2, 1))
    assert [r[0] for r in rows(db, Quarter(2026, 4))] == ["Dee"]
    assert [r[0] for r in rows(db, Quarter(2027, 1))] == ["Eve"]


def test_a_renewal_earns_only_when_the_organisation_says_so(db: Session):
    bonus(db, "NCA-AIIO", "500", renewals=False)
    fay = factories.engineer(db, name="Fay")
    gus = factories.engineer(db, name="Gus")
    passes(db, fay, "NCA-AIIO", D(2024, 11, 1))
    renewal = passes(db, fay, "NCA-AIIO", D(2026, 11, 2))
    assert renewal.renews_id is not None
    passes(db, gus, "NCA-AIIO", D(2026, 11, 3))

    assert rows(db) == [("Gus", "NCA-AIIO", D(2026, 11, 3), "500.00", False)]
    assert rows(db, Quarter(2024, 4)) == [("Fay", "NCA-AIIO", D(2024, 11, 1), "500.00", False)]

    bonus(db, "NCA-AIIO", "500", renewals=True)
    assert rows(db) == [
        ("Fay", "NCA-AIIO", D(2026, 11, 2), "500.00", True),
        ("Gus", "NCA-AIIO", D(2026, 11, 3), "500.00", False),
    ]


def test_a_quarter_already_over_keeps_what_it_paid(db: Session):
    """An amount back-dated into a quarter over would pay its passes otherwise: refused.
    From this quarter on it applies; a pass that earned nothing may earn (back pay)."""
    bonus(db, "NCP-AII", "2500")
    grace = factories.engineer(db, name="Grace", experience_months=24)
    factories.certification(db, grace, "NCA-AIIO", D(2026, 1, 5), D(2028, 1, 5))
    passes(db, grace, "NCP-AII", D(2026, 7, 8))
    before = rows(db, Quarter(2026, 3))
    with pytest.raises(ValidationError) as refused:
        bonus(db, "NCP-AII", "2600", effective_on=D(2026, 7, 1))
    assert refused.value.errors["effective_on"] == (
        "the ledger of 2026-Q3 is paid and would change (NCP-AII passed on 2026-07-08):"
        " set the amount from 2026-10-01 or later"
    )
    assert (
        rows(db, Quarter(2026, 3))
        == before
        == [("Grace", "NCP-AII", D(2026, 7, 8), "2500.00", False)]
    )
    bonus(db, "NCP-AII", "2600", effective_on=D(2026, 10, 1))
    assert rows(db, Quarter(2026, 3)) == before
    # A programme announced late pays the passes it had not paid.
    assert rows(db, Quarter(2026, 1)) == []
    bonus(db, "NCA-AIIO", "500", effective_on=D(2026, 1, 1))
    assert rows(db, Quarter(2026, 1)) == [("Grace", "NCA-AIIO", D(2026, 1, 5), "500.00", False)]


def test_renewals_of_external_credentials_follow_the_same_rule(db: Session):
    bonus(db, "VENDOR-EXPERT", "1000", renewals=False)
    hal = factories.engineer(db, name="Hal")
    earns(db, hal, "VENDOR-EXPERT", D(2023, 5, 1))
    earns(db, hal, "VENDOR-EXPERT", D(2026, 10, 5))
    assert rows(db) == []
    bonus(db, "VENDOR-EXPERT", "1000", renewals=True)
    assert rows(db) == [("Hal", "VENDOR-EXPERT", D(2026, 10, 5), "1000.00", True)]


def test_a_bonus_of_zero_leaves_the_ledger(db: Session):
    bonus(db, "NCA-AIIO", "0")
    passes(db, factories.engineer(db), "NCA-AIIO", D(2026, 11, 1))
    assert rows(db) == []


def test_the_ledger_can_be_limited_to_some_people(db: Session):
    bonus(db, "NCA-AIIO", "500")
    ivy = factories.engineer(db, name="Ivy")
    jon = factories.engineer(db, name="Jon")
    passes(db, ivy, "NCA-AIIO", D(2026, 11, 1))
    passes(db, jon, "NCA-AIIO", D(2026, 11, 2))
    assert [r[0] for r in rows(db, ids=[jon.id])] == ["Jon"]
    assert rows(db, ids=[]) == []


# --- the CLI -------------------------------------------------------------------------------


def fresh(db: Session, code: str) -> CertificationBonus | None:
    db.expire_all()
    return db.scalars(
        select(CertificationBonus).where(
            CertificationBonus.credential_id == factories.credential(db, code).id
        )
    ).one_or_none()


def test_cli_bonus_set(runner, db: Session):
    result = runner.invoke(args=["bonus", "set", "NCA-AIIO", "500"])
    assert result.exit_code == 0, result.output
    assert "NCA-AIIO: bonus 500.00 (renewals do not earn it)" in result.output
    row = fresh(db, "NCA-AIIO")
    assert (row.amount, row.renewals_earn) == (Decimal("500.00"), False)

    result = runner.invoke(args=["bonus", "set", "nca-aiio", "1,250.50", "--renewals"])
    assert result.exit_code == 0, result.output
    row = fresh(db, "NCA-AIIO")
    assert (row.amount, row.renewals_earn) == (Decimal("1250.50"), True)

    result = runner.invoke(args=["bonus", "set", "NCA-AIIO", "900"])
    assert fresh(db, "NCA-AIIO").renewals_earn is True
    result = runner.invoke(args=["bonus", "set", "NCA-AIIO", "900", "--no-renewals"])
    assert fresh(db, "NCA-AIIO").renewals_earn is False

    listed = runner.invoke(args=["bonus", "list"])
    assert "NCA-AIIO\t900.00\tfirst pass only" in listed.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["NOPE", "100"], "credential: unknown credential code 'NOPE'"),
        (["NVIDIA-PROFESSIONAL", "100"], "is a group"),
        (["NCA-AIIO", "lots"], "amount: 'lots' is not a number"),
        (["NCA-AIIO", "-5"], "amount must be from 0 to 1,000,000"),
        (["NCA-AIIO", "12.345"], "amount must have at most 2 decimals"),
        (["NCA-AIIO", "Infinity"], "amount must be from 0 to 1,000,000"),
    ],
)
def test_cli_bonus_set_refuses_bad_input(runner, db: Session, args, message):
    result = runner.invoke(args=["bonus", "set", "--", *args])
    assert result.exit_code == 1
    assert message in result.output
    assert db.scalar(select(func.count()).select_from(CertificationBonus)) == 0


def test_cli_bonus_ledger(runner, db: Session):
    bonus(db, "NCA-AIIO", "500")
    kim = factories.engineer(db, name="Kim", email="kim@example.com")
    passes(db, kim, "NCA-AIIO", D(2026, 11, 1))
    db.commit()
    result = runner.invoke(args=["bonus", "ledger", "2026-Q4"])
    assert result.exit_code == 0, result.output
    assert "2026-11-01\tkim@example.com\tNCA-AIIO\t500.00" in result.output
    assert "2026-Q4: 1 bonus, 500.00 in all" in result.output
    data = json.loads(runner.invoke(args=["bonus", "ledger", "2026-Q4", "--json"]).output)
    assert data["rows"][0]["certification"]["code"] == "NCA-AIIO"
    bad = runner.invoke(args=["bonus", "ledger", "2026-Q9"])
    assert bad.exit_code == 1 and "YYYY-Qn" in bad.output


# --- amounts over time ------------------------------------------------------------------
# "Exact and impossible to lose data with": a quarter's ledger, once paid, must not
# change when an amount does. Each pass earns the amount in effect on its day.


def test_a_new_amount_pays_from_its_date_and_earlier_passes_keep_theirs(db: Session):
    bonus(db, "NCA-AIIO", "500", effective_on=D(2026, 1, 1))
    bonus(db, "NCA-AIIO", "800", effective_on=D(2026, 11, 1))
    kim = factories.engineer(db, name="Kim")
    lee = factories.engineer(db, name="Lee")
    passes(db, kim, "NCA-AIIO", D(2026, 10, 31))
    passes(db, lee, "NCA-AIIO", D(2026, 11, 1))
    assert rows(db) == [
        ("Kim", "NCA-AIIO", D(2026, 10, 31), "500.00", False),
        ("Lee", "NCA-AIIO", D(2026, 11, 1), "800.00", False),
    ]


def test_a_raise_today_leaves_an_earlier_quarters_ledger_as_it_was(db: Session):
    bonus(db, "NCA-AIIO", "500", effective_on=D(2026, 1, 1))
    kim = factories.engineer(db, name="Kim")
    passes(db, kim, "NCA-AIIO", D(2026, 8, 3))
    q3 = Quarter(2026, 3)
    before = rows(db, q3)
    bonus(db, "NCA-AIIO", "2000", effective_on=TODAY)
    assert rows(db, q3) == before == [("Kim", "NCA-AIIO", D(2026, 8, 3), "500.00", False)]


def test_a_pass_before_the_first_amount_earns_nothing(db: Session):
    bonus(db, "NCA-AIIO", "500", effective_on=D(2026, 11, 15))
    kim = factories.engineer(db, name="Kim")
    passes(db, kim, "NCA-AIIO", D(2026, 11, 14))
    assert rows(db) == []


def test_setting_the_same_date_again_corrects_that_amount(db: Session):
    first = bonus(db, "NCA-AIIO", "500", effective_on=D(2026, 11, 1))
    again = bonus(db, "NCA-AIIO", "550", effective_on=D(2026, 11, 1))
    assert again.id == first.id and again.amount == Decimal("550.00")
    assert db.scalar(select(func.count()).select_from(CertificationBonus)) == 1


def test_renewals_follow_the_amount_in_effect_on_the_renewal_day(db: Session):
    bonus(db, "NCA-AIIO", "500", renewals=True, effective_on=D(2024, 1, 1))
    # A new amount without saying keeps the choice in effect on its date.
    assert bonus(db, "NCA-AIIO", "600", effective_on=D(2026, 10, 1)).renewals_earn is True
    bonus(db, "NCA-AIIO", "700", renewals=False, effective_on=D(2026, 11, 10))
    kim = factories.engineer(db, name="Kim")
    lee = factories.engineer(db, name="Lee")
    passes(db, kim, "NCA-AIIO", D(2024, 11, 1))
    passes(db, lee, "NCA-AIIO", D(2024, 11, 2))
    passes(db, kim, "NCA-AIIO", D(2026, 10, 20))  # renews: 600, renewals earn
    passes(db, lee, "NCA-AIIO", D(2026, 11, 20))  # renews: 700, renewals do not
    assert rows(db) == [("Kim", "NCA-AIIO", D(2026, 10, 20), "600.00", True)]


def test_current_amounts_and_their_history(db: Session):
    bonus(db, "NCA-AIIO", "500", effective_on=D(2025, 1, 1))
    bonus(db, "NCA-AIIO", "800", effective_on=D(2026, 6, 1))
    bonus(db, "NCP-AII", "2500")
    current = bonuses(db)
    assert [(b.credential.code, b.amount, since(b)) for b in current] == [
        ("NCA-AIIO", Decimal("800.00"), "from 2026-06-01"),
        ("NCP-AII", Decimal("2500.00"), "from the start"),
    ]
    history = bonuses(db, history=True)
    assert [(b.credential.code, b.effective_on) for b in history] == [
        ("NCA-AIIO", D(2026, 6, 1)),
        ("NCA-AIIO", D(2025, 1, 1)),
        ("NCP-AII", EARLIEST_DATE),
    ]


@pytest.mark.parametrize(
    ("effective_on", "message"),
    [
        (TODAY + dt.timedelta(days=1), "effective from must not be after today (2026-11-29)"),
        (D(1969, 12, 31), "effective from must be 1970-01-01 or later"),
        ("2026-11-01", "effective from must be a date (YYYY-MM-DD)"),
        (dt.datetime(2026, 11, 1), "effective from must be a date (YYYY-MM-DD)"),
    ],
)
def test_a_bad_effective_date_is_refused_and_nothing_is_stored(db: Session, effective_on, message):
    with pytest.raises(ValidationError) as caught:
        bonus(db, "NCA-AIIO", "500", effective_on=effective_on)
    assert caught.value.errors["effective_on"] == message
    assert db.scalar(select(func.count()).select_from(CertificationBonus)) == 0


def test_cli_bonus_set_from_a_date_and_list_the_history(runner, db: Session):
    result = runner.invoke(args=["bonus", "set", "NCA-AIIO", "500", "--from", "2025-01-01"])
    assert result.exit_code == 0, result.output
    assert "NCA-AIIO: bonus 500.00 (renewals do not earn it), for certifications passed " in (
        result.output
    )
    assert "from 2025-01-01" in result.output
    result = runner.invoke(args=["bonus", "set", "NCA-AIIO", "800", "--from", "2026-06-01"])
    assert result.exit_code == 0, result.output
    listed = runner.invoke(args=["bonus", "list"]).output
    assert listed.splitlines() == ["NCA-AIIO\t800.00\tfirst pass only\tfrom 2026-06-01"]
    history = runner.invoke(args=["bonus", "list", "--history"]).output
    assert history.splitlines() == [
        "NCA-AIIO\t800.00\tfirst pass only\tfrom 2026-06-01",
        "NCA-AIIO\t500.00\tfirst pass only\tfrom 2025-01-01",
    ]


@pytest.mark.parametrize(
    ("when", "message"),
    [
        ("01/06/2026", "from: '01/06/2026' is not a date (YYYY-MM-DD)"),
        ("2999-01-01", "after today"),
    ],
)
def test_cli_bonus_set_refuses_a_bad_date(runner, db: Session, when, message):
    result = runner.invoke(args=["bonus", "set", "NCA-AIIO", "500", "--from", when])
    assert result.exit_code == 1
    assert message in result.output
    assert db.scalar(select(func.count()).select_from(CertificationBonus)) == 0
