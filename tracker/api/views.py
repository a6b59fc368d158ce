"""The JSON API under /api/v1, for scripts and HR systems.

Authenticated only by `Authorization: Bearer TOKEN` (no cookies, so no CSRF).
Views are thin: read the input, check the permission, call the service,
write the answer. Every refusal is `{"errors": {field: message}}`: 400 for bad
input (nothing is stored), 401 without a live token, 403 for another
person's records without the right, 404 for an unknown id in the URL, 413 for
a body over MAX_CONTENT_LENGTH and 415 for a body that is not JSON.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

from flask import Blueprint, Response, g, jsonify, request, url_for
from sqlalchemy import func, select
from sqlalchemy.orm import selectinload
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from tracker import web
from tracker.api.schemas import (
    ApiError,
    Reader,
    attempt_json,
    career_json,
    certification_json,
    coverage_json,
    engineer_json,
    evidence_json,
    forecast_json,
    hour_log_json,
    ledger_json,
    logged_hours_json,
    overview_json,
    parse_json_object,
    person_ref,
    read_date,
    read_query_int,
    readiness_json,
    rename,
    roi_json,
    skill_json,
    team_json,
)
from tracker.api.tokens import caller_for_token, log_own_hours
from tracker.careers import services as careers
from tracker.catalog.models import Course, Credential, Exam, RoiLine
from tracker.db import utcnow
from tracker.errors import ValidationError
from tracker.extensions import csrf, db_session, single_statements
from tracker.people.models import Engineer, Team
from tracker.people.services.access import (
    can_log_hours,
    can_record_results,
    can_view,
    visible_engineers,
)
from tracker.progress import services
from tracker.progress.models import Certification, HourLog
from tracker.readiness import services as readiness_services

bp = Blueprint("api", __name__, url_prefix="/api/v1")
csrf.exempt(bp)

MAX_COST = Decimal(1_000_000)
MAX_DETAIL_LENGTHS = {"voucher_code": 80, "proctoring": 200, "note": services.MAX_NOTE_LENGTH}
MAX_EVIDENCE_LENGTH = 2000
MAX_EXPIRING_WITHIN = 36_500
STATUSES = ("valid", "expiring", "expired")


# --- the boundary: tokens, errors, bodies ------------------------------------


@bp.errorhandler(ApiError)
def api_error(exc: ApiError):
    response = jsonify({"errors": exc.errors})
    response.headers.update(exc.headers)
    return response, exc.status


@bp.errorhandler(ValidationError)
def validation_error(exc: ValidationError):
    # Views rename the fields a service names; this catches any they do not.
    return jsonify({"errors": exc.errors}), 400


@bp.before_request
def authenticate() -> None:
    """Identify the caller by their bearer token, or answer 401.

    POST /hours looks the token up itself, in the statement that locks the
    engineer (log_hours); until then the secret waits in g.api_secret.
    """
    scheme, _, secret = request.headers.get("Authorization", "").strip().partition(" ")
    secret = secret.strip()
    if scheme.lower() != "bearer" or not secret:
        raise ApiError(
            401,
            {"token": "send an API token in the header Authorization: Bearer TOKEN"},
            {"WWW-Authenticate": 'Bearer realm="tracker"'},
        )
    if len(secret) > 200:
        raise _invalid_token()
    if request.endpoint == "api.log_hours" and request.method == "POST":
        g.api_secret = secret
        return
    _authenticate(secret)


def _authenticate(secret: str) -> None:
    found = caller_for_token(db_session(), secret, utcnow())
    if found is None:
        raise _invalid_token()
    g.api_caller = found


def _authenticate_deferred() -> None:
    """Look up the token authenticate() left for later, if it has not been yet."""
    secret = g.pop("api_secret", None)
    if secret is not None:
        _authenticate(secret)


@contextmanager
def _token_first() -> Iterator[None]:
    """Answer a token that is not live with 401 before refusing the request otherwise."""
    try:
        yield
    except (ApiError, HTTPException):
        _authenticate_deferred()
        raise


def _invalid_token() -> ApiError:
    return ApiError(
        401,
        {"token": "the token is not valid: unknown, revoked, or its account is deactivated"},
        {"WWW-Authenticate": 'Bearer realm="tracker", error="invalid_token"'},
    )


def caller() -> Engineer:
    """The caller's account, loaded on first use (authentication reads only a few columns)."""
    engineer = g.get("api_user")
    if engineer is None:
        engineer = db_session().get(Engineer, g.api_caller.id)
        if engineer is None:  # deleted since its token was checked
            raise _invalid_token()
        g.api_user = engineer
    return engineer


