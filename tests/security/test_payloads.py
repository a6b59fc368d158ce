"""Hostile text in every free-text field: stored verbatim, shown escaped on every page.

Each payload goes in through the real forms, the CSV import and the API, as a
user would type it: names of people and teams, experience, hour notes, exam
voucher, proctoring and note, credential name, issuer and evidence, career
evidence (title, note), the internal track's exam, path and course names,
import cells; and into fields that are only echoed back (outbox search, ROI
lines, a bad import cell). Then every GET page of the URL map is read as the
admin, the engineer and the manager: no page holds the raw payload or markup
the tracker did not write, and the pages that show the text show it escaped.
SQL metacharacters come back verbatim and the tables are still there.
"""

from __future__ import annotations

import csv
import io
from html import unescape

import pytest
from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.factories import PASSWORD, TODAY
from tests.helpers import count, sign_in
from tests.security.conftest import World, injected_markup
from tests.security.matrix import ROUTES, url_for_rule
from tracker.catalog.models.credentials import Course, Credential, Exam, LearningPath
from tracker.people.models import Engineer, Team
from tracker.progress.models import Certification, ExamAttempt, HourLog

PAYLOADS = {
    "script": "<script>alert(1)</script>",
    "attribute": '"><img src=x onerror=alert(1)>',
    "sql-drop": "'; DROP TABLE engineers; --",
    "sql-or": '" OR 1=1 --',
}
PERSON_EMAIL = "payload.person@example.com"


def _csv(*rows: list[str]) -> bytes:
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    return out.getvalue().encode()


def _upload(client: FlaskClient, kind: str, content: bytes):
    return client.post(
        "/admin/imports",
        data={"kind": kind, "file": (io.BytesIO(content), f"{kind}.csv")},
        content_type="multipart/form-data",
    )


def _ok(response, what: str) -> None:
    assert response.status_code in (201, 302), (
        f"{what}: {response.status_code} {response.get_data(as_text=True)[:2000]}"
    )


def _reflected(response, payload: str, what: str) -> None:
    """An answer that echoes the text: escaped, no injected markup."""
    body = response.get_data(as_text=True)
    assert response.status_code < 500, what
    assert payload not in body, f"{what} echoes the raw text"
    assert str(escape(payload)) in body, f"{what} does not show the text"
    assert injected_markup(body) == [], what


