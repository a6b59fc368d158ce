"""People rules: accounts, teams and job roles."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from email_validator import EmailNotValidError, validate_email
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from werkzeug.security import generate_password_hash

from tracker.catalog.models import JobRole, Level
from tracker.errors import ValidationError
from tracker.people.models import ACCESS_ROLES, Engineer, JobRoleAssignment, Team

MIN_PASSWORD_LENGTH = 10


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
    return generate_password_hash(password, method="scrypt")


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
