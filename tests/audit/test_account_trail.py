"""The account trail: each sign-in and account change is recorded by method; the admin page."""

from __future__ import annotations

import csv
import datetime as dt
import io

import pytest
from flask.testing import FlaskClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.factories import PASSWORD
from tests.helpers import Api, count, enrol_app, post_login, sign_in, token_for, unspent_code
from tracker.audit.accounts import record_account_event
from tracker.audit.models import AccountEvent
from tracker.clock import utcnow
from tracker.extensions import SignInLimiter
from tracker.people.models import Engineer
from tracker.people.services.persons import create_person, set_active, set_weekly_digest
from tracker.people.services.reads import find_engineer
from tracker.people.services.totp import code_at, time_step
from tracker.people.services.trail import account_trail


@pytest.fixture(autouse=True)
def limiters(limiter: SignInLimiter, totp_limiter: SignInLimiter) -> None:
    """Limiters of each test's own: the refusals here come from one address."""


def events(db: Session, kind: str | None = None) -> list[AccountEvent]:
    """Return the trail's events (of one kind), oldest first."""
    query = select(AccountEvent).order_by(AccountEvent.id)
    if kind is not None:
        query = query.where(AccountEvent.kind == kind)
    return list(db.scalars(query))


def last(db: Session, kind: str) -> AccountEvent:
    found = events(db, kind)
    assert found, f"no {kind} event"
    return found[-1]


@pytest.fixture
def admin(db) -> Engineer:
    return factories.engineer(db, name="Ada Admin", access_role="admin")


@pytest.fixture
def admin_client(client: FlaskClient, admin: Engineer) -> FlaskClient:
    sign_in(client, admin)
    return client


@pytest.fixture
def enrolled(db) -> tuple[Engineer, str, list[str]]:
    person = factories.engineer(db, access_role="admin")
    secret, codes = enrol_app(db, person)
    return person, secret, codes


# --- sign-ins -------------------------------------------------------------------------


def test_a_password_sign_in_is_recorded_with_its_method_and_address(client, db):
    person = factories.engineer(db)
    post_login(client, person.email, environ_base={"REMOTE_ADDR": "10.1.2.3"})
    event = last(db, "sign_in")
    assert (event.engineer_id, event.email, event.method) == (person.id, person.email, "password")
    assert event.address == "10.1.2.3"


def test_a_wrong_password_is_recorded_with_the_typed_address_and_kept(client, db):
    person = factories.engineer(db)
    assert post_login(client, person.email.upper(), "wrong password").status_code == 401
    assert post_login(client, "Nobody@Example.com", "wrong password").status_code == 401
    known, unknown = events(db, "sign_in_failed")
    assert (known.engineer_id, known.email, known.method) == (person.id, person.email, "password")
    assert known.detail == {"reason": "wrong_password"}
    assert (unknown.engineer_id, unknown.email) == (None, "nobody@example.com")


def test_a_sign_in_refused_by_the_limit_is_recorded(client, db):
    person = factories.engineer(db)
    for _ in range(5):
        post_login(client, person.email, "wrong password")
    assert post_login(client, person.email).status_code == 429
    assert last(db, "sign_in_failed").detail == {"reason": "rate_limited"}
    assert events(db, "sign_in") == []


def test_the_second_step_records_the_code_and_its_refusals(app, db, enrolled):
    person, secret, codes = enrolled
    client = app.test_client()
    post_login(client, person.email)
    # The password alone is no sign-in yet.
    assert events(db, "sign_in") == []
    client.post("/login/totp", data={"code": code_at(secret, time_step(utcnow()) + 9)})
    code = unspent_code(secret, None)[0]
    assert client.post("/login/totp", data={"code": code}).status_code == 302
    other = app.test_client()
    post_login(other, person.email)
    other.post("/login/totp", data={"code": code})
    other.post("/login/totp", data={"code": "zzzzz-zzzzz"})
    other.post("/login/totp", data={"code": codes[0]})
    refusals = [(e.method, e.detail["reason"]) for e in events(db, "sign_in_failed")]
    assert refusals == [
        ("totp", "wrong_code"),
        ("totp", "replayed_code"),
        ("recovery", "wrong_recovery_code"),
    ]
    assert [e.method for e in events(db, "sign_in")] == ["totp", "recovery"]
    assert {e.engineer_id for e in events(db)} >= {person.id}