def _enter_everything(app: Flask, db: Session, world: World, payload: str) -> dict[str, object]:
    """Put the payload in every free-text field, through the pages, the import and the API."""
    admin, engineer, manager = app.test_client(), app.test_client(), app.test_client()
    sign_in(admin, world.admin.email)
    sign_in(engineer, world.engineer.email)
    sign_in(manager, world.manager.email)
    fdl = factories.course(db, "FDL")

    # Admin: a team, a person in it, an internal track.
    _ok(
        admin.post(
            "/admin/teams/new",
            data={"name": f"{payload} team", "gpus": "64", "manager": str(world.manager.id)},
        ),
        "add team",
    )
    team = db.scalars(select(Team).where(Team.name == f"{payload} team")).one()
    _ok(
        admin.post(
            "/admin/people/new",
            data={
                "name": payload,
                "email": PERSON_EMAIL,
                "access_role": "engineer",
                "job_roles": "operations",
                "level": "1",
                "team": str(team.id),
                "manager": str(world.manager.id),
                "hired_on": "2021-01-01",
                "experience_months": "0",
                "password": "a long enough password",
            },
        ),
        "add person",
    )
    person = db.scalars(select(Engineer).where(Engineer.email == PERSON_EMAIL)).one()
    _ok(
        admin.post(
            "/admin/catalog",
            data={
                "exam_code": "PAYLOAD-EXAM",
                "exam_name": payload,
                "validity_months": "24",
                "experience_months": "0",
                "retake_wait_days": "14",
                "courses": f"PAYLOAD-101 | {payload} | 6",
                "path_code": "PAYLOAD-PATH",
                "path_name": payload,
                "target_months": "3",
            },
        ),
        "internal track",
    )

    # Admin: CSV imports of people, hours, attempts and credentials.
    header = [
        "email",
        "name",
        "role",
        "job_roles",
        "level",
        "team",
        "manager_email",
        "hired_on",
        "experience_months",
    ]
    row = ["payload.csv@example.com", payload, "", "", "", team.name, "", "2021-01-01", ""]
    _ok(_upload(admin, "people", _csv(header, row)), "import people")
    _ok(
        _upload(
            admin,
            "hours",
            _csv(
                ["email", "course", "date", "hours", "note"],
                [PERSON_EMAIL, "FDL", "2026-11-02", "1", payload],
            ),
        ),
        "import hours",
    )
    _ok(
        _upload(
            admin,
            "attempts",
            _csv(
                ["email", "exam", "date", "score", "passed", "cost", "voucher_code", "proctoring"],
                [PERSON_EMAIL, "NCP-AIO", "2026-11-02", "40", "no", "", payload, payload],
            ),
        ),
        "import attempts",
    )
    _ok(
        _upload(
            admin,
            "credentials",
            _csv(
                ["email", "credential", "issued_on", "expires_on", "evidence"],
                [PERSON_EMAIL, "CKA", "2026-01-02", "", payload],
            ),
        ),
        "import credentials",
    )

    # The engineer: profile, hours, an exam attempt, a credential outside the catalog.
    _ok(
        engineer.post("/profile", data={"experience_months": "3", "experience_text": payload}),
        "profile",
    )
    _ok(
        engineer.post(
            "/hours",
            data={
                "course": str(fdl.id),
                "logged_on": TODAY.isoformat(),
                "hours": "1",
                "note": payload,
            },
        ),
        "log hours",
    )
    entry = db.scalars(
        select(HourLog).where(HourLog.engineer_id == world.engineer.id, HourLog.note == payload)
    ).one()
    _ok(
        engineer.post(
            "/exams",
            data={
                "engineer": str(world.engineer.id),
                "exam": str(factories.exam(db, "NCA-AIIO").id),
                "attempted_on": TODAY.isoformat(),
                "score": "50",
                "voucher_code": payload,
                "proctoring": payload,
                "note": payload,
            },
        ),
        "exam attempt",
    )
    _ok(
        engineer.post(
            "/credentials",
            data={
                "engineer": str(world.engineer.id),
                "credential": "0",
                "name": payload,
                "issuer": payload,
                "issued_on": "2026-01-01",
                "evidence": payload,
            },
        ),
        "credential",
    )

    # Career evidence (patents, publications, deployments led), where that page exists.
    if "careers.add_evidence" in app.view_functions:
        response = engineer.post(
            f"/careers/engineers/{world.engineer.id}/evidence",
            data={
                "evidence-kind": "patent",
                "evidence-title": payload,
                "evidence-occurred_on": "2026-06-01",
                "evidence-note": payload,
            },
        )
        _ok(response, "career evidence")
        _reflected(engineer.get(response.headers["Location"]), payload, "the career page")

    # The engineer's API token: the same fields over JSON.
    bearer = {"Authorization": f"Bearer {world.tokens['engineer']}"}
    _ok(
        engineer.post(
            "/api/v1/hours",
            headers=bearer,
            json={"course": "FDL", "date": "2026-11-20", "hours": 1, "note": payload},
        ),
        "API hours",
    )
    _ok(
        engineer.post(
            "/api/v1/exam-attempts",
            headers=bearer,
            json={
                "exam": "NCP-AIO",
                "date": "2026-11-20",
                "score": 40,
                "passed": False,
                "voucher_code": payload,
                "proctoring": payload,
                "note": payload,
            },
        ),
        "API attempt",
    )
    _ok(
        engineer.post(
            "/api/v1/credentials",
            headers=bearer,
            json={
                "name": f"{payload} api",
                "issuer": payload,
                "issued_on": "2026-02-01",
                "evidence": payload,
            },
        ),
        "API credential",
    )

    # Text that is only echoed back.
    _reflected(admin.get("/admin/outbox", query_string={"q": payload}), payload, "outbox search")
    bad_row = _csv(
        ["email", "course", "date", "hours", "note"], [PERSON_EMAIL, payload, "x", "1", ""]
    )
    _reflected(_upload(admin, "hours", bad_row), payload, "a bad import cell")
    _reflected(
        manager.post(
            "/roi",
            data={
                "investment-0-label": payload,
                "investment-0-amount": "100",
                "returns-0-label": payload,
                "returns-0-amount": "-5",
            },
        ),
        payload,
        "ROI lines",
    )
    return {
        "clients": {"admin": admin, "engineer": engineer, "manager": manager},
        "team": team,
        "person": person,
        "entry": entry,
    }


