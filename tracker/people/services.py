"""People rules: accounts, teams and job roles."""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from collections.abc import Iterable

from email_validator import EmailNotValidError, validate_email
from sqlalchemy import func, select
from sqlalchemy.orm import Session, joinedload
from werkzeug.security import check_password_hash, generate_password_hash

from tracker.catalog.models import JobRole, Level
from tracker.errors import ValidationError
from tracker.people.models import ACCESS_ROLES, ApiToken, Engineer, JobRoleAssignment, Team

MIN_PASSWORD_LENGTH = 10
# A memory-hard key-derivation function; the test suite swaps in a cheap one.
PASSWORD_METHOD = "scrypt"


def normalise_email(email: str) -> str:
    """Return the email in the stored form (validated, lower-cased), or raise."""
    try:
        return validate_email(email.strip(), check_deliverability=False).normalized.lower()
    except EmailNotValidError as exc:
        raise ValidationError({"email": f"not a valid email address: {exc}"}) from None


def hash_password(password: str) -> str:
    """Return a salted scrypt hash of the password."""
    if len(password) < MIN_PASSWORD_LENGTH:
        raise ValidationError(
            {"password": f"password must be at least {MIN_PASSWORD_LENGTH} characters"}
        )
    return generate_password_hash(password, method=PASSWORD_METHOD)


def find_engineer(session: Session, email: str) -> Engineer | None:
    """Return the engineer with this email (case-insensitive), if any."""
    return session.scalars(
        select(Engineer).where(Engineer.email == email.strip().lower())
    ).one_or_none()


def find_team(session: Session, name: str) -> Team | None:
    """Return the team with this name (case-insensitive), if any."""
    return session.scalars(
        select(Team).where(func.lower(Team.name) == name.strip().lower())
    ).one_or_none()


def create_team(session: Session, name: str, gpus: int, manager: Engineer | None = None) -> Team:
    """Create a team responsible for `gpus` GPUs."""
    errors: dict[str, str] = {}
    if not name.strip() or len(name.strip()) > 120:
        errors["name"] = "name must be 1 to 120 characters"
    elif find_team(session, name) is not None:
        errors["name"] = f"a team named {name.strip()!r} already exists"
    if isinstance(gpus, bool) or not isinstance(gpus, int) or gpus < 0:
        errors["gpus"] = "fleet size must be a whole number of GPUs, 0 or more"
    if errors:
        raise ValidationError(errors)
    team = Team(name=name.strip(), gpus=gpus, manager=manager)
    session.add(team)
    session.flush()
    return team


def create_engineer(
    session: Session,
    *,
    email: str,
    name: str,
    today: dt.date,
    access_role: str = "engineer",
    job_roles: Iterable[str] = (),
    level: int = 1,
    team: Team | None = None,
    manager: Engineer | None = None,
    hired_on: dt.date | None = None,
    experience_months: int = 0,
    experience_text: str = "",
    password: str | None = None,
) -> Engineer:
    """Create an engineer (and their account); job roles start on the hire date or today."""
    errors: dict[str, str] = {}
    try:
        email = normalise_email(email)
        if find_engineer(session, email) is not None:
            errors["email"] = f"an engineer with email {email} already exists"
    except ValidationError as exc:
        errors.update(exc.errors)
    if not name.strip() or len(name.strip()) > 120:
        errors["name"] = "name must be 1 to 120 characters"
    if access_role not in ACCESS_ROLES:
        errors["access_role"] = f"role must be one of {', '.join(ACCESS_ROLES)}"
    if session.get(Level, level) is None:
        errors["level"] = "level must be from 1 to 5"
    if isinstance(experience_months, bool) or experience_months < 0:
        errors["experience_months"] = "experience must be 0 months or more"
    if hired_on is not None and hired_on > today:
        errors["hired_on"] = "hire date must not be in the future"
    roles = []
    for code in job_roles:
        role = session.scalars(select(JobRole).where(JobRole.code == code)).one_or_none()
        if role is None:
            known = ", ".join(session.scalars(select(JobRole.code).order_by(JobRole.code)))
            errors["job_roles"] = f"unknown job role {code!r} (known: {known})"
        else:
            roles.append(role)
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
    )
    session.add(engineer)
    session.flush()
    for role in roles:
        engineer.role_assignments.append(
            JobRoleAssignment(job_role=role, started_on=hired_on or today)
        )
    session.flush()
    return engineer


