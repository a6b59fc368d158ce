"""/me and /engineers: accounts (added by admins, settings changed), progress, career, evidence."""

from __future__ import annotations

from flask import Response, url_for

from tracker.api.access import engineer_in_url
from tracker.api.auth import caller
from tracker.api.blueprint import bp
from tracker.api.errors import ApiError, rename
from tracker.api.inputs import NoQuery
from tracker.api.openapi import Operation
from tracker.careers.rules import OWN_LEVEL_RULE
from tracker.careers.schemas import CareerOut, EvidenceBody, EvidenceOut, LevelBody, OnQuery
from tracker.careers.services.evidence import record_evidence
from tracker.careers.services.ladder import can_manage, career, change_level
from tracker.clock import today
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.i18n import N_
from tracker.people.schemas import EngineerBody, EngineerChangeBody, EngineerOut, MeOut
from tracker.people.services.persons import create_person, set_locale, set_weekly_digest
from tracker.progress.schemas import OverviewOut
from tracker.progress.services.overview import overview
from tracker.progress.services.validity import experience_months
from tracker.web.language import current_locale

# The caller's id, for the calls about a person.
ME = Operation(
    answers={200: MeOut}, query_model=NoQuery, gives={"engineer_id": "/id", "engineer": "/id"}
)
ENGINEER = Operation(
    answers={200: EngineerOut}, query_model=NoQuery, refusals=(403, 404), versioned=True
)
ADD_ENGINEER = Operation(
    answers={201: EngineerOut},
    body_model=EngineerBody,
    refusals=(403,),
    headers={"Location": "the new engineer's URL"},
    gives={"engineer_id": "/id", "engineer": "/id"},
)
CHANGE_ENGINEER = Operation(
    answers={200: EngineerOut}, body_model=EngineerChangeBody, refusals=(403, 404), versioned=True
)
ADMINS_ADD = N_("only an admin may add people")
OWN_SETTINGS = N_("only the person themselves or an admin may change their settings")
# The services name the team and the manager; the API's fields are their ids.
ENGINEER_NAMES = {"team": "team_id", "manager": "manager_id"}
PROGRESS = Operation(answers={200: OverviewOut}, query_model=NoQuery, refusals=(403, 404))
# A level is set against the career as of today: PUT /level takes the ETag of GET /career.
CAREER = Operation(
    answers={200: CareerOut}, query_model=OnQuery, refusals=(403, 404), versioned=True
)
SET_LEVEL = Operation(
    answers={200: CareerOut}, body_model=LevelBody, refusals=(403, 404), versioned=True
)
RECORD_EVIDENCE = Operation(
    answers={201: EvidenceOut}, body_model=EvidenceBody, refusals=(403, 404)
)


@bp.get("/me")
@ME
def me() -> tuple[Response, int]:
    """The caller's account."""
    ME.query()
    engineer = caller()
    return ME.answer(MeOut.of_on(engineer, experience_months(engineer, today())))


@bp.get("/engineers/<int:engineer_id>", endpoint="engineer")
@ENGINEER
def get_engineer(engineer_id: int) -> tuple[Response, int]:
    """An engineer's account (themselves, their managers and admins)."""
    ENGINEER.query()
    return ENGINEER.answer(EngineerOut.of(engineer_in_url(engineer_id)))


@bp.post("/engineers", endpoint="add_engineer")
@ADD_ENGINEER
def post_engineer() -> tuple[Response, int]:
    """Add a person and their account (admins): email, name, role, level, team, locale, digest..."""
    if caller().access_role != "admin":
        raise ApiError(403, {"engineer": ADMINS_ADD})
    body = ADD_ENGINEER.body()
    session = db_session()
    try:
        engineer = create_person(
            session,
            actor=caller(),
            today=today(),
            email=body.email,
            name=body.name,
            access_role=body.access_role,
            job_roles=body.job_roles,
            level=body.level,
            team_id=body.team_id,
            manager_id=body.manager_id,
            hired_on=body.hired_on,
            experience_months=body.experience_months,
            password=body.password,
            locale=body.locale,
            via="api",
        )
    except ValidationError as exc:
        raise ApiError(400, rename(exc.errors, ENGINEER_NAMES)) from None
    if not body.weekly_digest:
        # Turned off as the person would turn it off: the account trail says so.
        set_weekly_digest(session, engineer, False, caller(), via="api")
    return ADD_ENGINEER.answer(
        EngineerOut.of(engineer), 201, url_for("api.engineer", engineer_id=engineer.id)
    )


