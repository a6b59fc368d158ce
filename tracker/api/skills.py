"""/engineers/ID/skills and /teams/ID/skills: proficiency per speciality, team coverage."""

from __future__ import annotations

from flask import Response

from tracker.api.access import engineer_in_url, managers_only, team_in_url
from tracker.api.auth import caller
from tracker.api.blueprint import bp
from tracker.api.errors import ApiError
from tracker.api.inputs import NoQuery
from tracker.api.openapi import Operation
from tracker.careers.models import SkillAssessment
from tracker.careers.schemas import AssessedOut, CoverageOut, SkillBody, SkillOut, SkillsOut
from tracker.careers.services.skills import (
    assess,
    assessors,
    can_assess,
    current_skills,
    find_speciality,
    skill_history,
    specialities,
    team_coverage,
)
from tracker.catalog.rules import MAX_CODE_LENGTH
from tracker.extensions import db_session
from tracker.i18n import N_, msg
from tracker.people.models import Engineer
from tracker.people.schemas import PersonRef

SKILLS = Operation(
    answers={200: SkillsOut}, query_model=NoQuery, refusals=(403, 404), versioned=True
)
# A proficiency is set against the skills read: PUT takes the ETag of GET /engineers/ID/skills.
PUT_SKILL = Operation(
    answers={200: AssessedOut}, body_model=SkillBody, refusals=(403, 404), versioned=True
)
TEAM_SKILLS = Operation(answers={200: CoverageOut}, query_model=NoQuery, refusals=(403, 404))


@bp.get("/engineers/<int:engineer_id>/skills")
@SKILLS
def skills(engineer_id: int) -> tuple[Response, int]:
    """The current proficiency per speciality (the newest counts) and the history."""
    engineer = engineer_in_url(engineer_id)
    SKILLS.query()
    return SKILLS.answer(_skills_of(engineer))


def _skills_of(engineer: Engineer) -> SkillsOut:
    """Return what GET /engineers/ID/skills says of `engineer`: the version a PUT checks."""
    session = db_session()
    history = skill_history(session, engineer.id)
    people = assessors(session, history)
    current = current_skills(session, [engineer.id])[engineer.id]

    def assessor(row: SkillAssessment) -> Engineer | None:
        return None if row.assessed_by_id is None else people.get(row.assessed_by_id)

    return SkillsOut(
        engineer=PersonRef.of(engineer),
        skills=[
            SkillOut.of(current[s.id], assessor(current[s.id]))
            for s in specialities(session)
            if s.id in current
        ],
        history=[SkillOut.of(r, assessor(r)) for r in history],
    )


@bp.put("/engineers/<int:engineer_id>/skills/<speciality>")
@PUT_SKILL
def put_skill(engineer_id: int, speciality: str) -> tuple[Response, int]:
    """Set a proficiency 0-4: self-assessed by the engineer, confirmed by their manager.

    Sent with the ETag of GET /engineers/ID/skills as If-Match, it is set only while the
    skills are still what was read; the answer's ETag is the skills' new version.
    """
    engineer = engineer_in_url(engineer_id)
    if not can_assess(caller(), engineer):
        raise ApiError(403, {"engineer": N_("you may not assess this engineer's skills")})
    session = db_session()
    # The URL names the speciality as it names the engineer: no such code, no such record.
    found = find_speciality(session, speciality) if len(speciality) <= MAX_CODE_LENGTH else None
    if found is None:
        known = ", ".join(s.code for s in specialities(session))
        shown = speciality[:MAX_CODE_LENGTH]
        raise ApiError(
            404,
            {
                "speciality": msg(
                    "unknown speciality %(code)r (known: %(known)s)", code=shown, known=known
                )
            },
        )
    level = PUT_SKILL.body().level
    # The engineer is held (engineer_in_url): a PUT meanwhile waits, then sees this one's row.
    PUT_SKILL.unchanged_since_read(_skills_of(engineer))
    row = assess(session, engineer, found, level, caller())
    return PUT_SKILL.answer(
        AssessedOut.of_engineer(row, caller(), engineer), record=_skills_of(engineer)
    )


@bp.get("/teams/<int:team_id>/skills")
@TEAM_SKILLS
def team_skills(team_id: int) -> tuple[Response, int]:
    """A team's specialities by people, with `single_points_of_failure` (speciality codes)."""
    managers_only(N_("a team's skills are for managers and admins"))
    team = team_in_url(team_id)
    TEAM_SKILLS.query()
    return TEAM_SKILLS.answer(CoverageOut.of(team_coverage(db_session(), team)))
