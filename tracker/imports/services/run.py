"""The import run: every row of a file through the real services, or nothing at all."""

from __future__ import annotations

import datetime as dt

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from tracker.badges.services.fetching import make_fetch
from tracker.badges.services.imports import RecordedBadge
from tracker.badges.services.verified import Fetch
from tracker.catalog.rules import MAX_LEVEL, MIN_LEVEL
from tracker.errors import ValidationError
from tracker.i18n import N_, msg
from tracker.imports.rules import JOB_ROLE_SEPARATOR
from tracker.imports.schemas import AttemptRow, BadgeRow, CredentialRow, HoursRow, PersonRow, Row
from tracker.imports.services.kinds import (
    BadgeChecks,
    ImportKind,
    ImportRefused,
    ImportResult,
    RowError,
    RowProblems,
)
from tracker.imports.services.people import import_person
from tracker.imports.services.reading import read_rows
from tracker.imports.services.records import (
    badge_importer,
    check_badge_rows,
    import_attempt,
    import_credential,
    import_hours,
)
from tracker.people.models import Engineer
from tracker.people.rules import ACCESS_ROLES, LOCALES, MIN_PASSWORD_LENGTH
from tracker.progress.rules import HOURS_PER_DAY, MAX_SCORE, MIN_SCORE

IMPORT_KINDS: dict[str, ImportKind] = {
    kind.code: kind
    for kind in (
        ImportKind(
            code="people",
            label=N_("People"),
            imported_one=N_("%(num)d person imported."),
            imported_many=N_("%(num)d people imported."),
            header=N_("A people file has the columns %(columns)s"),
            columns=tuple(PersonRow.model_fields),
            optional=frozenset({"password", "locale", "weekly_digest"}),
            fields={
                "access_role": "role",
                "manager": "manager_email",
                "team": "team",
                "job_roles": "job_roles",
            },
            handler=import_person,
            help=msg(
                "role: %(roles)s or %(last_role)s (empty: engineer); "
                "job_roles separated by '%(separator)s'; "
                "level %(min_level)s-%(max_level)s (empty: %(min_level)s); team: the name of an "
                "existing team; manager_email: a manager or admin already in the tracker or on "
                "an earlier line; password (optional column, at least %(min_password)s "
                "characters): without one the person cannot sign in until it is set; "
                "locale (optional column): the person's language, %(locales)s or empty for "
                "the browser's choice; weekly_digest (optional column): no to turn the "
                "weekly digest mail off (empty: on).",
                roles=", ".join(ACCESS_ROLES[:-1]),
                last_role=ACCESS_ROLES[-1],
                separator=JOB_ROLE_SEPARATOR,
                min_level=MIN_LEVEL,
                max_level=MAX_LEVEL,
                min_password=MIN_PASSWORD_LENGTH,
                locales=", ".join(LOCALES),
            ),
        ),
        ImportKind(
            code="hours",
            label=N_("Hour logs"),
            imported_one=N_("%(num)d hour log imported."),
            imported_many=N_("%(num)d hour logs imported."),
            header=N_("An hour logs file has the columns %(columns)s"),
            columns=tuple(HoursRow.model_fields),
            optional=frozenset({"note"}),
            fields={"logged_on": "date"},
            handler=import_hours,
            help=msg(
                "course: a course code of the catalog; hours: more than 0, at most %(max)s a day.",
                max=HOURS_PER_DAY,
            ),
        ),
        ImportKind(
            code="attempts",
            label=N_("Exam attempts"),
            imported_one=N_("%(num)d exam attempt imported."),
            imported_many=N_("%(num)d exam attempts imported."),
            header=N_("An exam attempts file has the columns %(columns)s"),
            columns=tuple(AttemptRow.model_fields),
            optional=frozenset({"cost", "voucher_code", "proctoring"}),
            fields={"attempted_on": "date"},
            handler=import_attempt,
            help=msg(
                "exam: an exam code; score %(min)s-%(max)s; passed: yes or no. "
                "Put attempts in date order: prerequisites and retake waits are checked as "
                "each row is read.",
                min=MIN_SCORE,
                max=MAX_SCORE,
            ),
        ),
        ImportKind(
            code="credentials",
            label=N_("External credentials"),
            imported_one=N_("%(num)d external credential imported."),
            imported_many=N_("%(num)d external credentials imported."),
            header=N_("An external credentials file has the columns %(columns)s"),
            columns=tuple(CredentialRow.model_fields),
            optional=frozenset({"expires_on"}),
            fields={},
            handler=import_credential,
            help=N_(
                "credential: a credential code of the catalog; expires_on may be empty (the "
                "catalog's validity applies); evidence: a certificate number, a link or a note."
            ),
        ),
        ImportKind(
            code="badges",
            label=N_("Badges"),
            imported_one=N_("%(num)d badge verified and imported."),
            imported_many=N_("%(num)d badges verified and imported."),
            existing_one=N_(
                "%(num)d of them verified a certification already recorded by hand;"
                " nothing was added for it."
            ),
            existing_many=N_(
                "%(num)d of them verified certifications already recorded by hand;"
                " nothing was added for them."
            ),
            header=N_("A badges file has the columns %(columns)s"),
            columns=tuple(BadgeRow.model_fields),
            optional=frozenset(),
            fields={},
            handler=None,
            fetching=badge_importer,
            help=N_(
                "badge_url: where the issuer hosts the person's badge (an Open Badges assertion"
                " or credential); each is verified with its issuer, and a badge that fails a"
                " check refuses the file."
            ),
        ),
    )
}