def json_body(allowed: Iterable[str]) -> dict[str, Any]:
    """Return the request's JSON object, refusing other content types and unknown fields."""
    if not request.is_json:
        raise ApiError(
            415, {"request": "send the body as JSON with Content-Type: application/json"}
        )
    # Werkzeug answers 413 when Content-Length passes MAX_CONTENT_LENGTH; a
    # chunked body (no Content-Length) is instead cut at the limit, so a body
    # that fills it is refused here rather than parsed truncated.
    raw = request.get_data(cache=False)
    limit = request.max_content_length
    if request.content_length is None and limit is not None and len(raw) >= limit:
        raise RequestEntityTooLarge()
    return parse_json_object(raw, allowed)


def query(allowed: Iterable[str]) -> dict[str, str]:
    """Return the query parameters that have a value; unknown ones are a 400."""
    unknown = sorted(set(request.args) - set(allowed))
    if unknown:
        known = ", ".join(sorted(allowed))
        raise ApiError(400, dict.fromkeys(unknown, f"unknown parameter (known: {known})"))
    return {key: value for key, value in request.args.items() if value.strip()}


def _get(model: type, record_id: int | None) -> Any:
    if record_id is None or not 1 <= record_id < 2**31:
        return None
    return db_session().get(model, record_id)


def engineer_in_url(engineer_id: int) -> Engineer:
    """Return the engineer the URL names when the caller may see their records."""
    engineer = _get(Engineer, engineer_id)
    if engineer is None:
        raise ApiError(404, {"engineer": f"no engineer with id {engineer_id}"})
    if not can_view(caller(), engineer):
        raise ApiError(403, {"engineer": "you may not see this engineer's records"})
    return engineer


def engineer_in_query(params: dict[str, str]) -> Engineer:
    """Return the engineer of ?engineer=ID (the caller when absent)."""
    if "engineer" not in params:
        return caller()
    engineer_id = read_query_int(params["engineer"])
    if engineer_id is None:
        raise ApiError(400, {"engineer": "must be a whole number (an engineer's id)"})
    return engineer_in_url(engineer_id)


def engineer_in_body(
    data: dict[str, Any], allowed: Callable[[Engineer, Engineer], bool], action: str
) -> Engineer:
    """Return the engineer a write is for: `engineer` in the body, else the caller."""
    if data.get("engineer") is None:
        engineer = caller()
    else:
        reader = Reader(data)
        engineer_id = reader.id("engineer")
        reader.check()
        engineer = _get(Engineer, engineer_id)
        if engineer is None:
            raise ApiError(400, {"engineer": f"no engineer with id {engineer_id}"})
    if not allowed(caller(), engineer):
        raise ApiError(403, {"engineer": f"you may not {action} for this engineer"})
    return engineer


def created(payload: dict[str, Any], location: str | None = None) -> tuple[Response, int]:
    response = jsonify(payload)
    if location:
        response.headers["Location"] = location
    return response, 201


# --- who am I, progress --------------------------------------------------------


@bp.get("/me")
def me():
    """The caller's account."""
    query(())
    engineer = caller()
    return jsonify(
        {
            **engineer_json(engineer),
            "experience_months": services.experience_months(engineer, web.today()),
        }
    )


@bp.get("/engineers/<int:engineer_id>/progress")
def progress(engineer_id: int):
    """Paths with percent, courses with hours, exam readiness, certifications, next steps."""
    query(())
    engineer = engineer_in_url(engineer_id)
    return jsonify(overview_json(services.overview(db_session(), engineer, web.today())))