@bp.patch("/engineers/<int:engineer_id>", endpoint="change_engineer")
@CHANGE_ENGINEER
def patch_engineer(engineer_id: int) -> tuple[Response, int]:
    """Change a person's settings (`locale`, `weekly_digest`): the person themselves or an admin.

    A setting left out stays as it is. Turning the weekly digest on or off is noted in
    the account trail, as on the profile.
    """
    engineer = engineer_in_url(engineer_id)
    me = caller()
    if me.id != engineer.id and me.access_role != "admin":
        raise ApiError(403, {"engineer": OWN_SETTINGS})
    body = CHANGE_ENGINEER.body()
    CHANGE_ENGINEER.unchanged_since_read(EngineerOut.of(engineer))
    session = db_session()
    try:
        if body.locale is not None:
            set_locale(session, engineer, body.locale)
    except ValidationError as exc:
        raise ApiError(400, exc.errors) from None
    if body.weekly_digest is not None:
        set_weekly_digest(session, engineer, body.weekly_digest, me, via="api")
    return CHANGE_ENGINEER.answer(EngineerOut.of(engineer))


@bp.get("/engineers/<int:engineer_id>/progress")
@PROGRESS
def progress(engineer_id: int) -> tuple[Response, int]:
    """Paths with percent, courses with hours, exam readiness, certifications, next steps."""
    PROGRESS.query()
    engineer = engineer_in_url(engineer_id)
    # The reasons and next steps are words: in the request's language, as the API's messages.
    return PROGRESS.answer(
        OverviewOut.of(overview(db_session(), engineer, today()), current_locale())
    )


@bp.get("/engineers/<int:engineer_id>/career", endpoint="career")
@CAREER
def get_career(engineer_id: int) -> tuple[Response, int]:
    """Level, experience, next level, whether its rule is met on ?on= (default today), lacks."""
    engineer = engineer_in_url(engineer_id)
    on = CAREER.query().on or today()
    # What they lack is words: in the request's language, as the API's messages.
    return CAREER.answer(CareerOut.of(career(db_session(), engineer, on), current_locale()))


@bp.put("/engineers/<int:engineer_id>/level", endpoint="set_level")
@SET_LEVEL
def put_level(engineer_id: int) -> tuple[Response, int]:
    """Set a report's level (their manager or an admin); the history keeps who, when, from, to."""
    engineer = engineer_in_url(engineer_id)
    if caller().id == engineer.id:
        raise ApiError(403, {"engineer": OWN_LEVEL_RULE})
    if not can_manage(caller(), engineer):
        raise ApiError(
            403, {"engineer": N_("only this engineer's manager or an admin sets the level")}
        )
    level = SET_LEVEL.body().level
    # The version read is of the answer in its reader's language (versions.etag).
    locale = current_locale()
    SET_LEVEL.unchanged_since_read(CareerOut.of(career(db_session(), engineer, today()), locale))
    change_level(db_session(), engineer, level, caller(), today(), via="api")
    return SET_LEVEL.answer(CareerOut.of(career(db_session(), engineer, today()), locale))


@bp.post("/engineers/<int:engineer_id>/evidence", endpoint="record_evidence")
@RECORD_EVIDENCE
def post_evidence(engineer_id: int) -> tuple[Response, int]:
    """Record a patent, publication or deployment led (`kind`, `title`, `date`, `note`)."""
    engineer = engineer_in_url(engineer_id)
    evidence = RECORD_EVIDENCE.body()
    try:
        entry = record_evidence(
            db_session(),
            engineer,
            evidence.kind,
            evidence.title,
            evidence.date,
            today(),
            evidence.note,
        )
    except ValidationError as exc:
        raise ApiError(400, rename(exc.errors, {"occurred_on": "date"})) from None
    return RECORD_EVIDENCE.answer(EvidenceOut.of(entry), 201)
