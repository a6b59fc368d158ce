"""Admin rules: people, teams, the internal certification track, CSV imports; the outbox.

Plain functions: they take a session and the date they reason about (`today`)
as parameters, never read the clock, and only flush; the request boundary
commits. Every refusal is a ValidationError naming the field and the rule,
raised before anything is written (or with the writes rolled back).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from sqlalchemy import func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from tracker.careers.models import LevelChange
from tracker.catalog.models import (
    Course,
    Credential,
    Exam,
    JobRole,
    LearningPath,
    Level,
    PathCourse,
)
from tracker.errors import ValidationError
from tracker.people import services as people
from tracker.people.models import ACCESS_ROLES, Engineer, JobRoleAssignment, Team
from tracker.progress.models import ExamAttempt, HourLog
from tracker.progress.services.certifications import record_attempt, record_credential
from tracker.progress.services.hours import log_hours
from tracker.reminders.models import Notification

MANAGER_ROLES = ("manager", "admin")
MAX_EXPERIENCE_MONTHS = 600
MAX_GPUS = 10_000_000


# --- reading ----------------------------------------------------------------


def people_overview(session: Session) -> list[Engineer]:
    """Return every person by name, with team, manager and job roles loaded."""
    return list(
        session.scalars(
            select(Engineer)
            .options(
                selectinload(Engineer.team),
                selectinload(Engineer.manager),
                selectinload(Engineer.role_assignments).selectinload(JobRoleAssignment.job_role),
            )
            .order_by(func.lower(Engineer.name), Engineer.id)
        )
    )


def level_history(session: Session, engineer: Engineer) -> list[LevelChange]:
    """Return the level changes of a person, oldest first."""
    return list(
        session.scalars(
            select(LevelChange)
            .where(LevelChange.engineer_id == engineer.id)
            .options(selectinload(LevelChange.changed_by))
            .order_by(LevelChange.changed_on, LevelChange.id)
        )
    )


def teams_overview(session: Session) -> list[tuple[Team, int]]:
    """Return every team by name with its number of members."""
    members = (
        select(Engineer.team_id, func.count(Engineer.id).label("n"))
        .group_by(Engineer.team_id)
        .subquery()
    )
    rows = session.execute(
        select(Team, func.coalesce(members.c.n, 0))
        .outerjoin(members, members.c.team_id == Team.id)
        .options(selectinload(Team.manager))
        .order_by(func.lower(Team.name))
    )
    return [(team, count) for team, count in rows.tuples()]


def manager_candidates(session: Session) -> list[Engineer]:
    """Return the active people who may manage a team or a person (managers and admins)."""
    return list(
        session.scalars(
            select(Engineer)
            .where(Engineer.access_role.in_(MANAGER_ROLES), Engineer.active.is_(True))
            .order_by(func.lower(Engineer.name), Engineer.id)
        )
    )


def job_roles(session: Session) -> list[JobRole]:
    return list(session.scalars(select(JobRole).order_by(JobRole.id)))


def levels(session: Session) -> list[Level]:
    return list(session.scalars(select(Level).order_by(Level.number)))


def teams(session: Session) -> list[Team]:
    return list(session.scalars(select(Team).order_by(func.lower(Team.name))))


def credentials(session: Session) -> list[Credential]:
    return list(session.scalars(select(Credential).order_by(Credential.code)))


def internal_codes(session: Session) -> frozenset[str]:
    """Return the codes of catalog rows the organisation created (origin "internal")."""
    codes: set[str] = set()
    for model in (Credential, Course, LearningPath):
        codes.update(session.scalars(select(model.code).where(model.origin == "internal")))
    return frozenset(codes)


# --- people -----------------------------------------------------------------


def _is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _resolve_team(session: Session, team_id: int | None) -> tuple[Team | None, str | None]:
    if team_id is None:
        return None, None
    team = session.get(Team, team_id) if _is_whole(team_id) else None
    if team is None:
        return None, f"unknown team (no team with id {team_id}); choose one of the listed teams"
    return team, None


def _resolve_manager(
    session: Session, manager_id: int | None, person: Engineer | None
) -> tuple[Engineer | None, str | None]:
    """Return the manager for `person`, or the rule it breaks."""
    if manager_id is None:
        return None, None
    manager = session.get(Engineer, manager_id) if _is_whole(manager_id) else None
    if manager is None:
        return None, f"unknown manager (no person with id {manager_id})"
    if person is not None and manager.id == person.id:
        return None, "a person cannot be their own manager"
    if manager.access_role not in MANAGER_ROLES:
        return None, f"{manager.name} is not a manager or admin; give them the manager role first"
    if not manager.active:
        return None, f"{manager.name} is deactivated and cannot manage anyone"
    if person is not None:
        seen: set[int] = set()
        boss = manager.manager
        while boss is not None and boss.id not in seen:
            if boss.id == person.id:
                return None, (
                    f"{manager.name} reports to {person.name}; reporting lines must not loop"
                )
            seen.add(boss.id)
            boss = boss.manager
    return manager, None


def _resolve_job_roles(session: Session, codes: Iterable[str]) -> tuple[list[JobRole], str | None]:
    known = {r.code: r for r in job_roles(session)}
    wanted: list[JobRole] = []
    for code in codes:
        role = known.get(code)
        if role is None:
            return [], f"unknown job role {code!r} (known: {', '.join(known)})"
        if role not in wanted:
            wanted.append(role)
    return wanted, None


def _experience_error(months: object) -> str | None:
    if not _is_whole(months) or not 0 <= months <= MAX_EXPERIENCE_MONTHS:  # type: ignore[operator]
        return f"experience must be a whole number of months from 0 to {MAX_EXPERIENCE_MONTHS}"
    return None


def _level_error(session: Session, level: object) -> str | None:
    if not _is_whole(level) or not 1 <= level <= 5 or session.get(Level, level) is None:  # type: ignore[operator]
        return "level must be a whole number from 1 to 5"
    return None


def create_person(
    session: Session,
    *,
    actor: Engineer | None,
    today: dt.date,
    email: str,
    name: str,
    access_role: str = "engineer",
    job_roles: Iterable[str] = (),
    level: int = 1,
    team_id: int | None = None,
    manager_id: int | None = None,
    hired_on: dt.date | None = None,
    experience_months: int = 0,
    password: str | None = None,
) -> Engineer:
    """Add a person (and their account); their first level is recorded in the level history.

    Job roles start on the hire date (or today); nothing is written when a rule is broken.
    """
    errors: dict[str, str] = {}
    _, problem = _resolve_job_roles(session, job_roles)
    if problem:
        errors["job_roles"] = problem
    team, problem = _resolve_team(session, team_id)
    if problem:
        errors["team"] = problem
    manager, problem = _resolve_manager(session, manager_id, None)
    if problem:
        errors["manager"] = problem
    if problem := _experience_error(experience_months):
        errors["experience_months"] = problem
        experience_months = 0
    if problem := _level_error(session, level):
        errors["level"] = problem
        level = 1
    try:
        # create_engineer validates the rest before it writes; the savepoint
        # also undoes its writes when one of the checks above failed.
        with session.begin_nested():
            engineer = people.create_engineer(
                session,
                email=email,
                name=name,
                today=today,
                access_role=access_role,
                job_roles=[] if "job_roles" in errors else list(job_roles),
                level=level,
                team=team,
                manager=manager,
                hired_on=hired_on,
                experience_months=experience_months,
                password=password,
            )
            if errors:
                raise ValidationError(errors)
    except ValidationError as exc:
        raise ValidationError({**exc.errors, **errors}) from None
    session.add(
        LevelChange(
            engineer=engineer,
            from_level=None,
            to_level=engineer.level,
            changed_on=today,
            changed_by_id=actor.id if actor else None,
        )
    )
    session.flush()
    return engineer


def set_level(
    session: Session, engineer: Engineer, level: int, actor: Engineer | None, today: dt.date
) -> LevelChange | None:
    """Set a person's level, writing who changed it from what to what on `today`."""
    if problem := _level_error(session, level):
        raise ValidationError({"level": problem})
    if engineer.level == level:
        return None
    change = LevelChange(
        engineer=engineer,
        from_level=engineer.level,
        to_level=level,
        changed_on=today,
        changed_by_id=actor.id if actor else None,
    )
    engineer.level = level
    session.add(change)
    session.flush()
    return change