# --- hours ----------------------------------------------------------------------

HOURS_FIELDS = ("course", "course_id", "date", "hours", "note")
HOURS_NAMES = {"logged_on": "date"}


def _read_hours_input(
    data: dict[str, Any],
) -> tuple[str | None, int | None, Any, Any, str, Reader]:
    """Read course (code or id), date, hours and note; the reader holds the errors.

    The course is not looked up here: logging hours finds it in the statement
    that writes the entry (services.add_hours, tokens.log_own_hours);
    _read_hours looks it up.
    """
    reader = Reader(data)
    code = course_id = None
    if reader.has("course") and reader.has("course_id"):
        reader.errors["course"] = "give the course by code or by course_id, not both"
    elif reader.has("course_id"):
        course_id = reader.id("course_id")
    elif reader.has("course"):
        code = reader.code("course")
    else:
        reader.errors["course"] = "this field is required (a course code, or give course_id)"
    logged_on = reader.date("date")
    hours = reader.number("hours")
    note = reader.text("note", services.MAX_NOTE_LENGTH)
    return code, course_id, logged_on, hours, note, reader


def _read_hours(data: dict[str, Any]) -> tuple[Course | None, Any, Any, str, Reader]:
    """Read course (by code or id), date, hours and note, and find the course."""
    code, course_id, logged_on, hours, note, reader = _read_hours_input(data)
    course = None
    if course_id is not None:
        course = _get(Course, course_id)
        if course is None:
            reader.errors["course_id"] = f"no course with id {course_id}"
    elif code is not None:
        course = (
            db_session()
            .scalars(select(Course).where(func.upper(Course.code) == code.upper()))
            .one_or_none()
        )
        if course is None:
            reader.errors["course"] = f"unknown course code {code!r}"
    return course, logged_on, hours, note, reader


@bp.get("/hours")
def list_hours():
    """The caller's hour log (or, with ?engineer=ID, a person the caller may see)."""
    engineer = engineer_in_query(query(("engineer",)))
    entries = db_session().scalars(
        select(HourLog)
        .where(HourLog.engineer_id == engineer.id)
        .options(selectinload(HourLog.course), selectinload(HourLog.engineer))
        .order_by(HourLog.logged_on.desc(), HourLog.id.desc())
    )
    return jsonify(
        {"engineer": person_ref(engineer), "entries": [hour_log_json(e) for e in entries]}
    )


@bp.post("/hours")
def log_hours():
    """Log hours on a course: course or course_id, date, hours, note; engineer for an admin."""
    with _token_first():
        data = json_body((*HOURS_FIELDS, "engineer"))
    if data.get("engineer") is not None:
        # An admin may name someone else: the token first, then the engineer.
        _authenticate_deferred()
        engineer = engineer_in_body(data, can_log_hours, "log hours")
    with _token_first(), _hours_errors():
        code, course_id, logged_on, hours, note, reader = _read_hours_input(data)
        reader.check()
        # All but the hire date, which comes with the token (log_own_hours).
        services.check_hours(None, logged_on, hours, web.today(), note)
    with _hours_errors():
        if data.get("engineer") is not None:
            entry = services.add_hours(
                db_session(),
                engineer.id,
                engineer.hired_on,
                logged_on,
                hours,
                web.today(),
                note,
                actor_id=g.api_caller.id,
                course_code=code,
                course_id=course_id,
            )
        else:
            # Hours are mostly logged by their owner: on PostgreSQL one
            # statement finds the token and writes the entry (issue 6).
            logged = log_own_hours(
                db_session,
                single_statements(),
                g.pop("api_secret"),
                utcnow(),
                code,
                course_id,
                logged_on,
                hours,
                note,
                web.today(),
            )
            if logged is None:
                raise _invalid_token()
            engineer, entry = logged
            g.api_caller = engineer
    return created(
        logged_hours_json(entry, engineer), url_for("api.hours_entry", entry_id=entry.id)
    )


