"""Every route, every method, as every role, on another person's objects.

The matrix is generated from the app's URL map, so a new route is covered
without editing this file (a new kind of URL parameter must be mapped below).
"""

from __future__ import annotations

import datetime as dt
import re

import pytest
from flask import Flask

from tests import factories
from tests.factories import SECRET_KEY
from tests.helpers import OPEN_BADGES_PUBLIC, WEBHOOK_HOSTS, routes
from tracker.badges.services.mapping import map_badge_class
from tracker.identity.models import Identity
from tracker.progress.services.exam_plans import plan_exam
from tracker.progress.services.hours import log_hours
from tracker.reminders.models import Notification
from tracker.reminders.services.unsubscribe import unsubscribe_token
from tracker.webhooks.services.endpoints import add_endpoint

# The organisation's pages: an admin's, like the admin pages.
ADMIN_READINESS = {"readiness.organisation", "readiness.organisation_csv"}
PUBLIC = {
    "catalog.home",
    "catalog.catalog",
    "people.login",
    # A visitor's choice of language, before signing in.
    "people.choose_locale",
    "static",
    # Calendar feeds open with the secret token in their URL, without a session.
    "calendars.engineer_feed",
    "calendars.team_feed",
    # The API's description names no one's records: integrators read it before they have a token.
    "api_docs.openapi",
    "api_docs.reference",
    # Probes of load balancers and monitors: no one's records, only whether the server may serve.
    "health.live",
    "health.ready",
    # The weekly digest's unsubscribe link: its signed token is the credential (RFC 8058).
    "mail.unsubscribe",
}
ROLES = ("anonymous", "engineer", "manager", "admin")
# Career pages for managers and admins (a manager sees only their own people there).
CAREERS_MANAGERS = {"careers.promotions", "careers.apprenticeships"}
CAREERS_ADMIN = {"careers.bonus_amounts"}

# A person's data for download (GDPR articles 15 and 20): one's own for everyone signed
# in; anyone's for admins only, not even for the person's manager.
PERSONAL_DATA = {
    "privacy.own_data": ("engineer", "manager", "admin"),
    "admin.personal_data.person_data": ("admin",),
}


ROUTES = routes()


@pytest.fixture
def scene(db, pinned_today):
    """A victim in a team of their own, with an hour log; and one person of each role."""
    victim_manager = factories.engineer(db, access_role="manager")
    team = factories.team(db, gpus=64, manager=victim_manager)
    victim = factories.engineer(db, team=team, manager=victim_manager)
    entry = log_hours(
        db,
        victim,
        factories.course(db, "FDL"),
        factories.TODAY,
        factories.hours(2),
        factories.TODAY,
    )
    people = {
        "engineer": factories.engineer(db),
        "manager": factories.engineer(db, access_role="manager"),
        "admin": factories.engineer(db, access_role="admin"),
    }
    notification = Notification(
        dedupe_key="matrix",
        kind="reminder",
        to_addrs=victim.email,
        subject="matrix",
        body_text="matrix",
        message_id="<matrix@example.com>",
        status="failed",
    )
    db.add(notification)
    certification = factories.certification(db, victim, "NCA-AIIO", factories.TODAY)
    endpoint = add_endpoint(
        db, "https://hooks.example.com/matrix", ["hours.logged"], allow_hosts=WEBHOOK_HOSTS
    )
    delivery = factories.webhook_delivery(db, endpoint)
    mapping = map_badge_class(db, "https://badges.example.com/classes/matrix", "NCP-AII")
    plan = plan_exam(
        db,
        victim,
        factories.exam(db, "NCA-AIIO"),
        factories.TODAY + dt.timedelta(days=30),
        factories.TODAY,
    )
    identity = Identity(engineer_id=victim.id, issuer="https://id.example.com", subject="matrix")
    db.add(identity)
    # One value for both feeds (the tokens of engineers and of teams are apart).
    victim.calendar_token = team.calendar_token = "route-matrix-calendar-feed-token"
    db.flush()
    ids = {
        "engineer_id": victim.id,
        "person_id": victim.id,
        "entry_id": entry.id,
        "plan_id": plan.id,
        "team_id": team.id,
        "notification_id": notification.id,
        "endpoint_id": endpoint.id,
        "delivery_id": delivery.id,
        "mapping_id": mapping.id,
        "identity_id": identity.id,
        "token": victim.calendar_token,
        "speciality": "infiniband-rdma",
        "user_id": victim.id,
        "group_id": team.id,
        "name": "User",
        "uri": "urn:ietf:params:scim:schemas:core:2.0:User",
        "anything": "matrix",
        # No Open Badge in the scene: another person's certification, an unknown credential.
        "certification_id": certification.id,
        "issued_id": 999_999,
        "code": "INT-NONE",
    }
    return people, ids