def set_job_roles(
    session: Session, engineer: Engineer, codes: Iterable[str], today: dt.date
) -> None:
    """Give a person exactly these job roles from `today`, keeping the rotation history.

    A removed role's open assignment ends on `today`; an added role opens a new
    assignment starting on `today`; a kept role's assignment is left as it is.
    """
    wanted, problem = _resolve_job_roles(session, codes)
    if problem:
        raise ValidationError({"job_roles": problem})
    wanted_ids = {r.id for r in wanted}
    held = {a.job_role_id: a for a in engineer.role_assignments if a.ended_on is None}
    for role_id, assignment in held.items():
        if role_id not in wanted_ids:
            assignment.ended_on = max(today, assignment.started_on)
    session.flush()
    for role in wanted:
        if role.id not in held:
            engineer.role_assignments.append(JobRoleAssignment(job_role=role, started_on=today))
    session.flush()


EDITABLE = frozenset(
    {"access_role", "job_roles", "level", "team_id", "manager_id", "hired_on", "experience_months"}
)


def _reports(session: Session, engineer: Engineer) -> list[str]:
    """Name what `engineer` manages: teams and people."""
    team_names = session.scalars(
        select(Team.name).where(Team.manager_id == engineer.id).order_by(Team.name)
    ).all()
    people_names = session.scalars(
        select(Engineer.name).where(Engineer.manager_id == engineer.id).order_by(Engineer.name)
    ).all()
    return [f"team {n}" for n in team_names] + list(people_names)