@contextmanager
def _hours_errors() -> Iterator[None]:
    """Answer an entry the rules refuse with 400, naming the API's fields."""
    try:
        yield
    except ValidationError as exc:
        raise ApiError(400, rename(exc.errors, HOURS_NAMES)) from None


def _entry(entry_id: int, write: bool) -> HourLog:
    entry = _get(HourLog, entry_id)
    if entry is None:
        raise ApiError(404, {"entry": f"no hour log entry with id {entry_id}"})
    if not can_view(caller(), entry.engineer):
        raise ApiError(403, {"entry": "you may not see this engineer's records"})
    if write and not can_log_hours(caller(), entry.engineer):
        raise ApiError(403, {"entry": "only the owner or an admin may change hour logs"})
    return entry


@bp.get("/hours/<int:entry_id>")
def hours_entry(entry_id: int):
    """One hour log entry."""
    query(())
    return jsonify(hour_log_json(_entry(entry_id, write=False)))


@bp.put("/hours/<int:entry_id>")
def update_hours(entry_id: int):
    """Replace an entry's course, date, hours and note (the audit trail keeps the old ones)."""
    entry = _entry(entry_id, write=True)
    course, logged_on, hours, note, reader = _read_hours(json_body(HOURS_FIELDS))
    reader.check()
    try:
        services.update_hours(
            db_session(), entry, course, logged_on, hours, web.today(), note, actor=caller()
        )
    except ValidationError as exc:
        raise ApiError(400, rename(exc.errors, HOURS_NAMES)) from None
    return jsonify(hour_log_json(entry))


@bp.delete("/hours/<int:entry_id>")
def delete_hours(entry_id: int):
    """Delete an entry (the audit trail keeps what it held)."""
    entry = _entry(entry_id, write=True)
    services.delete_hours(db_session(), entry, actor=caller())
    return "", 204


# --- exam attempts and credentials -------------------------------------------------

ATTEMPT_FIELDS = (
    "exam",
    "date",
    "score",
    "passed",
    "engineer",
    "cost",
    "voucher_code",
    "proctoring",
    "note",
)


@bp.post("/exam-attempts")
def record_attempt():
    """Record an exam attempt; a pass answers with the certification and its expiry."""
    data = json_body(ATTEMPT_FIELDS)
    engineer = engineer_in_body(data, can_record_results, "record exam attempts")
    session = db_session()
    reader = Reader(data)
    exam = None
    code = reader.code("exam")
    if code is not None:
        exam = session.scalars(
            select(Exam).join(Exam.credential).where(func.upper(Credential.code) == code.upper())
        ).one_or_none()
        if exam is None:
            known = ", ".join(
                session.scalars(
                    select(Credential.code).join(Credential.exam).order_by(Credential.code)
                )
            )
            reader.errors["exam"] = f"unknown exam code {code!r} (known: {known})"
    attempted_on = reader.date("date")
    score = reader.integer("score")
    passed = reader.boolean("passed")
    details = {name: reader.text(name, length) for name, length in MAX_DETAIL_LENGTHS.items()}
    cost = reader.money("cost", MAX_COST)
    reader.check()
    on = web.today()
    try:
        attempt = services.record_attempt(
            session,
            engineer,
            exam,
            attempted_on,
            score,
            passed,
            on,
            recorded_by=caller(),
            cost=cost,
            **details,
        )
    except ValidationError as exc:
        raise ApiError(400, rename(exc.errors, {"attempted_on": "date"})) from None
    cert = session.scalars(
        select(Certification).where(Certification.attempt_id == attempt.id)
    ).one_or_none()
    return created(attempt_json(attempt, cert, on))


CREDENTIAL_FIELDS = ("code", "name", "issuer", "issued_on", "expires_on", "evidence", "engineer")