# --- permissions ------------------------------------------------------------


def manages(actor: Engineer, engineer: Engineer) -> bool:
    """Return whether `engineer` reports to `actor`, directly or through a team they manage."""
    if engineer.manager_id == actor.id:
        return True
    return engineer.team is not None and engineer.team.manager_id == actor.id


def can_view(actor: Engineer, engineer: Engineer) -> bool:
    """Return whether `actor` may read `engineer`'s records."""
    if not actor.active:
        return False
    if actor.id == engineer.id or actor.access_role == "admin":
        return True
    return actor.access_role == "manager" and manages(actor, engineer)


def can_record_results(actor: Engineer, engineer: Engineer) -> bool:
    """Return whether `actor` may record exam attempts and credentials for `engineer`."""
    return can_view(actor, engineer)


def can_log_hours(actor: Engineer, engineer: Engineer) -> bool:
    """Return whether `actor` may log, edit or delete `engineer`'s hours (owner or admin)."""
    return actor.active and (actor.id == engineer.id or actor.access_role == "admin")


def visible_engineers(session: Session, actor: Engineer) -> list[Engineer]:
    """Return the people whose records `actor` may read, by name."""
    if not actor.active:
        return []
    query = select(Engineer).order_by(Engineer.name)
    if actor.access_role == "admin":
        return list(session.scalars(query))
    if actor.access_role == "manager":
        managed_teams = select(Team.id).where(Team.manager_id == actor.id)
        query = query.where(
            (Engineer.id == actor.id)
            | (Engineer.manager_id == actor.id)
            | Engineer.team_id.in_(managed_teams)
        )
        return list(session.scalars(query))
    return [actor]


# --- accounts, passwords and tokens -----------------------------------------


def verify_password(engineer: Engineer | None, password: str) -> bool:
    """Check a password; spend the same time whether or not the account exists."""
    if engineer is None or not engineer.password_hash:
        check_password_hash(_DUMMY_HASH, password)
        return False
    return check_password_hash(engineer.password_hash, password)


def authenticate(session: Session, email: str, password: str) -> Engineer | None:
    """Return the active engineer with this email and password, or None (never says which)."""
    engineer = find_engineer(session, email)
    if not verify_password(engineer, password) or engineer is None or not engineer.active:
        return None
    return engineer


def set_password(session: Session, engineer: Engineer, password: str) -> None:
    """Set a new password and end every session signed in with the old one."""
    engineer.password_hash = hash_password(password)
    engineer.session_epoch += 1
    session.flush()


def set_active(session: Session, engineer: Engineer, active: bool) -> None:
    """Activate or deactivate an account; deactivation ends its sessions and tokens' use."""
    if engineer.active != active:
        engineer.active = active
        engineer.session_epoch += 1
        session.flush()


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create_token(session: Session, engineer: Engineer, name: str = "") -> tuple[ApiToken, str]:
    """Create an API token; return it with its secret, which is shown once and stored hashed."""
    secret = "trk_" + secrets.token_urlsafe(32)
    token = ApiToken(engineer=engineer, name=name.strip()[:120], token_hash=_token_hash(secret))
    session.add(token)
    session.flush()
    return token, secret


# A token's last use is recorded to the minute: writing it on every call
# would add an UPDATE to every API request.
TOKEN_USE_PRECISION = dt.timedelta(minutes=1)


def engineer_for_token(session: Session, secret: str, now: dt.datetime) -> Engineer | None:
    """Return the active engineer a live token belongs to, recording its use."""
    token = session.scalars(
        select(ApiToken)
        .where(ApiToken.token_hash == _token_hash(secret))
        .options(joinedload(ApiToken.engineer))
    ).one_or_none()
    if token is None or token.revoked_at is not None or not token.engineer.active:
        return None
    if token.last_used_at is None or not (now - TOKEN_USE_PRECISION < token.last_used_at <= now):
        token.last_used_at = now
    return token.engineer


def revoke_token(session: Session, token: ApiToken, now: dt.datetime) -> None:
    """Revoke a token; it stops working at once."""
    if token.revoked_at is None:
        token.revoked_at = now
        session.flush()


_DUMMY_HASH = generate_password_hash("not a real password", method="scrypt")