def _first_record(session: Session, engineer: Engineer) -> dt.date | None:
    dates = [
        session.scalar(
            select(func.min(HourLog.logged_on)).where(HourLog.engineer_id == engineer.id)
        ),
        session.scalar(
            select(func.min(ExamAttempt.attempted_on)).where(ExamAttempt.engineer_id == engineer.id)
        ),
    ]
    return min((d for d in dates if d is not None), default=None)


def update_engineer(
    session: Session,
    engineer: Engineer,
    actor: Engineer | None,
    today: dt.date,
    **changes: object,
) -> Engineer:
    """Change a person's access role, job roles, level, team, manager, hire date or experience.

    A level change writes a LevelChange (from, to, today, actor); job-role
    changes end and open assignments on `today`. All rules are checked before
    anything is written.
    """
    unknown = set(changes) - EDITABLE
    if unknown:
        raise TypeError(f"not editable here: {', '.join(sorted(unknown))}")
    errors: dict[str, str] = {}

    if "access_role" in changes:
        role = changes["access_role"]
        if role not in ACCESS_ROLES:
            errors["access_role"] = f"role must be one of {', '.join(ACCESS_ROLES)}"
        elif actor is not None and actor.id == engineer.id and role != engineer.access_role:
            errors["access_role"] = (
                "you cannot change your own access role; ask another admin to do it"
            )
        elif role not in MANAGER_ROLES and engineer.access_role in MANAGER_ROLES:
            managed = _reports(session, engineer)
            if managed:
                errors["access_role"] = (
                    f"{engineer.name} manages {', '.join(managed)}; "
                    "choose other managers for them before removing the manager role"
                )
    if "level" in changes and (problem := _level_error(session, changes["level"])):
        errors["level"] = problem
    if "job_roles" in changes:
        _, problem = _resolve_job_roles(session, changes["job_roles"])  # type: ignore[arg-type]
        if problem:
            errors["job_roles"] = problem
    team = engineer.team
    if "team_id" in changes:
        team, problem = _resolve_team(session, changes["team_id"])  # type: ignore[arg-type]
        if problem:
            errors["team"] = problem
    manager = engineer.manager
    if "manager_id" in changes and changes["manager_id"] != engineer.manager_id:
        manager, problem = _resolve_manager(session, changes["manager_id"], engineer)  # type: ignore[arg-type]
        if problem:
            errors["manager"] = problem
    if "hired_on" in changes and changes["hired_on"] != engineer.hired_on:
        hired_on = changes["hired_on"]
        first = _first_record(session, engineer)
        if hired_on is not None and not isinstance(hired_on, dt.date):
            errors["hired_on"] = "hire date must be a date (YYYY-MM-DD)"
        elif hired_on is not None and hired_on > today:
            errors["hired_on"] = "hire date must not be in the future"
        elif hired_on is not None and first is not None and hired_on > first:
            errors["hired_on"] = (
                f"hire date must not be after the first recorded hours or exam attempt "
                f"({first.isoformat()})"
            )
    if "experience_months" in changes and (
        problem := _experience_error(changes["experience_months"])
    ):
        errors["experience_months"] = problem
    if errors:
        raise ValidationError(errors)

    if "access_role" in changes:
        engineer.access_role = changes["access_role"]  # type: ignore[assignment]
    if "level" in changes:
        set_level(session, engineer, changes["level"], actor, today)  # type: ignore[arg-type]
    if "job_roles" in changes:
        set_job_roles(session, engineer, changes["job_roles"], today)  # type: ignore[arg-type]
    if "team_id" in changes:
        engineer.team = team
    if "manager_id" in changes:
        engineer.manager = manager
    if "hired_on" in changes:
        engineer.hired_on = changes["hired_on"]  # type: ignore[assignment]
    if "experience_months" in changes:
        engineer.experience_months = changes["experience_months"]  # type: ignore[assignment]
    session.flush()
    return engineer


def set_person_active(
    session: Session, engineer: Engineer, active: bool, actor: Engineer | None
) -> None:
    """Deactivate (ending every session of the person) or reactivate an account."""
    if not active and actor is not None and actor.id == engineer.id:
        raise ValidationError({"active": "you cannot deactivate your own account"})
    people.set_active(session, engineer, active)


# --- teams ------------------------------------------------------------------