@bp.post("/credentials")
def record_credential():
    """Record a credential earned elsewhere: a catalog `code`, or `name` and `issuer`."""
    data = json_body(CREDENTIAL_FIELDS)
    engineer = engineer_in_body(data, can_record_results, "record credentials")
    session = db_session()
    reader = Reader(data)
    by_name = reader.has("name") or reader.has("issuer")
    code = name = issuer = None
    if reader.has("code") and by_name:
        reader.errors["code"] = (
            "give either the code of a catalog credential, or name and issuer, not both"
        )
    elif by_name:
        name = reader.text("name", 200, required=True)
        issuer = reader.text("issuer", 120, required=True)
    else:
        code = reader.code("code")
        if code is None and "code" not in reader.errors:
            reader.errors["code"] = (
                "this field is required (or name and issuer for a credential outside the catalog)"
            )
    issued_on = reader.date("issued_on")
    expires_on = reader.date("expires_on", required=False)
    evidence = reader.text("evidence", MAX_EVIDENCE_LENGTH)
    reader.check()
    on = web.today()
    try:
        credential = services.credential_for_entry(session, code=code, name=name, issuer=issuer)
        cert = services.record_credential(
            session,
            engineer,
            credential,
            issued_on,
            on,
            evidence=evidence,
            expires_on=expires_on,
            recorded_by=caller(),
        )
    except ValidationError as exc:
        # Nothing is committed on a 400: a credential row made for a name is dropped too.
        raise ApiError(400, rename(exc.errors, {"credential": "code"})) from None
    return created(certification_json(cert, on))


# --- certifications ---------------------------------------------------------------


@bp.get("/certifications")
def certifications():
    """The newest certification per credential of each visible engineer, filtered.

    ?engineer=ID for one person; ?status=valid|expiring|expired keeps those whose
    status is exactly that ("expiring": valid and expiring within
    ?expiring_within=DAYS, default 90; "valid": valid beyond that window).
    """
    params = query(("engineer", "status", "expiring_within"))
    errors: dict[str, str] = {}
    status = params.get("status", "").strip().lower() or None
    if status is not None and status not in STATUSES:
        errors["status"] = f"must be one of {', '.join(STATUSES)}"
    within = services.EXPIRING_WITHIN_DAYS
    if "expiring_within" in params:
        parsed = read_query_int(params["expiring_within"])
        if parsed is None or parsed > MAX_EXPIRING_WITHIN:
            errors["expiring_within"] = (
                f"must be a whole number of days, 0 to {MAX_EXPIRING_WITHIN}"
            )
        else:
            within = parsed
    if errors:
        raise ApiError(400, errors)
    session = db_session()
    on = web.today()
    select_certs = select(Certification).options(
        selectinload(Certification.credential), selectinload(Certification.engineer)
    )
    if "engineer" in params:
        select_certs = select_certs.where(Certification.engineer_id == engineer_in_query(params).id)
    elif caller().access_role != "admin":
        ids = [e.id for e in visible_engineers(session, caller())]
        select_certs = select_certs.where(Certification.engineer_id.in_(ids))
    by_engineer: dict[int, list[Certification]] = {}
    for cert in session.scalars(select_certs):
        by_engineer.setdefault(cert.engineer_id, []).append(cert)
    newest = [
        cert
        for certs in by_engineer.values()
        for cert in services.newest_per_credential(certs).values()
    ]
    items = [
        certification_json(cert, on, within)
        for cert in sorted(
            newest,
            key=lambda c: (c.expires_on is None, c.expires_on, c.engineer.name, c.credential.code),
        )
    ]
    if status is not None:
        items = [item for item in items if item["status"] == status]
    return jsonify({"on": on.isoformat(), "expiring_within": within, "certifications": items})


# --- teams, readiness, forecast, ROI ------------------------------------------


def _team_in_url(team_id: int) -> Team:
    team = _get(Team, team_id)
    if team is None:
        raise ApiError(404, {"team": f"no team with id {team_id}"})
    if not readiness_services.can_view_team(caller(), team):
        raise ApiError(403, {"team": "only the team's manager or an admin may see its readiness"})
    return team


