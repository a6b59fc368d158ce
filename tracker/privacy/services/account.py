"""A person's account in the file: who they are, roles, levels, tokens, provider accounts."""

from __future__ import annotations

from sqlalchemy.orm import Session, selectinload

from tracker.identity.models import Identity
from tracker.people.models import ApiToken, Engineer, JobRoleAssignment, LevelChange
from tracker.people.services.totp import is_enrolled, recovery_codes_left
from tracker.privacy.services.values import Json, day, moment, names_of, person_ref, rows_of


def person(session: Session, engineer: Engineer) -> Json:
    """Return the account: what the person's record says, no secret of it."""
    team = engineer.team
    return {
        "id": engineer.id,
        "name": engineer.name,
        "email": engineer.email,
        "access_role": engineer.access_role,
        "level": engineer.level,
        "team": None if team is None else {"id": team.id, "name": team.name},
        "manager": person_ref(engineer.manager_id, names_of(session, [engineer.manager_id])),
        "hired_on": day(engineer.hired_on),
        "experience_months": engineer.experience_months,
        "experience_text": engineer.experience_text,
        "active": engineer.active,
        "locale": engineer.locale,
        "weekly_digest": engineer.weekly_digest,
        "two_step_sign_in": is_enrolled(engineer),
        "recovery_codes_left": recovery_codes_left(session, engineer)
        if is_enrolled(engineer)
        else 0,
        # Whether a calendar feed is on: its address is a secret, even from its owner's file.
        "calendar_feed": engineer.calendar_token is not None,
        "created_at": moment(engineer.created_at),
        "updated_at": moment(engineer.updated_at),
    }


def job_roles(session: Session, engineer: Engineer) -> list[Json]:
    """Return the job roles the person held and holds, the oldest first."""
    rows = rows_of(
        session,
        JobRoleAssignment,
        JobRoleAssignment.engineer_id == engineer.id,
        JobRoleAssignment.started_on,
        selectinload(JobRoleAssignment.job_role),
    )
    return [
        {
            "id": row.id,
            "job_role": {"code": row.job_role.code, "name": row.job_role.name},
            "started_on": day(row.started_on),
            "ended_on": day(row.ended_on),
        }
        for row in rows
    ]


def level_changes(session: Session, engineer: Engineer) -> list[Json]:
    """Return the person's level changes, the oldest first, each with who set it."""
    rows = rows_of(
        session, LevelChange, LevelChange.engineer_id == engineer.id, LevelChange.changed_on
    )
    names = names_of(session, (row.changed_by_id for row in rows))
    return [
        {
            "id": row.id,
            "changed_on": day(row.changed_on),
            "from_level": row.from_level,
            "to_level": row.to_level,
            "changed_by": person_ref(row.changed_by_id, names),
            "recorded_at": moment(row.created_at),
        }
        for row in rows
    ]


def api_tokens(session: Session, engineer: Engineer) -> list[Json]:
    """Return the person's API tokens: names, scopes and dates, never the token or its hash."""
    rows = rows_of(session, ApiToken, ApiToken.engineer_id == engineer.id, ApiToken.created_at)
    return [
        {
            "id": row.id,
            "name": row.name,
            "scope": row.scope,
            "created_at": moment(row.created_at),
            "last_used_at": moment(row.last_used_at),
            "expires_on": day(row.expires_on),
            "revoked_at": moment(row.revoked_at),
        }
        for row in rows
    ]


def identities(session: Session, engineer: Engineer) -> list[Json]:
    """Return the person's linked single sign-on accounts: provider (issuer) and subject."""
    rows = rows_of(session, Identity, Identity.engineer_id == engineer.id, Identity.created_at)
    return [
        {
            "id": row.id,
            "issuer": row.issuer,
            "subject": row.subject,
            "email": row.email,
            "linked_at": moment(row.created_at),
            "last_sign_in_at": moment(row.last_sign_in_at),
        }
        for row in rows
    ]