def _team_errors(
    session: Session, team: Team | None, name: str, gpus: object, manager_id: int | None
) -> tuple[dict[str, str], Engineer | None]:
    errors: dict[str, str] = {}
    name = name.strip()
    if not name or len(name) > 120:
        errors["name"] = "name must be 1 to 120 characters"
    else:
        other = people.find_team(session, name)
        if other is not None and other is not team:
            errors["name"] = f"a team named {other.name!r} already exists"
    if not _is_whole(gpus) or not 0 <= gpus <= MAX_GPUS:  # type: ignore[operator]
        errors["gpus"] = f"fleet size must be a whole number of GPUs from 0 to {MAX_GPUS:,}"
    manager = team.manager if team is not None else None
    if team is None or manager_id != team.manager_id:
        manager, problem = _resolve_manager(session, manager_id, None)
        if problem:
            errors["manager"] = problem
    return errors, manager


def add_team(session: Session, name: str, gpus: int, manager_id: int | None = None) -> Team:
    """Create a team; its manager must be an active manager or admin."""
    errors, manager = _team_errors(session, None, name, gpus, manager_id)
    if errors:
        raise ValidationError(errors)
    return people.create_team(session, name.strip(), gpus, manager)


def update_team(
    session: Session, team: Team, *, name: str, gpus: int, manager_id: int | None
) -> Team:
    """Rename a team, change its fleet size or its manager."""
    errors, manager = _team_errors(session, team, name, gpus, manager_id)
    if errors:
        raise ValidationError(errors)
    team.name = name.strip()
    team.gpus = gpus
    team.manager = manager
    session.flush()
    return team


# --- the internal certification track ---------------------------------------

CODE_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,39}")
CODE_RULE = "1 to 40 letters, digits or . _ + - (starting with a letter or digit)"
MAX_COURSE_HOURS = Decimal(1000)
MAX_TRACK_COURSES = 50


@dataclass(frozen=True)
class CourseLine:
    """A course of an internal track, as written on one line: CODE | Title | hours."""

    line: int
    code: str
    title: str
    hours: Decimal


def code_taken(session: Session, code: str) -> str | None:
    """Return what in the catalog already uses `code` (case-insensitive), or None."""
    for model, what in (
        (Credential, "a credential"),
        (Course, "a course"),
        (LearningPath, "a learning path"),
    ):
        found = session.scalars(
            select(model.code).where(func.lower(model.code) == code.lower())
        ).first()
        if found is not None:
            return f"{found} is already taken by {what}"
    return None


def _code_error(session: Session, code: str) -> str | None:
    if not CODE_PATTERN.fullmatch(code):
        return f"code must be {CODE_RULE}"
    return code_taken(session, code)


def _parse_hours(text: str) -> Decimal | None:
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def parse_course_lines(text: str) -> list[CourseLine]:
    """Read courses written one per line as `CODE | Title | hours`; report every bad line."""
    courses: list[CourseLine] = []
    problems: list[str] = []
    seen: set[str] = set()
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        parts = [p.strip() for p in raw.split("|")]
        if len(parts) != 3:
            problems.append(f"line {number}: write CODE | Title | hours")
            continue
        code, title, hours_text = parts
        if not CODE_PATTERN.fullmatch(code):
            problems.append(f"line {number}: code must be {CODE_RULE}")
        elif code.lower() in seen:
            problems.append(f"line {number}: code {code} appears twice")
        if not title or len(title) > 200:
            problems.append(f"line {number}: title must be 1 to 200 characters")
        hours = _parse_hours(hours_text)
        if hours is None:
            problems.append(f"line {number}: hours must be a number, e.g. 8 or 1.5")
        elif not 0 < hours <= MAX_COURSE_HOURS:
            problems.append(f"line {number}: hours must be more than 0 and at most 1000")
        elif hours != hours.quantize(Decimal("0.01")):
            problems.append(f"line {number}: hours must have at most 2 decimals")
        seen.add(code.lower())
        if hours is not None:
            courses.append(CourseLine(number, code, title, hours))
    if not problems and not courses:
        problems.append("list at least one course, one per line: CODE | Title | hours")
    if not problems and len(courses) > MAX_TRACK_COURSES:
        problems.append(f"a track holds at most {MAX_TRACK_COURSES} courses")
    if problems:
        raise ValidationError({"courses": "; ".join(problems)})
    return courses