def _managers_only() -> None:
    if caller().access_role not in ("manager", "admin"):
        raise ApiError(403, {"engineer": "team readiness is for managers and admins"})


def _gpus(params: dict[str, str], team: Team) -> int:
    if "gpus" not in params:
        return team.gpus
    gpus = read_query_int(params["gpus"])
    if gpus is None or gpus > 10_000_000:
        raise ApiError(400, {"gpus": "must be a whole number of GPUs, 0 or more"})
    return gpus


@bp.get("/teams")
def teams():
    """The teams the caller manages (every team for an admin)."""
    _managers_only()
    query(())
    return jsonify(
        {"teams": [team_json(t) for t in readiness_services.visible_teams(db_session(), caller())]}
    )


@bp.get("/teams/<int:team_id>/readiness")
def team_readiness(team_id: int):
    """Readiness of a team for ?gpus=N (default its fleet) on ?on=YYYY-MM-DD (default today)."""
    _managers_only()
    team = _team_in_url(team_id)
    params = query(("gpus", "on"))
    gpus = _gpus(params, team)
    on = web.today()
    if "on" in params:
        on = read_date(params["on"])
        if on is None:
            raise ApiError(400, {"on": "must be a date YYYY-MM-DD"})
    result = readiness_services.team_readiness(db_session(), team, on, gpus)
    return jsonify(readiness_json(result))


@bp.get("/teams/<int:team_id>/forecast")
def team_forecast(team_id: int):
    """Readiness at the start of each of the next ?months=12 months, assuming no renewals."""
    _managers_only()
    team = _team_in_url(team_id)
    params = query(("gpus", "months"))
    gpus = _gpus(params, team)
    months = 12
    if "months" in params:
        months = read_query_int(params["months"]) or 0
        if not 1 <= months <= 60:
            raise ApiError(400, {"months": "must be a whole number from 1 to 60"})
    session = db_session()
    members = readiness_services.load_members(session, [team.id]).get(team.id, [])
    points = readiness_services.forecast(
        team, members, readiness_services.load_templates(session), web.today(), gpus, months
    )
    return jsonify({"team": team_json(team), "gpus": gpus, "points": forecast_json(points)})


@bp.post("/roi")
def roi():
    """First-year and ongoing ROI of named lines; an empty body uses DOMAIN.md's example."""
    _managers_only()
    raw = request.get_data(cache=True)
    data = parse_json_object(raw, ("investment", "returns")) if raw.strip() else {}
    lines = {}
    if not data:
        session = db_session()
        for row in session.scalars(select(RoiLine).order_by(RoiLine.position)):
            lines.setdefault(row.kind, {})[row.code] = row.amount
        data = {"investment": lines.get("investment", {}), "returns": lines.get("return", {})}
    errors = {}
    for key in ("investment", "returns"):
        if not isinstance(data.get(key), dict) or not data[key]:
            errors[key] = 'must be an object of named amounts, e.g. {"training": 75000}'
    if errors:
        raise ApiError(400, errors)
    return jsonify(roi_json(readiness_services.roi(data["investment"], data["returns"])))


# --- careers: the ladder, skills, coverage, bonuses ------------------------------


def _on_date(params: dict[str, str]):
    if "on" not in params:
        return web.today()
    on = read_date(params["on"])
    if on is None:
        raise ApiError(400, {"on": "must be a date YYYY-MM-DD"})
    return on


@bp.get("/engineers/<int:engineer_id>/career")
def career(engineer_id: int):
    """Level, experience, next level, whether its rule is met on ?on= (default today), lacks."""
    engineer = engineer_in_url(engineer_id)
    on = _on_date(query(("on",)))
    return jsonify(career_json(careers.career(db_session(), engineer, on)))


@bp.put("/engineers/<int:engineer_id>/level")
def set_level(engineer_id: int):
    """Set a report's level (their manager or an admin); the history keeps who, when, from, to."""
    engineer = engineer_in_url(engineer_id)
    if not careers.can_manage(caller(), engineer):
        raise ApiError(403, {"engineer": "only this engineer's manager or an admin sets the level"})
    reader = Reader(json_body(("level",)))
    level = reader.integer("level")
    reader.check()
    careers.change_level(db_session(), engineer, level, caller(), web.today())
    return jsonify(career_json(careers.career(db_session(), engineer, web.today())))


