"""The security matrix's routes, and the URLs naming a role's own or a stranger's objects."""

from __future__ import annotations

from typing import Any

from tests.factories import SECRET_KEY
from tests.helpers import routes
from tests.security.conftest import World
from tracker.people.models import Engineer, Team
from tracker.reminders.services.unsubscribe import unsubscribe_token

# Values for URL parameters of other features; an unknown one gets a value naming nothing.
OTHER_PARAMS = {"speciality": "infiniband-rdma"}

ROUTES = routes()
# SCIM, like the API, opens with a bearer token only: tests/test_route_matrix.py checks that
# every SCIM route refuses each role's session with 401, and tests/scim its tokens.
WEB = [r for r in ROUTES if not r[0].startswith(("api.", "scim."))]
API = [r for r in ROUTES if r[0].startswith("api.")]


def objects(world: World, role: str, scope: str, endpoint: str) -> dict[str, Any]:
    """Return the ids a role's request names: its own objects, or the stranger's."""
    plan = world.plans["victim" if scope == "other" or role == "anonymous" else role]
    if scope == "other" or role == "anonymous":
        person, entry, team = world.victim, world.entries["victim"], world.victim_team
    elif role == "engineer":
        person, entry, team = world.engineer, world.entries["engineer"], world.team
    elif role == "manager":
        # A manager's own: their report, their own hour entry, their team.
        person, entry, team = world.engineer, world.entries["manager"], world.team
    else:
        person, entry, team = world.engineer, world.entries["admin"], world.team
    return {
        "engineer_id": person.id,
        "person_id": person.id,
        "entry_id": entry.id,
        "plan_id": plan.id,
        "team_id": team.id,
        "notification_id": world.notification.id,
        "endpoint_id": world.webhook.id,
        "delivery_id": world.delivery.id,
        "mapping_id": world.mapping.id,
        "token": _token(endpoint, person, team),
        **OTHER_PARAMS,
    }


def _token(endpoint: str, person: Engineer, team: Team) -> str | None:
    """Return the secret a URL of `endpoint` takes: a feed's token, a digest link's."""
    if endpoint == "mail.unsubscribe":
        return unsubscribe_token(SECRET_KEY, person.id)
    return team.calendar_token if endpoint == "calendars.team_feed" else person.calendar_token


def url_for_rule(rule: str, ids: dict[str, Any]) -> str:
    url = rule
    while "<" in url:
        start, end = url.index("<"), url.index(">")
        converter_name = url[start + 1 : end]
        name = converter_name.split(":")[-1]
        value = ids.get(name, 999999 if converter_name.startswith("int:") else "unknown")
        url = url[:start] + str(value) + url[end + 1 :]
    return url