def create_internal_track(
    session: Session,
    *,
    exam_code: str,
    exam_name: str,
    validity_months: int,
    prerequisites: Iterable[str] = (),
    experience_months: int = 0,
    retake_wait_days: int = 14,
    courses: str,
    path_code: str,
    path_name: str,
    target_months: int,
) -> LearningPath:
    """Create the organisation's own exam (and its credential), courses and learning path.

    Everything has origin "internal"; every code must be new to the whole
    catalog. All or nothing: one broken rule writes nothing.
    """
    errors: dict[str, str] = {}
    exam_code, path_code = exam_code.strip(), path_code.strip()
    if problem := _code_error(session, exam_code):
        errors["exam_code"] = problem
    if not exam_name.strip() or len(exam_name.strip()) > 200:
        errors["exam_name"] = "name must be 1 to 200 characters"
    if not _is_whole(validity_months) or not 1 <= validity_months <= 120:
        errors["validity_months"] = "validity must be a whole number of months from 1 to 120"
    if not _is_whole(experience_months) or not 0 <= experience_months <= MAX_EXPERIENCE_MONTHS:
        errors["experience_months"] = (
            f"experience must be a whole number of months from 0 to {MAX_EXPERIENCE_MONTHS}"
        )
    if not _is_whole(retake_wait_days) or not 0 <= retake_wait_days <= 365:
        errors["retake_wait_days"] = "retake wait must be a whole number of days from 0 to 365"
    prereqs: list[Credential] = []
    for code in dict.fromkeys(prerequisites):
        cred = session.scalars(select(Credential).where(Credential.code == code)).one_or_none()
        if cred is None:
            errors["prerequisites"] = f"unknown credential {code!r}; choose from the catalog"
        else:
            prereqs.append(cred)
    lines: list[CourseLine] = []
    try:
        lines = parse_course_lines(courses)
    except ValidationError as exc:
        errors.update(exc.errors)
    else:
        taken = [
            f"line {c.line}: {problem}" for c in lines if (problem := code_taken(session, c.code))
        ]
        if taken:
            errors["courses"] = "; ".join(taken)
    if problem := _code_error(session, path_code):
        errors["path_code"] = problem
    if not path_name.strip() or len(path_name.strip()) > 200:
        errors["path_name"] = "name must be 1 to 200 characters"
    if not _is_whole(target_months) or not 1 <= target_months <= 120:
        errors["target_months"] = "target duration must be a whole number of months from 1 to 120"
    # Codes must also differ from one another within the track.
    own = [("exam_code", exam_code), ("path_code", path_code)]
    if exam_code and path_code and exam_code.lower() == path_code.lower():
        errors.setdefault("path_code", "the path code must differ from the exam code")
    clashes = [
        f"line {c.line}: {c.code} is also the {field.replace('_', ' ')}"
        for c in lines
        for field, code in own
        if code and c.code.lower() == code.lower()
    ]
    if clashes:
        errors.setdefault("courses", "; ".join(clashes))
    if errors:
        raise ValidationError(errors)

    try:
        with session.begin_nested():
            credential = Credential(
                code=exam_code,
                name=exam_name.strip(),
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
                    hours=c.hours,
                    provider="internal",
                    origin="internal",
                )
                for c in lines
            ]
            path = LearningPath(
                code=path_code,
                name=path_name.strip(),
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
            {"exam_code": "a code of this track was just taken in the catalog; try again"}
        ) from None
    return path


# --- CSV imports ------------------------------------------------------------

MAX_IMPORT_ROWS = 5000
MAX_EVIDENCE_LENGTH = 2000
MAX_COST = 1_000_000
TRUE_WORDS = frozenset({"yes", "y", "true", "1", "pass", "passed"})
FALSE_WORDS = frozenset({"no", "n", "false", "0", "fail", "failed"})


@dataclass(frozen=True)
class RowError:
    """A bad row: its line in the file (the header is line 1), the column and the rule."""

    line: int
    column: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}, {self.column}: {self.message}"


class ImportRefused(Exception):
    """Some rows broke a rule; nothing was imported."""

    def __init__(self, errors: list[RowError]) -> None:
        super().__init__("; ".join(str(e) for e in errors))
        self.errors = errors


class RowProblems(Exception):
    """A row's cells could not be read; maps column to rule."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__(str(errors))
        self.errors = errors


Row = dict[str, str]
Handler = Callable[[Session, Row, dt.date, "Engineer | None"], object]


@dataclass(frozen=True)
class ImportKind:
    """One kind of CSV file: its columns, how a row is imported, and its name."""

    code: str
    label: str
    singular: str
    plural: str
    columns: tuple[str, ...]
    optional: frozenset[str]
    # Service error keys mapped to the file's column names.
    fields: dict[str, str]
    handler: Handler
    help: str

    def summary(self, count: int) -> str:
        return f"{count} {self.singular if count == 1 else self.plural} imported"


@dataclass(frozen=True)
class ImportResult:
    kind: ImportKind
    count: int

    @property
    def summary(self) -> str:
        return self.kind.summary(self.count)


def decode_csv(data: bytes) -> str:
    """Return an uploaded file's text; refuse an empty or non-UTF-8 file."""
    if not data.strip():
        raise ValidationError({"file": "the file is empty; it needs a header line and rows"})
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ValidationError(
            {
                "file": f"the file is not UTF-8 text (line {line} holds a byte that is not "
                "UTF-8); save it as CSV UTF-8 and upload it again"
            }
        ) from None
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise ValidationError(
            {"file": f"the file is not CSV text (line {line} holds a NUL character)"}
        )
    return text


