"""Importing a people file's row: a person, through the one create_person."""

from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import Session

from tracker.i18n import msg
from tracker.imports.schemas import PersonRow, Row, read_row, split_codes
from tracker.imports.services.kinds import refuse_if
from tracker.people.models import Engineer
from tracker.people.services.checks import level_error
from tracker.people.services.persons import create_person, resolve_job_roles, set_weekly_digest
from tracker.people.services.reads import find_engineer
from tracker.people.services.teams import find_team

COLUMNS = tuple(PersonRow.model_fields)


def person_for(session: Session, email: str, problems: dict[str, str]) -> Engineer | None:
    """Return the person whose records a row changes, or put why not in `problems`."""
    if not email:
        return None
    # Held until the import commits, as a page or the API holds what it changes: a
    # row is checked against the person's row (hire date, experience), so a change
    # to it made meanwhile is waited for and read, never checked against the old one.
    person = find_engineer(session, email, for_change=True)
    if person is None:
        problems["email"] = msg(
            "no person with email %(email)s; import people first (or add them on the People page)",
            email=email,
        )
    return person


def import_person(session: Session, row: Row, today: dt.date, actor: Engineer | None) -> object:
    """Add the person a row describes; their manager may be on an earlier line."""
    problems: dict[str, str] = {}
    cells = read_row(PersonRow, row, problems, password=row.get("password_raw", ""))
    _, problem = resolve_job_roles(session, split_codes(row.get("job_roles", "")))
    if problem:
        problems["job_roles"] = problem
    team_id = None
    if team_name := row.get("team", ""):
        team = find_team(session, team_name)
        if team is None:
            problems["team"] = msg(
                "no team named %(name)r; add it on the Teams page first", name=team_name
            )
        else:
            team_id = team.id
    manager_id = None
    if manager_email := row.get("manager_email", ""):
        manager = find_engineer(session, manager_email)
        if manager is None:
            problems["manager_email"] = msg(
                "no person with email %(email)s; "
                "put the manager on an earlier line or add them first",
                email=manager_email,
            )
        else:
            manager_id = manager.id
    if cells is not None and (problem := level_error(session, cells.level)):
        problems["level"] = problem
    refuse_if(problems, COLUMNS)
    assert cells is not None
    person = create_person(
        session,
        actor=actor,
        today=today,
        email=cells.email,
        name=cells.name,
        access_role=cells.role,
        job_roles=cells.job_roles,
        level=cells.level,
        team_id=team_id,
        manager_id=manager_id,
        hired_on=cells.hired_on,
        experience_months=cells.experience_months,
        password=cells.password,
        locale=cells.locale,
        via="import",
    )
    if not cells.weekly_digest:
        # Turned off as the person would turn it off: the account trail says so.
        set_weekly_digest(session, person, False, actor, via="import")
    return person
