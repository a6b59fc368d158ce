"""The internal certification track: the organisation's own exam, courses and learning path.

Every refusal is a ValidationError naming the field and the rule, raised
before anything is written.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import TypeGuard

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from tracker.catalog.models.credentials import Course, Credential, Exam, LearningPath, PathCourse
from tracker.catalog.rules import (
    CODE_PATTERN,
    CODE_RULE,
    DECIMAL_PLACES,
    DEFAULT_RETAKE_WAIT_DAYS,
    HUNDREDTH,
    MAX_COURSE_HOURS,
    MAX_REQUIRED_EXPERIENCE_MONTHS,
    MAX_RETAKE_WAIT_DAYS,
    MAX_TARGET_MONTHS,
    MAX_TITLE_LENGTH,
    MAX_TRACK_COURSES,
    MAX_VALIDITY_MONTHS,
    MIN_TARGET_MONTHS,
    MIN_VALIDITY_MONTHS,
)
from tracker.errors import ValidationError
from tracker.i18n import DEFAULT_LOCALE, N_, Message, amount, join, msg, read_decimal

# The example of hours with a fraction that a refusal shows.
HALF = Decimal("1.5")


@dataclass(frozen=True)
class CourseLine:
    """A course of an internal track, as written on one line: CODE | Title | hours [| Título]."""

    line: int
    code: str
    title: str
    hours: Decimal
    # The title Spanish readers see; empty: they see `title`.
    title_es: str = ""


def _is_whole(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def credentials(session: Session) -> list[Credential]:
    """Return every credential of the catalog by code."""
    return list(session.scalars(select(Credential).order_by(Credential.code)))


def internal_codes(session: Session) -> frozenset[str]:
    """Return the codes of catalog rows the organisation created (origin "internal")."""
    codes: set[str] = set()
    for model in (Credential, Course, LearningPath):
        codes.update(session.scalars(select(model.code).where(model.origin == "internal")))
    return frozenset(codes)


def code_taken(session: Session, code: str) -> str | None:
    """Return what in the catalog already uses `code` (case-insensitive), or None."""
    models: tuple[tuple[type[Credential] | type[Course] | type[LearningPath], Message], ...] = (
        (Credential, N_("%(code)s is already taken by a credential")),
        (Course, N_("%(code)s is already taken by a course")),
        (LearningPath, N_("%(code)s is already taken by a learning path")),
    )
    for model, taken in models:
        found = session.scalars(
            select(model.code).where(func.lower(model.code) == code.lower())
        ).first()
        if found is not None:
            return msg(taken, code=found)
    return None


def _on_line(number: int, problem: str) -> str:
    """Return a problem of one line of the course list, naming the line."""
    return msg("line %(number)s: %(problem)s", number=number, problem=problem)


def _code_error(session: Session, code: str) -> str | None:
    if not CODE_PATTERN.fullmatch(code):
        return msg("code must be %(rule)s", rule=CODE_RULE)
    return code_taken(session, code)


def parse_decimal(text: str, locale: str | None = None) -> Decimal | None:
    """Return the finite number `text` writes, or None.

    Without `locale`, as a file of data writes it (1.5); with it, as a reader of
    `locale` types it on a page (1,5 in Spanish).
    """
    try:
        value = Decimal(text) if locale is None else read_decimal(text, locale)
    except (InvalidOperation, ValueError):
        return None
    return value if value.is_finite() else None


def parse_course_lines(text: str, locale: str = DEFAULT_LOCALE) -> list[CourseLine]:
    """Read courses written one per line as `CODE | Title | hours [| Spanish title]`.

    The hours are read as a reader of `locale` types them on the page: 1,5 in Spanish.
    """
    courses: list[CourseLine] = []
    problems: list[str] = []
    seen: set[str] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        parts = [p.strip() for p in raw.split("|")]
        if len(parts) not in (3, 4):
            problems.append(_on_line(number, N_("write CODE | Title | hours")))
            continue
        code, title, hours_text, *spanish = parts
        title_es = spanish[0] if spanish else ""
        if len(title_es) > MAX_TITLE_LENGTH:
            problems.append(
                _on_line(
                    number,
                    msg(
                        "the Spanish title must be at most %(max)s characters", max=MAX_TITLE_LENGTH
                    ),
                )
            )
        if not CODE_PATTERN.fullmatch(code):
            problems.append(_on_line(number, msg("code must be %(rule)s", rule=CODE_RULE)))
        elif code.lower() in seen:
            problems.append(_on_line(number, msg("code %(code)s appears twice", code=code)))
        if not title or len(title) > MAX_TITLE_LENGTH:
            problems.append(
                _on_line(
                    number,
                    msg("title must be 1 to %(most)s characters", most=MAX_TITLE_LENGTH),
                )
            )
        hours = parse_decimal(hours_text, locale)
        if hours is None:
            # The example as the reader writes it: 1.5 in English, 1,5 in Spanish.
            problems.append(
                _on_line(
                    number,
                    msg("hours must be a number, e.g. 8 or %(example)s", example=amount(HALF)),
                )
            )
        elif not 0 < hours <= MAX_COURSE_HOURS:
            problems.append(
                _on_line(
                    number,
                    msg("hours must be more than 0 and at most %(most)s", most=MAX_COURSE_HOURS),
                )
            )
        elif hours != hours.quantize(HUNDREDTH):
            problems.append(
                _on_line(
                    number,
                    msg("hours must have at most %(places)s decimals", places=DECIMAL_PLACES),
                )
            )
        seen.add(code.lower())
        if hours is not None:
            courses.append(CourseLine(number, code, title, hours, title_es))
    if not problems and not courses:
        problems.append(N_("list at least one course, one per line: CODE | Title | hours"))
    if not problems and len(courses) > MAX_TRACK_COURSES:
        problems.append(msg("a track holds at most %(most)s courses", most=MAX_TRACK_COURSES))
    if problems:
        raise ValidationError({"courses": join(problems)})
    return courses


def _name_error(name: str) -> str | None:
    if not name.strip() or len(name.strip()) > MAX_TITLE_LENGTH:
        return msg("name must be 1 to %(most)s characters", most=MAX_TITLE_LENGTH)
    return None


def _spanish_name_error(name: str) -> str | None:
    if len(name.strip()) > MAX_TITLE_LENGTH:
        return msg("the Spanish name must be at most %(max)s characters", max=MAX_TITLE_LENGTH)
    return None


def create_internal_track(
    session: Session,
    *,
    exam_code: str,
    exam_name: str,
    validity_months: int,
    prerequisites: Iterable[str] = (),
    experience_months: int = 0,
    retake_wait_days: int = DEFAULT_RETAKE_WAIT_DAYS,
    courses: str,
    path_code: str,
    path_name: str,
    target_months: int,
    exam_name_es: str = "",
    path_name_es: str = "",
    locale: str = DEFAULT_LOCALE,
) -> LearningPath:
    """Create the organisation's own exam (and its credential), courses and learning path.

    Everything has origin "internal"; every code must be new to the whole
    catalog. All or nothing: one broken rule writes nothing. The Spanish
    names and titles are optional: Spanish readers see the English without them.
    The courses' hours are read as a reader of `locale` writes numbers.
    """
    errors: dict[str, str] = {}
    exam_code, path_code = exam_code.strip(), path_code.strip()
    if problem := _code_error(session, exam_code):
        errors["exam_code"] = problem
    if problem := _name_error(exam_name):
        errors["exam_name"] = problem
    if problem := _spanish_name_error(exam_name_es):
        errors["exam_name_es"] = problem
    if (
        not _is_whole(validity_months)
        or not MIN_VALIDITY_MONTHS <= validity_months <= MAX_VALIDITY_MONTHS
    ):
        errors["validity_months"] = msg(
            "validity must be a whole number of months from %(min)s to %(max)s",
            min=MIN_VALIDITY_MONTHS,
            max=MAX_VALIDITY_MONTHS,
        )
    if (
        not _is_whole(experience_months)
        or not 0 <= experience_months <= MAX_REQUIRED_EXPERIENCE_MONTHS
    ):
        errors["experience_months"] = msg(
            "experience must be a whole number of months from 0 to %(max)s",
            max=MAX_REQUIRED_EXPERIENCE_MONTHS,
        )
    if not _is_whole(retake_wait_days) or not 0 <= retake_wait_days <= MAX_RETAKE_WAIT_DAYS:
        errors["retake_wait_days"] = msg(
            "retake wait must be a whole number of days from 0 to %(max)s",
            max=MAX_RETAKE_WAIT_DAYS,
        )
    prereqs: list[Credential] = []
    for code in dict.fromkeys(prerequisites):
        cred = session.scalars(select(Credential).where(Credential.code == code)).one_or_none()
        if cred is None:
            errors["prerequisites"] = msg(
                "unknown credential %(code)r; choose from the catalog", code=code
            )
        else:
            prereqs.append(cred)
    lines: list[CourseLine] = []
    try:
        lines = parse_course_lines(courses, locale)
    except ValidationError as exc:
        errors.update(exc.errors)
    else:
        taken = [
            _on_line(c.line, problem) for c in lines if (problem := code_taken(session, c.code))
        ]
        if taken:
            errors["courses"] = join(taken)
    if problem := _code_error(session, path_code):
        errors["path_code"] = problem
    if problem := _name_error(path_name):
        errors["path_name"] = problem
    if problem := _spanish_name_error(path_name_es):
        errors["path_name_es"] = problem
    if not _is_whole(target_months) or not MIN_TARGET_MONTHS <= target_months <= MAX_TARGET_MONTHS:
        errors["target_months"] = msg(
            "target duration must be a whole number of months from %(min)s to %(max)s",
            min=MIN_TARGET_MONTHS,
            max=MAX_TARGET_MONTHS,
        )
    # Codes must also differ from one another within the track.
    own = [
        (exam_code, N_("%(code)s is also the exam code")),
        (path_code, N_("%(code)s is also the path code")),
    ]
    if exam_code and path_code and exam_code.lower() == path_code.lower():
        errors.setdefault("path_code", N_("the path code must differ from the exam code"))
    clashes = [
        _on_line(c.line, msg(clash, code=c.code))
        for c in lines
        for code, clash in own
        if code and c.code.lower() == code.lower()
    ]
    if clashes:
        errors.setdefault("courses", join(clashes))
    if errors:
        raise ValidationError(errors)

    try:
        with session.begin_nested():
            credential = Credential(
                code=exam_code,
                name=exam_name.strip(),
                name_es=exam_name_es.strip(),
                issuer="internal",
                kind="exam",
                origin="internal",
                validity_months=validity_months,
            )
            exam = Exam(
                credential=credential,
                level_label="internal",
                experience_months=experience_months,
                retake_wait_days=retake_wait_days,
                prerequisites=sorted(prereqs, key=lambda c: c.code),
            )
            course_rows = [
                Course(
                    code=c.code,
                    title=c.title,
                    title_es=c.title_es,
                    hours=c.hours,
                    provider="internal",
                    origin="internal",
                )
                for c in lines
            ]
            path = LearningPath(
                code=path_code,
                name=path_name.strip(),
                name_es=path_name_es.strip(),
                target_months=target_months,
                exam=exam,
                origin="internal",
            )
            session.add_all([credential, exam, *course_rows, path])
            session.flush()
            path.path_courses.extend(
                PathCourse(position=i, course_id=c.id) for i, c in enumerate(course_rows, start=1)
            )
            session.flush()
    except IntegrityError:
        # Another admin took a code between the check and the write.
        raise ValidationError(
            {"exam_code": N_("a code of this track was just taken in the catalog; try again")}
        ) from None
    return path