def _cells(row: Row, problems: dict[str, str]) -> Callable[..., object]:
    """Return a reader of typed cells that records each bad cell in `problems`."""

    def cell(column: str, kind: str = "text", required: bool = True, **kw: object) -> object:
        text = row.get(column, "")
        if not text:
            if required:
                problems[column] = f"{column} is required"
            return kw.get("default")
        if kind == "text":
            limit = kw.get("max")
            if limit is not None and len(text) > limit:  # type: ignore[operator]
                problems[column] = f"{column} must be at most {limit} characters"
            return text
        if kind == "date":
            try:
                return dt.date.fromisoformat(text)
            except ValueError:
                problems[column] = f"{column} must be a date written YYYY-MM-DD, not {text!r}"
                return None
        if kind == "int":
            try:
                return int(text)
            except ValueError:
                problems[column] = f"{column} must be a whole number, not {text!r}"
                return None
        if kind == "decimal":
            value = _parse_hours(text)
            if value is None:
                problems[column] = f"{column} must be a number, not {text!r}"
            return value
        if kind == "bool":
            word = text.lower()
            if word in TRUE_WORDS:
                return True
            if word in FALSE_WORDS:
                return False
            problems[column] = f"{column} must be yes or no, not {text!r}"
            return None
        raise AssertionError(kind)

    return cell


def _person_for(session: Session, email: str, problems: dict[str, str]) -> Engineer | None:
    if not email:
        return None
    person = people.find_engineer(session, email)
    if person is None:
        problems["email"] = (
            f"no person with email {email}; import people first (or add them on the People page)"
        )
    return person


def _import_person(session: Session, row: Row, today: dt.date, actor: Engineer | None) -> object:
    problems: dict[str, str] = {}
    cell = _cells(row, problems)
    email = cell("email")
    name = cell("name")
    role = cell("role", required=False, default="engineer")
    roles = [c.strip() for c in row.get("job_roles", "").split(";") if c.strip()]
    _, problem = _resolve_job_roles(session, roles)
    if problem:
        problems["job_roles"] = problem
    if role not in ACCESS_ROLES:
        problems["role"] = f"role must be one of {', '.join(ACCESS_ROLES)}"
    level = cell("level", "int", required=False, default=1)
    if "level" not in problems and (problem := _level_error(session, level)):
        problems["level"] = problem
    team_name = cell("team", required=False)
    team_id = None
    if team_name:
        team = people.find_team(session, team_name)  # type: ignore[arg-type]
        if team is None:
            problems["team"] = f"no team named {team_name!r}; add it on the Teams page first"
        else:
            team_id = team.id
    manager_email = cell("manager_email", required=False)
    manager_id = None
    if manager_email:
        manager = people.find_engineer(session, manager_email)  # type: ignore[arg-type]
        if manager is None:
            problems["manager_email"] = (
                f"no person with email {manager_email}; "
                "put the manager on an earlier line or add them first"
            )
        else:
            manager_id = manager.id
    hired_on = cell("hired_on", "date", required=False)
    experience = cell("experience_months", "int", required=False, default=0)
    if "experience_months" not in problems and (problem := _experience_error(experience)):
        problems["experience_months"] = problem
    password = row.get("password_raw") or None
    if problems:
        raise RowProblems(problems)
    return create_person(
        session,
        actor=actor,
        today=today,
        email=email,  # type: ignore[arg-type]
        name=name,  # type: ignore[arg-type]
        access_role=role,  # type: ignore[arg-type]
        job_roles=roles,
        level=level,  # type: ignore[arg-type]
        team_id=team_id,
        manager_id=manager_id,
        hired_on=hired_on,  # type: ignore[arg-type]
        experience_months=experience,  # type: ignore[arg-type]
        password=password,
    )


def _import_hours(session: Session, row: Row, today: dt.date, actor: Engineer | None) -> object:
    problems: dict[str, str] = {}
    cell = _cells(row, problems)
    engineer = _person_for(session, cell("email"), problems)  # type: ignore[arg-type]
    code = cell("course")
    course = None
    if code:
        course = session.scalars(
            select(Course).where(func.lower(Course.code) == code.lower())  # type: ignore[union-attr]
        ).first()
        if course is None:
            problems["course"] = f"unknown course code {code!r}"
    logged_on = cell("date", "date")
    hours = cell("hours", "decimal")
    note = cell("note", required=False, default="")
    if problems:
        raise RowProblems(problems)
    return log_hours(
        session,
        engineer,  # type: ignore[arg-type]
        course,  # type: ignore[arg-type]
        logged_on,  # type: ignore[arg-type]
        hours,  # type: ignore[arg-type]
        today,
        note=note,  # type: ignore[arg-type]
        actor=actor,
    )