def _url(rule: str, ids: dict[str, int]) -> str:
    url = rule
    while "<" in url:
        start, end = url.index("<"), url.index(">")
        name = url[start + 1 : end].split(":")[-1]
        assert name in ids, f"map the URL parameter {name!r} of {rule} to an object in scene()"
        url = url[:start] + str(ids[name]) + url[end + 1 :]
    return url


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(
    ("endpoint", "rule", "method"), ROUTES, ids=[f"{method} {rule}" for _, rule, method in ROUTES]
)
def test_route_answers_as_the_role_allows(client, auth, scene, role, endpoint, rule, method):
    people, ids = scene
    if role != "anonymous":
        auth.sign_in(people[role])
    if endpoint == "mail.unsubscribe":
        # The victim's digest link: its own signed token, not a calendar feed's.
        ids = {**ids, "token": unsubscribe_token(SECRET_KEY, ids["engineer_id"])}
    response = client.open(_url(rule, ids), method=method, data={})
    status = response.status_code
    assert status < 500, f"{method} {rule} as {role} answered {status}"
    # Nothing meant for one person may be kept by a shared or back-button cache.
    caching = response.headers.get("Cache-Control")
    if endpoint == "people.logout":
        pass  # signed out by then: a redirect to the public home page
    elif role != "anonymous" or endpoint.startswith(("api.", "scim.")):
        assert caching == "no-store", f"{method} {rule} as {role}: Cache-Control {caching}"
    elif endpoint.startswith("calendars.") and status == 200:
        assert caching == "private, no-cache", f"{method} {rule}: Cache-Control {caching}"
    elif endpoint == "mail.unsubscribe" and status == 200:
        assert caching == "no-store", f"{method} {rule}: Cache-Control {caching}"

    if endpoint.startswith(("api.", "scim.")):
        # The API and SCIM open with a bearer token only, never with a browser session.
        assert status == 401
    elif endpoint in PUBLIC:
        assert status in (200, 302, 400, 401)
    elif endpoint in OPEN_BADGES_PUBLIC:
        assert status in (200, 404)
    elif endpoint.startswith("issuer.") and role != "anonymous":
        # Another person's certification (403), an admin's revoking of no badge (404).
        allowed = {
            "issuer.mine": (200,),
            "issuer.revoke_badge": (404,) if role == "admin" else (403,),
        }
        assert status in allowed.get(endpoint, (403,))
    elif role == "anonymous":
        assert status == 302 and "/login" in response.headers["Location"]
    elif endpoint in PERSONAL_DATA:
        assert status == (200 if role in PERSONAL_DATA[endpoint] else 403)
    elif endpoint.startswith("admin.") or endpoint in ADMIN_READINESS:
        assert status in ((200, 302, 400) if role == "admin" else (403,))
    elif endpoint.startswith("calendars.") and "team_id" in rule:
        # A team's calendar feed: its manager or an admin manages it (asked first, by a GET).
        done = 200 if method == "GET" else 302
        assert status in ((done,) if role == "admin" else (403,))
    elif endpoint.startswith("readiness."):
        # Managers see the teams they run; the victim's team is not this manager's.
        allowed = {"engineer": (403,), "manager": (200, 400), "admin": (200, 400)}[role]
        if "team_id" in rule and role == "manager":
            allowed = (403,)
        assert status in allowed
    elif endpoint.startswith("careers.") and "team_id" in rule:
        # A team's skills coverage: its manager or an admin.
        assert status in ((200,) if role == "admin" else (403,))
    elif endpoint in CAREERS_MANAGERS:
        assert status in ((403,) if role == "engineer" else (200, 302, 400))
    elif endpoint in CAREERS_ADMIN:
        assert status in ((200, 302, 400) if role == "admin" else (403,))
    elif endpoint in ("identity_accounts.unlink", "progress.cancel_planned_exam"):
        # The victim's provider account, or planned exam: nobody else's, not even an admin's.
        assert status == 404
    elif any(name in rule for name in ("engineer_id", "entry_id")):
        # Another person's records: only an admin (or the person's own manager) may.
        assert status in ((200, 302, 400) if role == "admin" else (403, 404))
    else:
        assert status in (200, 302, 400)


PAGES = [(endpoint, rule) for endpoint, rule, method in ROUTES if method == "GET"]


@pytest.mark.parametrize("role", ("engineer", "manager", "admin"))
def test_every_page_names_each_id_once(app: Flask, client, auth, scene, role, request):
    """A page with several forms (each with its CSRF token) still has unique ids (valid HTML)."""
    people, ids = scene
    auth.sign_in(people[role])
    app.config["WTF_CSRF_ENABLED"] = True  # the forms draw their tokens
    request.addfinalizer(lambda: app.config.update(WTF_CSRF_ENABLED=False))
    for endpoint, rule in PAGES:
        if endpoint.startswith(("api.", "scim.", "calendars.")):
            continue
        response = client.get(_url(rule, ids))
        if response.status_code != 200 or response.mimetype != "text/html":
            continue
        found = re.findall(r'\sid="([^"]*)"', response.text)
        repeated = sorted({name for name in found if found.count(name) > 1})
        assert not repeated, f"{rule} as {role} repeats the ids {repeated}"