def check_badges(kind: str, text: str, today: dt.date, fetch: Fetch) -> BadgeChecks:
    """Verify a badges file's badges with their issuers, before its import; {} for other kinds.

    No database work: run it outside any transaction (db.release), so that
    nothing waits on the issuers. A file that reads badly is left to import_csv.
    """
    spec = IMPORT_KINDS.get(kind)
    if spec is None or spec.fetching is None:
        return {}
    try:
        rows = read_rows(text, spec)
    except ValidationError:
        return {}
    return _checks(spec, rows, today, fetch)


def _checks(
    spec: ImportKind, rows: list[tuple[int, Row]], today: dt.date, fetch: Fetch | None
) -> BadgeChecks:
    if spec.fetching is None:
        return {}
    # Without a Fetch of the app's settings, badges come only from public hosts.
    return check_badge_rows((row for _, row in rows), today, fetch or make_fetch(frozenset()))


def import_csv(
    session: Session,
    kind: str,
    text: str,
    today: dt.date,
    actor: Engineer | None = None,
    fetch: Fetch | None = None,
    check_only: bool = False,
    checks: BadgeChecks | None = None,
) -> ImportResult:
    """Import every row of a CSV file through the real services, or nothing at all.

    Rows are read in file order, so a row may rely on an earlier one (a person
    added on line 2 can be the manager on line 3). Every bad row is reported
    (ImportRefused) and then everything is rolled back. `check_only` rolls a
    good file back too: every rule is checked as by an import, nothing is kept.
    A badges file's `checks` come from check_badges, run before the caller's
    transaction began; without them its badges are checked here (with `fetch`).
    """
    spec = IMPORT_KINDS.get(kind)
    if spec is None:
        raise ValidationError(
            {"kind": msg("kind must be one of %(values)s", values=", ".join(IMPORT_KINDS))}
        )
    rows = read_rows(text, spec)
    if checks is None:
        checks = _checks(spec, rows, today, fetch)
    handler = spec.row_handler(checks)
    errors: list[RowError] = []
    existing = 0
    outer = session.begin_nested()
    try:
        for line, row in rows:
            if "_width" in row:
                errors.append(
                    RowError(
                        line,
                        "row",
                        msg(
                            "has %(width)s values; the header has %(expected)s "
                            "columns (quote a value that holds a comma)",
                            width=row["_width"],
                            expected=row["_expected"],
                        ),
                    )
                )
                continue
            try:
                with session.begin_nested():
                    done = handler(session, row, today, actor)
                existing += isinstance(done, RecordedBadge) and done.existing
            except RowProblems as exc:
                errors.extend(RowError(line, col, text) for col, text in exc.errors.items())
            except ValidationError as exc:
                errors.extend(
                    RowError(line, spec.fields.get(key, key), text)
                    for key, text in exc.errors.items()
                )
            except IntegrityError as exc:
                errors.append(
                    RowError(
                        line, "row", msg("conflicts with stored data (%(error)s)", error=exc.orig)
                    )
                )
    except BaseException:
        outer.rollback()
        raise
    if errors:
        outer.rollback()
        raise ImportRefused(errors)
    if check_only:
        outer.rollback()
    else:
        outer.commit()
    return ImportResult(spec, len(rows), existing, checked=check_only)