def _exam_for(session: Session, code: str) -> Exam | None:
    return session.scalars(
        select(Exam).join(Exam.credential).where(func.lower(Credential.code) == code.lower())
    ).first()


def _import_attempt(session: Session, row: Row, today: dt.date, actor: Engineer | None) -> object:
    problems: dict[str, str] = {}
    cell = _cells(row, problems)
    engineer = _person_for(session, cell("email"), problems)  # type: ignore[arg-type]
    code = cell("exam")
    exam = None
    if code:
        exam = _exam_for(session, code)  # type: ignore[arg-type]
        if exam is None:
            problems["exam"] = f"unknown exam code {code!r}"
    attempted_on = cell("date", "date")
    score = cell("score", "int")
    if score is not None and not 0 <= score <= 100:  # type: ignore[operator]
        problems["score"] = "score must be a whole number from 0 to 100"
    passed = cell("passed", "bool")
    cost = cell("cost", "decimal", required=False)
    if cost is not None and (
        not 0 <= cost <= MAX_COST  # type: ignore[operator]
        or cost != cost.quantize(Decimal("0.01"))  # type: ignore[union-attr]
    ):
        problems["cost"] = f"cost must be from 0 to {MAX_COST:,}, with at most 2 decimals"
    voucher = cell("voucher_code", required=False, default="", max=80)
    proctoring = cell("proctoring", required=False, default="", max=200)
    if problems:
        raise RowProblems(problems)
    return record_attempt(
        session,
        engineer,  # type: ignore[arg-type]
        exam,  # type: ignore[arg-type]
        attempted_on,  # type: ignore[arg-type]
        score,  # type: ignore[arg-type]
        passed,  # type: ignore[arg-type]
        today,
        recorded_by=actor,
        cost=cost,
        voucher_code=voucher,
        proctoring=proctoring,
    )


def _import_credential(
    session: Session, row: Row, today: dt.date, actor: Engineer | None
) -> object:
    problems: dict[str, str] = {}
    cell = _cells(row, problems)
    engineer = _person_for(session, cell("email"), problems)  # type: ignore[arg-type]
    code = cell("credential")
    credential = None
    if code:
        credential = session.scalars(
            select(Credential).where(func.lower(Credential.code) == code.lower())  # type: ignore[union-attr]
        ).first()
        if credential is None:
            problems["credential"] = f"unknown credential code {code!r}"
    issued_on = cell("issued_on", "date")
    expires_on = cell("expires_on", "date", required=False)
    # Left to record_credential, which says what evidence is, when missing.
    evidence = cell("evidence", required=False, default="", max=MAX_EVIDENCE_LENGTH)
    if problems:
        raise RowProblems(problems)
    return record_credential(
        session,
        engineer,  # type: ignore[arg-type]
        credential,  # type: ignore[arg-type]
        issued_on,  # type: ignore[arg-type]
        today,
        evidence,  # type: ignore[arg-type]
        expires_on=expires_on,  # type: ignore[arg-type]
        recorded_by=actor,
    )


IMPORT_KINDS: dict[str, ImportKind] = {
    kind.code: kind
    for kind in (
        ImportKind(
            code="people",
            label="People",
            singular="person",
            plural="people",
            columns=(
                "email",
                "name",
                "role",
                "job_roles",
                "level",
                "team",
                "manager_email",
                "hired_on",
                "experience_months",
                "password",
            ),
            optional=frozenset({"password"}),
            fields={
                "access_role": "role",
                "manager": "manager_email",
                "team": "team",
                "job_roles": "job_roles",
            },
            handler=_import_person,
            help=(
                "role: engineer, manager or admin (empty: engineer); job_roles separated by ';'; "
                "level 1-5 (empty: 1); team: the name of an existing team; manager_email: a "
                "manager or admin already in the tracker or on an earlier line; password "
                "(optional column, at least 10 characters): without one the person cannot sign "
                "in until it is set."
            ),
        ),
        ImportKind(
            code="hours",
            label="Hour logs",
            singular="hour log",
            plural="hour logs",
            columns=("email", "course", "date", "hours", "note"),
            optional=frozenset({"note"}),
            fields={"logged_on": "date"},
            handler=_import_hours,
            help="course: a course code of the catalog; hours: more than 0, at most 24 a day.",
        ),
        ImportKind(
            code="attempts",
            label="Exam attempts",
            singular="exam attempt",
            plural="exam attempts",
            columns=(
                "email",
                "exam",
                "date",
                "score",
                "passed",
                "cost",
                "voucher_code",
                "proctoring",
            ),
            optional=frozenset({"cost", "voucher_code", "proctoring"}),
            fields={"attempted_on": "date"},
            handler=_import_attempt,
            help=(
                "exam: an exam code; score 0-100; passed: yes or no. Put attempts in date "
                "order: prerequisites and retake waits are checked as each row is read."
            ),
        ),
        ImportKind(
            code="credentials",
            label="External credentials",
            singular="external credential",
            plural="external credentials",
            columns=("email", "credential", "issued_on", "expires_on", "evidence"),
            optional=frozenset({"expires_on"}),
            fields={},
            handler=_import_credential,
            help=(
                "credential: a credential code of the catalog; expires_on may be empty (the "
                "catalog's validity applies); evidence: a certificate number, a link or a note."
            ),
        ),
    )
}