def test_setting_up_an_app_records_it_and_the_sign_in(client, db, admin):
    sign_in(client, admin)
    enrolled_event = last(db, "totp_enrolled")
    assert (enrolled_event.engineer_id, enrolled_event.method) == (admin.id, "web")
    signed = last(db, "sign_in")
    assert (signed.method, signed.detail) == ("totp", {"enrolled": True})


def test_signing_out_is_recorded(client, db):
    person = factories.engineer(db)
    sign_in(client, person)
    client.post("/logout")
    event = last(db, "sign_out")
    assert (event.engineer_id, event.method) == (person.id, "web")


def test_resetting_the_app_is_recorded_as_the_commands(runner, db, enrolled):
    person, _, _ = enrolled
    assert runner.invoke(args=["user", "reset-totp", person.email]).exit_code == 0
    event = last(db, "totp_reset")
    assert (event.engineer_id, event.method, event.actor_id) == (person.id, "cli", None)


# --- provisioning, roles, levels ----------------------------------------------------------


def test_the_admin_page_records_who_provisioned_changed_and_deactivated(admin_client, db, admin):
    response = admin_client.post(
        "/admin/people/new",
        data={
            "email": "nia@example.com",
            "name": "Nia New",
            "access_role": "engineer",
            "level": "1",
            "experience_months": "0",
            "password": PASSWORD,
        },
    )
    assert response.status_code == 302, response.get_data(as_text=True)
    nia = find_engineer(db, "nia@example.com")
    created = last(db, "provisioned")
    assert (created.engineer_id, created.method, created.actor_id) == (nia.id, "web", admin.id)
    assert created.detail == {"access_role": "engineer", "level": 1}

    response = admin_client.post(
        f"/admin/people/{nia.id}",
        data=edit_data(
            nia, access_role="manager", level="3", experience_months="12", job_roles=["network"]
        ),
    )
    assert response.status_code == 302, response.get_data(as_text=True)
    role, level, updated = last(db, "role_changed"), last(db, "level_changed"), last(db, "updated")
    assert role.detail == {"from": "engineer", "to": "manager"}
    assert level.detail == {"from": 1, "to": 3}
    assert updated.detail == {
        "experience_months": {"from": 0, "to": 12},
        "job_roles": {"from": [], "to": ["network"]},
    }
    assert {e.method for e in (role, level, updated)} == {"web"}
    assert {e.actor_id for e in (role, level, updated)} == {admin.id}

    admin_client.post(f"/admin/people/{nia.id}/deactivate")
    admin_client.post(f"/admin/people/{nia.id}/reactivate")
    assert [e.kind for e in events(db) if e.kind.endswith("activated")] == [
        "deactivated",
        "reactivated",
    ]


def test_a_save_that_changes_nothing_records_nothing(admin_client, db):
    person = factories.engineer(db, job_roles=(), hired_on=None)
    before = count(db, AccountEvent)
    response = admin_client.post(
        f"/admin/people/{person.id}",
        data=edit_data(person),
    )
    assert response.status_code == 302, response.get_data(as_text=True)
    assert count(db, AccountEvent) == before


def test_the_trail_says_which_way_the_digest_went_and_how(admin_client, db):
    person = factories.engineer(db, name="Dee Digest")
    set_weekly_digest(db, person, False, via="unsubscribe")
    set_weekly_digest(db, person, True, via="web")
    page = admin_client.get("/admin/audit", query_string={"q": "Dee"}).get_data(as_text=True)
    rows = [row for row in page.split("<tr") if "changed: Weekly digest" in row]
    # Newest first: turned on again on the profile, after the one-click link turned it off.
    assert len(rows) == 2
    assert "Weekly digest turned on" in rows[0] and "Web page" in rows[0]
    assert "Weekly digest turned off" in rows[1] and "Unsubscribe link" in rows[1]