@bp.post("/engineers/<int:engineer_id>/evidence")
def record_evidence(engineer_id: int):
    """Record a patent, publication or deployment led (`kind`, `title`, `date`, `note`)."""
    engineer = engineer_in_url(engineer_id)
    reader = Reader(json_body(("kind", "title", "date", "note")))
    kind = reader.code("kind")
    title = reader.text("title", careers.MAX_EVIDENCE_TITLE, required=True)
    occurred_on = reader.date("date")
    note = reader.text("note", careers.MAX_EVIDENCE_NOTE)
    if kind is not None and kind not in careers.EVIDENCE_KINDS:
        reader.errors["kind"] = f"must be one of {', '.join(careers.EVIDENCE_KINDS)}"
    reader.check()
    try:
        entry = careers.record_evidence(
            db_session(), engineer, kind, title, occurred_on, web.today(), note
        )
    except ValidationError as exc:
        raise ApiError(400, rename(exc.errors, {"occurred_on": "date"})) from None
    return created(evidence_json(entry))


@bp.get("/engineers/<int:engineer_id>/skills")
def skills(engineer_id: int):
    """The current proficiency per speciality (the newest counts) and the history."""
    engineer = engineer_in_url(engineer_id)
    query(())
    session = db_session()
    history = careers.skill_history(session, engineer.id)
    people = careers.assessors(session, history)
    current = careers.current_skills(session, [engineer.id])[engineer.id]
    return jsonify(
        {
            "engineer": person_ref(engineer),
            "skills": [
                skill_json(current[s.id], people.get(current[s.id].assessed_by_id))
                for s in careers.specialities(session)
                if s.id in current
            ],
            "history": [skill_json(r, people.get(r.assessed_by_id)) for r in history],
        }
    )


@bp.put("/engineers/<int:engineer_id>/skills/<speciality>")
def put_skill(engineer_id: int, speciality: str):
    """Set a proficiency 0-4: self-assessed by the engineer, confirmed by their manager."""
    code = speciality[:40]
    engineer = engineer_in_url(engineer_id)
    if not careers.can_assess(caller(), engineer):
        raise ApiError(403, {"engineer": "you may not assess this engineer's skills"})
    session = db_session()
    reader = Reader(json_body(("level",)))
    found = careers.find_speciality(session, code)
    if found is None:
        known = ", ".join(s.code for s in careers.specialities(session))
        reader.errors["speciality"] = f"unknown speciality {code!r} (known: {known})"
    level = reader.integer("level")
    if level is not None and not 0 <= level <= 4:
        reader.errors["level"] = "must be a whole number from 0 (none) to 4 (expert)"
    reader.check()
    row = careers.assess(session, engineer, found, level, caller())
    return jsonify({**skill_json(row, caller()), "engineer": person_ref(engineer)})


@bp.get("/teams/<int:team_id>/skills")
def team_skills(team_id: int):
    """A team's specialities by people, with `single_points_of_failure` (speciality codes)."""
    _managers_only()
    team = _team_in_url(team_id)
    query(())
    return jsonify(coverage_json(careers.team_coverage(db_session(), team)))


@bp.get("/bonuses")
def bonuses():
    """The bonuses earned in ?quarter=YYYY-Qn (default this quarter), for the people one sees."""
    params = query(("quarter",))
    try:
        quarter = (
            careers.Quarter.parse(params["quarter"])
            if "quarter" in params
            else careers.Quarter.of(web.today())
        )
    except ValidationError as exc:
        raise ApiError(400, exc.errors) from None
    session = db_session()
    ids = None
    if caller().access_role != "admin":
        ids = [e.id for e in visible_engineers(session, caller())]
    return jsonify(ledger_json(quarter, careers.ledger(session, quarter, ids)))