def _read_header(reader: csv.reader, kind: ImportKind) -> list[str]:  # type: ignore[valid-type]
    try:
        header = [h.strip().lower() for h in next(reader)]
    except StopIteration:
        raise ValidationError(
            {"file": "the file is empty; it needs a header line and rows"}
        ) from None
    expected = ",".join(kind.columns)
    problems = []
    duplicates = sorted({h for h in header if header.count(h) > 1})
    if duplicates:
        problems.append(f"column {', '.join(duplicates)} appears twice")
    missing = [c for c in kind.columns if c not in header and c not in kind.optional]
    if missing:
        problems.append(f"missing column {', '.join(missing)}")
    extra = [h for h in header if h not in kind.columns]
    if extra:
        problems.append("unknown column " + ", ".join(repr(h) if h else "(empty)" for h in extra))
    if problems:
        raise ValidationError(
            {
                "file": f"line 1 (header): {'; '.join(problems)}. "
                f"A {kind.label.lower()} file has the columns {expected}"
            }
        )
    return header


def read_rows(text: str, kind: ImportKind) -> list[tuple[int, Row]]:
    """Return the file's rows with their line numbers (the header is line 1); check the header."""
    if not text.strip():
        raise ValidationError({"file": "the file is empty; it needs a header line and rows"})
    reader = csv.reader(io.StringIO(text, newline=""))
    rows: list[tuple[int, Row]] = []
    try:
        header = _read_header(reader, kind)
        last = reader.line_num
        for record in reader:
            line, last = last + 1, reader.line_num
            if not any(cell.strip() for cell in record):
                continue
            if len(record) != len(header):
                row = {"_width": str(len(record)), "_expected": str(len(header))}
            else:
                row = {col: cell.strip() for col, cell in zip(header, record, strict=True)}
                if "password" in row:
                    row["password_raw"] = record[header.index("password")]
            rows.append((line, row))
    except csv.Error as exc:
        raise ValidationError(
            {"file": f"line {reader.line_num}: the file is not readable CSV ({exc})"}
        ) from None
    if not rows:
        raise ValidationError({"file": "the file has a header but no rows to import"})
    if len(rows) > MAX_IMPORT_ROWS:
        raise ValidationError(
            {"file": f"a file holds at most {MAX_IMPORT_ROWS} rows; split it into several files"}
        )
    return rows


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


# --- the outbox -------------------------------------------------------------

OUTBOX_PAGE_SIZE = 50


@dataclass(frozen=True)
class OutboxPage:
    """One page of outbox rows, newest first, and where it sits among the pages."""

    rows: list[Notification]
    total: int
    page: int
    per_page: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))

    @property
    def has_prev(self) -> bool:
        return self.page > 1

    @property
    def has_next(self) -> bool:
        return self.page < self.pages


def outbox(
    session: Session,
    *,
    status: str | None = None,
    kind: str | None = None,
    search: str = "",
    page: int = 1,
    per_page: int = OUTBOX_PAGE_SIZE,
) -> OutboxPage:
    """Return a page of notifications, newest first, filtered by status, kind and text.

    The text matches recipients (to and cc) and subjects, case-insensitively,
    as plain text (% and _ are not wildcards). A page past the end shows the last.
    """
    query = select(Notification)
    if status:
        query = query.where(Notification.status == status)
    if kind:
        query = query.where(Notification.kind == kind)
    search = search.strip()
    if search:
        query = query.where(
            or_(
                Notification.to_addrs.icontains(search, autoescape=True),
                Notification.cc_addrs.icontains(search, autoescape=True),
                Notification.subject.icontains(search, autoescape=True),
            )
        )
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    pages = max(1, -(-total // per_page))
    page = min(max(page, 1), pages)
    rows = session.scalars(
        query.order_by(Notification.created_at.desc(), Notification.id.desc())
        .limit(per_page)
        .offset((page - 1) * per_page)
    ).all()
    return OutboxPage(rows=list(rows), total=total, page=page, per_page=per_page)


def outbox_counts(session: Session) -> dict[str, int]:
    """Return how many notifications are in each status."""
    return dict(
        session.execute(
            select(Notification.status, func.count()).group_by(Notification.status)
        ).all()
    )