def test_the_api_records_its_provisioning_and_level_changes(client, db, admin):
    api = Api(client)
    token = token_for(db, admin)
    response = api.post("/api/v1/engineers", token, {"email": "api@example.com", "name": "Api"})
    assert response.status_code == 201
    assert last(db, "provisioned").method == "api"
    person = find_engineer(db, "api@example.com")
    assert api.put(f"/api/v1/engineers/{person.id}/level", token, {"level": 2}).status_code == 200
    event = last(db, "level_changed")
    assert (event.engineer_id, event.method, event.actor_id) == (person.id, "api", admin.id)


def test_the_career_page_records_a_level_change(admin_client, db, admin):
    person = factories.engineer(db)
    response = admin_client.post(f"/careers/engineers/{person.id}/level", data={"level-level": "2"})
    assert response.status_code == 302
    event = last(db, "level_changed")
    assert (event.method, event.detail) == ("web", {"from": 1, "to": 2})


def test_the_command_and_the_import_record_their_provisioning(runner, admin_client, db, admin):
    result = runner.invoke(
        args=["user", "add", "cli@example.com", "--name", "Cli", "--password", PASSWORD]
    )
    assert result.exit_code == 0, result.output
    cli = last(db, "provisioned")
    assert (cli.email, cli.method, cli.actor_id) == ("cli@example.com", "cli", None)

    people = "email,name,role,job_roles,level,team,manager_email,hired_on,experience_months\n"
    people += "csv@example.com,Csv,,,,,,,\n"
    response = admin_client.post(
        "/admin/imports",
        data={"kind": "people", "file": (io.BytesIO(people.encode()), "people.csv")},
        content_type="multipart/form-data",
    )
    assert response.status_code == 302
    imported = last(db, "provisioned")
    assert (imported.email, imported.method, imported.actor_id) == (
        "csv@example.com",
        "import",
        admin.id,
    )


def test_a_caller_that_names_no_channel_still_records(db, today):
    # Callers that predate `via` (and the demo) keep working; the method is left open.
    person = create_person(db, email="quiet@example.com", name="Quiet", today=today)
    set_active(db, person, False)
    trail = [(e.kind, e.method) for e in events(db)]
    assert trail == [("provisioned", None), ("deactivated", None)]


# --- the page -----------------------------------------------------------------------------


@pytest.fixture
def trail(db) -> list[Engineer]:
    """Three people and events on three days (the clock's own events aside)."""
    ann = factories.engineer(db, name="Ann Archer", email="ann@example.com")
    bob = factories.engineer(db, name="Bob Baker", email="bob@example.com")
    db.execute(AccountEvent.__table__.delete())
    for day, kind, who, method in [
        (1, "sign_in", ann, "password"),
        (2, "sign_in_failed", bob, "password"),
        (2, "level_changed", bob, "web"),
        (3, "sign_in", bob, "totp"),
    ]:
        record_account_event(
            db,
            kind,
            engineer_id=who.id,
            email=who.email,
            method=method,
            address="10.0.0.9",
            detail={"reason": "wrong_password"}
            if kind == "sign_in_failed"
            else ({"from": 1, "to": 2} if kind == "level_changed" else None),
            at=dt.datetime(2026, 11, day, 9, 30),
        )
    db.flush()
    return [ann, bob]


def edit_data(person: Engineer, **changes: object) -> dict[str, object]:
    """Return the person form as an engineer of level 1 without job roles sends it."""
    return {
        "name": person.name,
        "email": person.email,
        "access_role": "engineer",
        "level": "1",
        "team": "",
        "manager": "",
        "hired_on": "",
        "experience_months": "0",
        **changes,
    }


