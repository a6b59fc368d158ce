"""A people file's language and weekly digest columns, and its messages in the reader's language."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.factories import TODAY
from tests.helpers import count
from tracker.audit.models import AccountEvent
from tracker.errors import ValidationError
from tracker.i18n import translate
from tracker.imports.schemas import COST_RULE
from tracker.imports.services.kinds import ImportRefused
from tracker.imports.services.run import IMPORT_KINDS, import_csv
from tracker.people.models import Engineer
from tracker.people.rules import LOCALE_RULE
from tracker.people.services.reads import find_engineer
from tracker.progress.rules import MAX_ATTEMPT_COST

HEADER = "email,name,role,job_roles,level,team,manager_email,hired_on,experience_months"


def test_a_people_file_may_give_each_persons_language(db: Session) -> None:
    content = (
        f"{HEADER},locale\n"
        "hablante@example.com,Hablante,,,,,,,,es\n"
        "speaker@example.com,Speaker,,,,,,,,en\n"
        "either@example.com,Either,,,,,,,,\n"
    )
    result = import_csv(db, "people", content, TODAY)
    assert result.count == 3
    locales = [find_engineer(db, f"{who}@example.com").locale for who in ("hablante", "speaker")]
    assert locales == ["es", "en"]
    assert find_engineer(db, "either@example.com").locale == ""


def test_the_language_column_is_optional(db: Session) -> None:
    import_csv(db, "people", f"{HEADER}\nplain@example.com,Plain,,,,,,,\n", TODAY)
    assert find_engineer(db, "plain@example.com").locale == ""
    assert "locale" in IMPORT_KINDS["people"].columns
    assert "locale" in IMPORT_KINDS["people"].optional


@pytest.mark.parametrize("locale", ["fr", "ES", "español"])
def test_an_unknown_language_refuses_the_row_naming_the_column_and_rule(
    db: Session, locale: str
) -> None:
    factories.engineer(db)
    before = count(db, Engineer)
    content = (
        f"{HEADER},locale\ngood@example.com,Good,,,,,,,,es\nbad@example.com,Bad,,,,,,,,{locale}\n"
    )
    with pytest.raises(ImportRefused) as refused:
        import_csv(db, "people", content, TODAY)
    [error] = refused.value.errors
    assert (error.line, error.column, error.message) == (3, "locale", LOCALE_RULE)
    assert str(error) == f"line 3, locale: {LOCALE_RULE}"
    assert count(db, Engineer) == before  # the good row was not imported either


def test_row_errors_are_english_text_and_spanish_when_translated(db: Session) -> None:
    content = (
        f"{HEADER},locale\n"
        "x@example.com,X,boss,,1,No Team,,2026-13-01,,fr\n"
        "y@example.com,Y,,,,,ghost@example.com,,,\n"
    )
    with pytest.raises(ImportRefused) as refused:
        import_csv(db, "people", content, TODAY)
    errors = {(e.line, e.column): e.message for e in refused.value.errors}
    assert errors[(2, "role")] == "role must be one of engineer, manager, admin"
    assert errors[(2, "hired_on")] == (
        "hired_on must be a date written YYYY-MM-DD, e.g. 2026-03-31; not '2026-13-01'"
    )
    assert errors[(2, "team")] == "no team named 'No Team'; add it on the Teams page first"
    spanish = {key: translate(message, "es") for key, message in errors.items()}
    assert spanish[(2, "role")] == "el rol debe ser uno de engineer, manager, admin"
    assert spanish[(2, "hired_on")] == (
        "hired_on debe ser una fecha escrita AAAA-MM-DD, p. ej., 2026-03-31; no '2026-13-01'"
    )
    assert spanish[(2, "locale")].startswith("el idioma debe ser uno de en, es")
    assert spanish[(2, "team")] == (
        "no hay ningún equipo llamado 'No Team'; añádelo antes en la página Equipos"
    )
    assert spanish[(3, "manager_email")].startswith(
        "no hay ninguna persona con el correo electrónico ghost@example.com"
    )


@pytest.mark.parametrize(
    ("hired_on", "message"),
    [
        ("0001-01-01", "hire date must not be before 1970-01-01"),
        ("2999-01-01", "hire date must not be in the future"),
    ],
)
def test_a_hire_date_out_of_range_refuses_the_row(db: Session, hired_on: str, message: str) -> None:
    before = count(db, Engineer)
    with pytest.raises(ImportRefused) as refused:
        import_csv(db, "people", f"{HEADER}\nold@example.com,Old,,,,,,{hired_on},\n", TODAY)
    [error] = refused.value.errors
    assert (error.line, error.column, error.message) == (2, "hired_on", message)
    assert count(db, Engineer) == before


def test_a_bad_header_is_explained_in_either_language(db: Session) -> None:
    with pytest.raises(ValidationError) as refused:
        import_csv(db, "people", f"{HEADER},colour,,name\n", TODAY)
    message = refused.value.errors["file"]
    assert message.startswith(
        "line 1 (header): column name appears twice; unknown column 'colour', (empty). "
        "A people file has the columns email,name,"
    )
    assert translate(message, "es").startswith(
        "línea 1 (cabecera): la columna name aparece dos veces; "
        "columna desconocida 'colour', (vacía). Un archivo de personas tiene las columnas "
    )


def test_the_summary_counts_in_the_readers_language(db: Session) -> None:
    result = import_csv(db, "people", f"{HEADER}\none@example.com,One,,,,,,,\n", TODAY)
    assert result.summary == "1 person imported."
    assert translate(result.summary, "es") == "1 persona importada."
    assert translate(IMPORT_KINDS["hours"].summary(1234), "es") == (
        "1234 registros de horas importados."
    )


def test_the_written_out_cost_rule_is_the_rules_figure() -> None:
    assert f"from 0 to {MAX_ATTEMPT_COST:,}, with at most 2 decimals" in COST_RULE


def test_a_people_file_may_turn_each_persons_weekly_digest_off(db: Session) -> None:
    admin = factories.engineer(db, access_role="admin")
    content = (
        f"{HEADER},weekly_digest\n"
        "quiet@example.com,Quiet,,,,,,,,no\n"
        "keen@example.com,Keen,,,,,,,,Yes\n"
        "usual@example.com,Usual,,,,,,,,\n"
    )
    assert import_csv(db, "people", content, TODAY, actor=admin).count == 3
    digests = {w: find_engineer(db, f"{w}@example.com").weekly_digest for w in ("quiet", "keen")}
    assert digests == {"quiet": False, "keen": True}
    assert find_engineer(db, "usual@example.com").weekly_digest is True
    # Turned off as the person would turn it off: the account trail says who, through what.
    quiet = find_engineer(db, "quiet@example.com")
    changes = db.scalars(
        select(AccountEvent).where(
            AccountEvent.engineer_id == quiet.id, AccountEvent.kind == "updated"
        )
    ).all()
    assert [(e.method, e.actor_id, e.detail) for e in changes] == [
        ("import", admin.id, {"weekly_digest": {"from": True, "to": False}})
    ]


def test_the_weekly_digest_column_is_optional(db: Session) -> None:
    import_csv(db, "people", f"{HEADER}\nplain@example.com,Plain,,,,,,,\n", TODAY)
    assert find_engineer(db, "plain@example.com").weekly_digest is True
    assert "weekly_digest" in IMPORT_KINDS["people"].optional
    assert "weekly_digest (optional column)" in IMPORT_KINDS["people"].help


def test_a_weekly_digest_cell_not_yes_or_no_refuses_the_row(db: Session) -> None:
    before = count(db, Engineer)
    content = f"{HEADER},weekly_digest\nodd@example.com,Odd,,,,,,,,sometimes\n"
    with pytest.raises(ImportRefused) as refused:
        import_csv(db, "people", content, TODAY)
    [error] = refused.value.errors
    assert (error.line, error.column, error.message) == (
        2,
        "weekly_digest",
        "weekly_digest must be 'yes' or 'no'; not 'sometimes'",
    )
    assert count(db, Engineer) == before
