"""Persons: adding people, their level, job roles, team, manager, identity and account state.

Plain functions: they take a session and the date they reason about (`today`)
as parameters, never read the clock, and only flush; the request boundary
commits. Every refusal is a ValidationError naming the field and the rule,
raised before anything is written.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from sqlalchemy.orm import Session

from tracker.catalog.models.skills import JobRole
from tracker.errors import ValidationError
from tracker.i18n import N_, msg
from tracker.people.models import Engineer, JobRoleAssignment, LevelChange
from tracker.people.rules import (
    ACCESS_ROLE_RULE,
    ACCESS_ROLES,
    BROWSER_LOCALE,
    ERASED_RULE,
    JOB_ROLES_COUNT_RULE,
    MAX_JOB_ROLES,
    TOTP_REQUIRED_ROLES,
)
from tracker.people.services.access import resolve_manager
from tracker.people.services.accounts import hash_password
from tracker.people.services.checks import (
    experience_error,
    hire_date_error,
    level_error,
    locale_error,
    name_error,
    normalise_email,
)
from tracker.people.services.reads import find_engineer, job_roles
from tracker.people.services.roles import access_role_error, last_admin_error
from tracker.people.services.teams import resolve_team
from tracker.people.services.trail import trail, trail_fields


def resolve_job_roles(session: Session, codes: Iterable[str]) -> tuple[list[JobRole], str | None]:
    """Return the job roles with these codes (each once), or the rule the codes break."""
    codes = list(codes)
    if len(codes) > MAX_JOB_ROLES:
        return [], JOB_ROLES_COUNT_RULE
    known = {r.code: r for r in job_roles(session)}
    wanted: list[JobRole] = []
    for code in codes:
        role = known.get(code)
        if role is None:
            return [], msg(
                "unknown job role %(code)r (known: %(known)s)", code=code, known=", ".join(known)
            )
        if role not in wanted:
            wanted.append(role)
    return wanted, None


def create_person(
    session: Session,
    *,
    email: str,
    name: str,
    today: dt.date,
    actor: Engineer | None = None,
    access_role: str = "engineer",
    job_roles: Iterable[str] = (),
    level: int = 1,
    team_id: int | None = None,
    manager_id: int | None = None,
    hired_on: dt.date | None = None,
    experience_months: int = 0,
    experience_text: str = "",
    password: str | None = None,
    locale: str = BROWSER_LOCALE,
    via: str | None = None,
) -> Engineer:
    """Add a person (and their account); their first level is recorded in the level history.

    Job roles start on the hire date (or today); the first level-history row is
    dated `today` and names `actor`; the account trail records the provisioning
    through `via` (web, api, cli, import, scim). Every broken rule is reported
    at once and nothing is written.
    """
    job_roles = list(job_roles)
    errors: dict[str, str] = {}
    try:
        email = normalise_email(email)
        if find_engineer(session, email) is not None:
            errors["email"] = msg("an engineer with email %(email)s already exists", email=email)
    except ValidationError as exc:
        errors.update(exc.errors)
    if problem := name_error(name):
        errors["name"] = problem
    if access_role not in ACCESS_ROLES:
        errors["access_role"] = ACCESS_ROLE_RULE
    if problem := level_error(session, level):
        errors["level"] = problem
    if problem := experience_error(experience_months):
        errors["experience_months"] = problem
    if problem := hire_date_error(hired_on, today):
        errors["hired_on"] = problem
    if problem := locale_error(locale):
        errors["locale"] = problem
    roles, problem = resolve_job_roles(session, job_roles)
    if problem:
        errors["job_roles"] = problem
    team, problem = resolve_team(session, team_id)
    if problem:
        errors["team"] = problem
    manager, problem = resolve_manager(session, manager_id, None)
    if problem:
        errors["manager"] = problem
    password_hash = None
    if password is not None:
        try:
            password_hash = hash_password(password)
        except ValidationError as exc:
            errors.update(exc.errors)
    if errors:
        raise ValidationError(errors)

    engineer = Engineer(
        email=email,
        name=name.strip(),
        access_role=access_role,
        level=level,
        team=team,
        manager=manager,
        hired_on=hired_on,
        experience_months=experience_months,
        experience_text=experience_text,
        password_hash=password_hash,
        locale=locale,
    )
    session.add(engineer)
    session.flush()
    for role in roles:
        engineer.role_assignments.append(
            JobRoleAssignment(job_role=role, started_on=hired_on or today)
        )
    session.add(
        LevelChange(
            engineer=engineer,
            from_level=None,
            to_level=engineer.level,
            changed_on=today,
            changed_by_id=actor.id if actor else None,
        )
    )
    trail(
        session,
        "provisioned",
        engineer,
        actor,
        via,
        {"access_role": engineer.access_role, "level": engineer.level},
    )
    session.flush()
    return engineer


def set_locale(session: Session, engineer: Engineer, locale: str) -> None:
    """Set the person's interface language (BROWSER_LOCALE: the browser's choice)."""
    if problem := locale_error(locale):
        raise ValidationError({"locale": problem})
    engineer.locale = locale
    session.flush()


def set_weekly_digest(
    session: Session,
    engineer: Engineer,
    on: bool,
    actor: Engineer | None = None,
    *,
    via: str | None = None,
) -> bool:
    """Turn the person's weekly digest on or off; return whether that changed it.

    The account trail records a change by `actor`, through `via` (the profile's
    "web", the API, the digest's own "unsubscribe" link, an "import"); setting
    what is set writes nothing.
    """
    if engineer.weekly_digest == on:
        return False
    change = {"weekly_digest": {"from": engineer.weekly_digest, "to": on}}
    # The trail names no actor for what a person did to their own account, whichever
    # channel they did it through: the rule is kept here, not by each caller.
    if actor is not None and actor.id == engineer.id:
        actor = None
    trail(session, "updated", engineer, actor, via, change)
    engineer.weekly_digest = on
    session.flush()
    return True


def set_level(
    session: Session,
    engineer: Engineer,
    level: int,
    actor: Engineer | None,
    today: dt.date,
    *,
    via: str | None = None,
) -> LevelChange | None:
    """Set a person's level, writing who changed it from what to what on `today`."""
    if problem := level_error(session, level):
        raise ValidationError({"level": problem})
    if engineer.level == level:
        return None
    trail(session, "level_changed", engineer, actor, via, {"from": engineer.level, "to": level})
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
    wanted, problem = resolve_job_roles(session, codes)
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


def set_identity(
    session: Session,
    engineer: Engineer,
    *,
    email: str,
    name: str,
    actor: Engineer | None = None,
    via: str | None = None,
) -> None:
    """Change a person's e-mail address (their sign-in) and name, by create_person's rules."""
    if engineer.erased_at is not None:
        # Their page saves its other fields: the pseudonym and its address stay as they are.
        kept = {"email": engineer.email, "name": engineer.name}
        given = {"email": email.strip().lower(), "name": name.strip()}
        refused: dict[str, str] = {k: ERASED_RULE for k in kept if given[k] != kept[k]}
        if refused:
            raise ValidationError(refused)
        return
    errors: dict[str, str] = {}
    try:
        email = normalise_email(email)
        other = find_engineer(session, email)
        if other is not None and other.id != engineer.id:
            errors["email"] = msg("an engineer with email %(email)s already exists", email=email)
    except ValidationError as exc:
        errors.update(exc.errors)
    if problem := name_error(name):
        errors["name"] = problem
    if errors:
        raise ValidationError(errors)
    before = {"email": engineer.email, "name": engineer.name}
    engineer.email = email
    engineer.name = name.strip()
    after = {"email": engineer.email, "name": engineer.name}
    if after != before:
        changed = {
            key: {"from": before[key], "to": after[key]}
            for key in after
            if after[key] != before[key]
        }
        trail(session, "updated", engineer, actor, via, changed)
    session.flush()


EDITABLE = frozenset(
    {
        "access_role",
        "job_roles",
        "level",
        "team_id",
        "manager_id",
        "hired_on",
        "experience_months",
        "locale",
    }
)


def _hired_on_error(hired_on: object, today: dt.date, first_record: dt.date | None) -> str | None:
    if hired_on is None:
        return None
    if problem := hire_date_error(hired_on, today):
        return problem
    assert isinstance(hired_on, dt.date)  # hire_date_error refuses anything else
    if first_record is not None and hired_on > first_record:
        return msg(
            "hire date must not be after the first recorded hours or exam attempt (%(day)s)",
            day=first_record.isoformat(),
        )
    return None


def update_engineer(
    session: Session,
    engineer: Engineer,
    actor: Engineer | None,
    today: dt.date,
    *,
    first_record: dt.date | None = None,
    via: str | None = None,
    **changes: object,
) -> Engineer:
    """Change a person's role, job roles, level, team, manager, hire date, experience, language.

    `first_record` is the day of the person's first recorded hours or exam
    attempt, which a new hire date must not be after. Someone moved to another
    team who reported to their team's manager reports to the new team's, unless
    the change names another manager. A level change writes a
    LevelChange (from, to, today, actor); job-role changes end and open
    assignments on `today`. The account trail records a role change, a level
    change and the other fields changed, through `via`. All rules are checked
    before anything is written.
    """
    unknown = set(changes) - EDITABLE
    if unknown:
        raise TypeError(f"not editable here: {', '.join(sorted(unknown))}")
    errors: dict[str, str] = {}

    if "access_role" in changes and (
        problem := access_role_error(session, engineer, actor, changes["access_role"])
    ):
        errors["access_role"] = problem
    if "level" in changes and (problem := level_error(session, changes["level"])):
        errors["level"] = problem
    codes: list[str] = []
    if "job_roles" in changes:
        codes = list(changes["job_roles"])  # type: ignore[call-overload]  # a list of codes
        _, problem = resolve_job_roles(session, codes)
        if problem:
            errors["job_roles"] = problem
    team = engineer.team
    if "team_id" in changes:
        team, problem = resolve_team(session, changes["team_id"])  # type: ignore[arg-type]  # an id or None
        if problem:
            errors["team"] = problem
    manager = engineer.manager
    if "manager_id" in changes and changes["manager_id"] != engineer.manager_id:
        manager, problem = resolve_manager(session, changes["manager_id"], engineer)  # type: ignore[arg-type]  # an id or None
        if problem:
            errors["manager"] = problem
    if (
        "hired_on" in changes
        and changes["hired_on"] != engineer.hired_on
        and (problem := _hired_on_error(changes["hired_on"], today, first_record))
    ):
        errors["hired_on"] = problem
    if "experience_months" in changes and (
        problem := experience_error(changes["experience_months"])
    ):
        errors["experience_months"] = problem
    if "locale" in changes and (problem := locale_error(changes["locale"])):
        errors["locale"] = problem
    if errors:
        raise ValidationError(errors)
    moved = team is not None and team.id != engineer.team_id
    manager_kept = changes.get("manager_id", engineer.manager_id) == engineer.manager_id
    if moved and manager_kept and _reports_to_team_manager(engineer):
        # Moved to another team: they report to its manager now, unless the change
        # names someone else (a form sends the manager it showed, unchanged).
        assert team is not None
        if team.manager_id is not None and team.manager_id != engineer.id:
            manager = team.manager
            changes["manager_id"] = team.manager_id

    before = trail_fields(engineer)
    if "access_role" in changes and changes["access_role"] != engineer.access_role:
        trail(
            session,
            "role_changed",
            engineer,
            actor,
            via,
            {"from": engineer.access_role, "to": changes["access_role"]},
        )
        if changes["access_role"] in TOTP_REQUIRED_ROLES:
            # The new role signs in with a second step: a session opened by a
            # password alone ends.
            engineer.session_epoch += 1
        engineer.access_role = changes["access_role"]  # type: ignore[assignment]  # checked above
    if "level" in changes:
        set_level(session, engineer, changes["level"], actor, today, via=via)  # type: ignore[arg-type]  # checked above
    if "job_roles" in changes:
        set_job_roles(session, engineer, codes, today)
    if "team_id" in changes:
        engineer.team = team
    if "manager_id" in changes:
        engineer.manager = manager
    if "hired_on" in changes:
        engineer.hired_on = changes["hired_on"]  # type: ignore[assignment]  # checked above
    if "experience_months" in changes:
        engineer.experience_months = changes["experience_months"]  # type: ignore[assignment]  # checked above
    if "locale" in changes:
        set_locale(session, engineer, changes["locale"])  # type: ignore[arg-type]  # checked above
    after = trail_fields(engineer)
    changed = {k: {"from": before[k], "to": after[k]} for k in before if before[k] != after[k]}
    if changed:
        trail(session, "updated", engineer, actor, via, changed)
    session.flush()
    return engineer


def _reports_to_team_manager(engineer: Engineer) -> bool:
    """Return whether the engineer's manager is their team's (or they have neither)."""
    if engineer.team is None:
        return engineer.manager_id is None
    return engineer.manager_id in (None, engineer.team.manager_id)


def set_active(
    session: Session,
    engineer: Engineer,
    active: bool,
    actor: Engineer | None = None,
    *,
    via: str | None = None,
) -> None:
    """Activate or deactivate an account; deactivation ends its sessions and tokens' use.

    `actor`, when given, may not deactivate their own account.
    """
    if active and engineer.erased_at is not None:
        raise ValidationError({"active": ERASED_RULE})
    if not active and actor is not None and actor.id == engineer.id:
        raise ValidationError({"active": N_("you cannot deactivate your own account")})
    if not active and (problem := last_admin_error(session, engineer)):
        raise ValidationError({"active": problem})
    if engineer.active != active:
        engineer.active = active
        engineer.session_epoch += 1
        trail(session, "reactivated" if active else "deactivated", engineer, actor, via)
        session.flush()