def table_rows(html: str) -> list[str]:
    body = html.split("<tbody>")[1].split("</tbody>")[0]
    return body.split("<tr")[1:]


def test_the_page_lists_the_trail_newest_first(admin_client, trail):
    response = admin_client.get("/admin/audit")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    rows = table_rows(html)
    assert len(rows) == 4
    assert "Nov 3, 2026" in rows[0] and "Nov 1, 2026" in rows[-1]
    assert "Sign-in refused" in html and "wrong email or password" in html
    assert "level 1 → 2" in html and "Authenticator code" in html
    assert 'href="/admin/audit"' in html  # the admin menu links it


@pytest.mark.parametrize(
    ("query", "shown"),
    [
        ("q=bob", 3),
        ("q=ARCHER", 1),
        ("kind=sign_in&q=example.com", 2),
        ("method=totp", 1),
        ("since=2026-11-02&until=2026-11-02", 2),
        ("since=2026-11-03&q=bob", 1),
        ("q=%25", 0),
    ],
)
def test_the_filters_keep_the_matching_events(admin_client, trail, query, shown):
    response = admin_client.get(f"/admin/audit?{query}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    rows = [r for r in table_rows(html) if "colspan" not in r]
    assert len(rows) == shown, query
    assert "clear the filters" in html


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("since=2026-11-03&until=2026-11-01", "the last day must not be before the first"),
        ("kind=hacked", "choose one of the listed events"),
        ("method=pigeon", "choose one of the listed ways"),
        ("since=yesterday", "must be a date written YYYY-MM-DD"),
    ],
)
def test_a_bad_filter_is_refused_naming_it(admin_client, trail, query, message):
    response = admin_client.get(f"/admin/audit?{query}")
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert message in html
    assert admin_client.get(f"/admin/audit.csv?{query}").status_code == 400
    # Refused filters filter nothing: no "match", and the links carry none of them.
    assert "events match" not in html and "clear the filters" not in html
    assert 'href="/admin/audit.csv" download' in html


def test_the_trail_pages(db, trail):
    first = account_trail(db, per_page=3)
    second = account_trail(db, per_page=3, page=2)
    beyond = account_trail(db, per_page=3, page=9)
    assert (first.total, first.pages, first.has_next, second.has_prev) == (4, 2, True, True)
    assert [len(first.rows), len(second.rows)] == [3, 1]
    assert beyond.page == 2
    assert first.rows[0].event.at > second.rows[0].event.at


def test_the_csv_holds_the_filtered_rows_with_the_pages_columns(admin_client, trail):
    response = admin_client.get("/admin/audit.csv?q=bob")
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert "attachment" in response.headers["Content-Disposition"]
    header, *rows = list(csv.reader(io.StringIO(response.get_data(as_text=True))))
    assert header == [
        "time (UTC)",
        "event",
        "method",
        "person",
        "email",
        "changed by",
        "address",
        "details",
        "data",
    ]
    # Newest first; of two at one time, the later written first.
    assert [r[1] for r in rows] == ["Signed in", "Level changed", "Sign-in refused"]
    assert rows[0][0] == "2026-11-03T09:30:00"
    assert rows[2][3:5] == ["Bob Baker", "bob@example.com"]
    assert rows[2][7] == "wrong email or password"
    assert rows[2][8] == '{"reason": "wrong_password"}'


def test_the_csv_speaks_the_admins_language(admin_client, db, admin, trail):
    admin.locale = "es"
    db.flush()
    header, *rows = list(
        csv.reader(io.StringIO(admin_client.get("/admin/audit.csv?q=bob").get_data(as_text=True)))
    )
    assert header[:3] == ["hora (UTC)", "evento", "método"]
    assert rows[2][1] == "Inicio de sesión rechazado"


@pytest.mark.parametrize("url", ["/admin/audit", "/admin/audit.csv"])
def test_only_admins_read_the_trail(client, db, url):
    sign_in(client, factories.engineer(db, access_role="manager"))
    assert client.get(url).status_code == 403