def _stored_verbatim(db: Session, world: World, payload: str, person: Engineer, team: Team):
    db.expire_all()
    assert team.name == f"{payload} team"
    assert person.name == payload
    assert (
        db.scalars(select(Engineer).where(Engineer.email == "payload.csv@example.com")).one().name
        == payload
    )
    assert world.engineer.experience_text == payload
    notes = set(db.scalars(select(HourLog.note).where(HourLog.note == payload)))
    assert notes == {payload}
    assert count(db, HourLog) >= 3
    attempts = db.scalars(select(ExamAttempt).where(ExamAttempt.proctoring == payload)).all()
    assert len(attempts) == 3  # the form, the import and the API
    assert all(a.voucher_code == payload for a in attempts)
    names = set(db.scalars(select(Credential.name).where(Credential.issuer == payload)))
    assert names == {payload, f"{payload} api"}
    assert (
        len(db.scalars(select(Certification).where(Certification.evidence == payload)).all()) == 3
    )
    assert db.scalars(select(Exam).join(Exam.credential).where(Credential.name == payload)).one()
    assert db.scalars(select(LearningPath).where(LearningPath.name == payload)).one()
    assert db.scalars(select(Course).where(Course.title == payload)).one()
    # The metacharacters did nothing to the database.
    assert count(db, Engineer) == 7  # the world's five and the two added


# Pages that must show the text (escaped), per role.
SHOWN_ON = {
    "engineer": ["/profile", "/hours", "/exams", "/credentials", "/hours/{entry}/edit"],
    "manager": ["/teams", "/teams/{team}"],
    "admin": ["/admin/people", "/admin/teams", "/admin/catalog", "/catalog", "/organisation"],
}


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_free_text_is_stored_verbatim_and_shown_escaped_everywhere(
    app: Flask, db: Session, world: World, payload: str
):
    made = _enter_everything(app, db, world, payload)
    team, person, entry = made["team"], made["person"], made["entry"]
    _stored_verbatim(db, world, payload, person, team)
    escaped = str(escape(payload))
    ids = {
        "engineer_id": world.engineer.id,
        "person_id": person.id,
        "entry_id": entry.id,
        "team_id": team.id,
        "notification_id": world.notification.id,
        "token": "no-such-token",
        "speciality": "infiniband-rdma",
    }
    for role, client in made["clients"].items():
        showing = set()
        for _, rule, method in ROUTES:
            # The JSON API, its document (which holds no one's text) and SCIM are not pages.
            if method != "GET" or rule.startswith(("/api/v1/", "/scim/v2/")):
                continue
            url = url_for_rule(rule, ids)
            response = client.get(url)
            body = response.get_data(as_text=True)
            what = f"GET {url} as {role}"
            assert response.status_code < 500, what
            if response.mimetype != "text/html":
                # CSV and calendar files are downloads, never drawn as a page; so are the
                # Open Badges issuer's JSON documents (its keys, its status list).
                drawn_never = ("text/csv", "text/calendar")
                if rule.startswith(("/.well-known/", "/ob/", "/did.json")):
                    drawn_never += (
                        "application/json",
                        "application/did+json",
                        "application/vc+ld+json",
                    )
                # A person's data is a download too (an attachment); health, a probe's answer.
                if rule.endswith("/data.json"):
                    drawn_never += ("application/json",)
                    assert response.headers["Content-Disposition"].startswith("attachment;")
                if rule.startswith("/health"):
                    drawn_never += ("application/health+json",)
                assert response.mimetype in drawn_never, what
                continue
            assert payload not in body, f"{what} shows the raw text"
            assert injected_markup(body) == [], what
            if escaped in body:
                showing.add(url)
        expected = {u.format(entry=entry.id, team=team.id) for u in SHOWN_ON[role]}
        assert expected <= showing, f"{role}: the text is not shown on {expected - showing}"


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_hostile_text_in_codes_and_searches_is_refused_or_matched_verbatim(
    client: FlaskClient, db: Session, world: World, payload: str
):
    bearer = {"Authorization": f"Bearer {world.tokens['admin']}"}
    for body, url in (
        ({"course": payload, "date": "2026-11-20", "hours": 1}, "/api/v1/hours"),
        (
            {"exam": payload, "date": "2026-11-20", "score": 1, "passed": False},
            "/api/v1/exam-attempts",
        ),
        ({"code": payload, "issued_on": "2026-11-20", "evidence": "x"}, "/api/v1/credentials"),
    ):
        response = client.post(url, headers=bearer, json=body)
        assert response.status_code == 400, (url, response.get_json())
        messages = " ".join(response.get_json()["errors"].values())
        assert payload in messages  # named verbatim in the message
    sign_in(client, world.admin.email)
    response = client.get("/admin/outbox", query_string={"q": payload})
    assert response.status_code == 200
    assert "No notice matches these filters." in response.get_data(as_text=True)
    assert payload in unescape(response.get_data(as_text=True))
    assert count(db, Engineer) == 5  # the world, untouched
    # And a sign-in with SQL in the email or the password is just a wrong sign-in.
    anonymous = client.application.test_client()
    for email, password in ((payload, PASSWORD), (world.admin.email, payload)):
        response = anonymous.post("/login", data={"email": email, "password": password})
        assert response.status_code in (400, 401)
        assert anonymous.get("/dashboard").status_code == 302
