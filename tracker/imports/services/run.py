"""The import run: every row of a file through the real services, or nothing at all."""

from __future__ import annotations

import datetime as dt

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from tracker.catalog.rules import MAX_LEVEL, MIN_LEVEL
from tracker.errors import ValidationError
from tracker.imports.rules import JOB_ROLE_SEPARATOR
from tracker.imports.schemas import AttemptRow, CredentialRow, HoursRow, PersonRow
from tracker.imports.services.kinds import (
    ImportKind,
    ImportRefused,
    ImportResult,
    RowError,
    RowProblems,
)
from tracker.imports.services.people import import_person
from tracker.imports.services.reading import read_rows
from tracker.imports.services.records import import_attempt, import_credential, import_hours
from tracker.people.models import Engineer
from tracker.people.rules import ACCESS_ROLES, MIN_PASSWORD_LENGTH
from tracker.progress.rules import HOURS_PER_DAY, MAX_SCORE, MIN_SCORE

IMPORT_KINDS: dict[str, ImportKind] = {
    kind.code: kind
    for kind in (
        ImportKind(
            code="people",
            label="People",
            singular="person",
            plural="people",
            columns=tuple(PersonRow.model_fields),
            optional=frozenset({"password"}),
            fields={
                "access_role": "role",
                "manager": "manager_email",
                "team": "team",
                "job_roles": "job_roles",
            },
            handler=import_person,
            help=(
                f"role: {', '.join(ACCESS_ROLES[:-1])} or {ACCESS_ROLES[-1]} (empty: engineer); "
                f"job_roles separated by '{JOB_ROLE_SEPARATOR}'; "
                f"level {MIN_LEVEL}-{MAX_LEVEL} (empty: {MIN_LEVEL}); team: the name of an "
                "existing team; manager_email: a manager or admin already in the tracker or on "
                f"an earlier line; password (optional column, at least {MIN_PASSWORD_LENGTH} "
                "characters): without one the person cannot sign in until it is set."
            ),
        ),
        ImportKind(
            code="hours",
            label="Hour logs",
            singular="hour log",
            plural="hour logs",
            columns=tuple(HoursRow.model_fields),
            optional=frozenset({"note"}),
            fields={"logged_on": "date"},
            handler=import_hours,
            help=(
                "course: a course code of the catalog; "
                f"hours: more than 0, at most {HOURS_PER_DAY} a day."
            ),
        ),
        ImportKind(
            code="attempts",
            label="Exam attempts",
            singular="exam attempt",
            plural="exam attempts",
            columns=tuple(AttemptRow.model_fields),
            optional=frozenset({"cost", "voucher_code", "proctoring"}),
            fields={"attempted_on": "date"},
            handler=import_attempt,
            help=(
                f"exam: an exam code; score {MIN_SCORE}-{MAX_SCORE}; passed: yes or no. "
                "Put attempts in date order: prerequisites and retake waits are checked as "
                "each row is read."
            ),
        ),
        ImportKind(
            code="credentials",
            label="External credentials",
            singular="external credential",
            plural="external credentials",
            columns=tuple(CredentialRow.model_fields),
            optional=frozenset({"expires_on"}),
            fields={},
            handler=import_credential,
            help=(
                "credential: a credential code of the catalog; expires_on may be empty (the "
                "catalog's validity applies); evidence: a certificate number, a link or a note."
            ),
        ),
    )
}


def import_csv(
    session: Session, kind: str, text: str, today: dt.date, actor: Engineer | None = None
) -> ImportResult:
    """Import every row of a CSV file through the real services, or nothing at all.

    Rows are read in file order, so a row may rely on an earlier one (a person
    added on line 2 can be the manager on line 3). Every bad row is reported
    (ImportRefused) and then everything is rolled back.
    """
    spec = IMPORT_KINDS.get(kind)
    if spec is None:
        raise ValidationError({"kind": f"kind must be one of {', '.join(IMPORT_KINDS)}"})
    rows = read_rows(text, spec)
    errors: list[RowError] = []
    outer = session.begin_nested()
    try:
        for line, row in rows:
            if "_width" in row:
                errors.append(
                    RowError(
                        line,
                        "row",
                        f"has {row['_width']} values; the header has {row['_expected']} "
                        "columns (quote a value that holds a comma)",
                    )
                )
                continue
            try:
                with session.begin_nested():
                    spec.handler(session, row, today, actor)
            except RowProblems as exc:
                errors.extend(RowError(line, col, msg) for col, msg in exc.errors.items())
            except ValidationError as exc:
                errors.extend(
                    RowError(line, spec.fields.get(key, key), msg)
                    for key, msg in exc.errors.items()
                )
            except IntegrityError as exc:
                errors.append(RowError(line, "row", f"conflicts with stored data ({exc.orig})"))
    except BaseException:
        outer.rollback()
        raise
    if errors:
        outer.rollback()
        raise ImportRefused(errors)
    outer.commit()
    return ImportResult(spec, len(rows))
