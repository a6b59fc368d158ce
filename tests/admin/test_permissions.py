"""Every admin route as a stranger, an engineer, a manager and an admin."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests import factories
from tests.helpers import sign_in
from tracker.people.services.teams import find_team

# (method, path, the admin's answer to a GET or an empty POST)
ROUTES = [
    ("get", "/admin/", 302),
    ("get", "/admin/people", 200),
    ("get", "/admin/people/new", 200),
    ("post", "/admin/people/new", 400),
    ("get", "/admin/people/{person}", 200),
    ("post", "/admin/people/{person}", 400),
    ("post", "/admin/people/{person}/deactivate", 302),
    ("post", "/admin/people/{person}/reactivate", 302),
    ("get", "/admin/teams", 200),
    ("get", "/admin/teams/new", 200),
    ("post", "/admin/teams/new", 400),
    ("get", "/admin/teams/{team}", 200),
    ("post", "/admin/teams/{team}", 400),
    ("get", "/admin/catalog", 200),
    ("post", "/admin/catalog", 400),
    ("get", "/admin/imports", 200),
    ("post", "/admin/imports", 400),
]


@pytest.fixture
def scene(db):
    """A person and a team to address, and one signed-in user per access role."""
    people = {
        role: factories.engineer(db, access_role=role, email=f"{role}@example.com")
        for role in ("engineer", "manager", "admin")
    }
    target = factories.engineer(db, name="Target Person")
    team = factories.team(db, name="Target Team")
    return people, target, team


@pytest.mark.parametrize(("method", "path", "admin_status"), ROUTES)
@pytest.mark.parametrize("role", [None, "engineer", "manager", "admin"])
def test_permission_matrix(client, scene, role, method, path, admin_status):
    people, target, team = scene
    if role is not None:
        sign_in(client, people[role].email)
    url = path.format(person=target.id, team=team.id)
    response = getattr(client, method)(url, data={})
    if role is None:
        assert response.status_code == 302
        assert urlsplit(response.headers["Location"]).path == "/login"
    elif role in ("engineer", "manager"):
        assert response.status_code == 403
    else:
        assert response.status_code == admin_status


@pytest.mark.parametrize("path", ["/admin/people/999999", "/admin/teams/999999"])
def test_unknown_ids_are_404(admin_client, path):
    assert admin_client.get(path).status_code == 404
    assert admin_client.post(path, data={}).status_code == 404


def test_admin_menu_only_for_admins(client, scene):
    people, _, _ = scene
    sign_in(client, people["manager"].email)
    assert 'href="/admin/people"' not in client.get("/profile").text
    client.post("/logout")
    sign_in(client, people["admin"].email)
    page = client.get("/profile").text
    assert 'href="/admin/people"' in page and 'href="/admin/imports"' in page


def test_admin_form_without_csrf_token_is_refused(admin_client, db, csrf_enabled):
    response = admin_client.post("/admin/teams/new", data={"name": "Sneaky", "gpus": "8"})
    assert response.status_code == 400
    assert find_team(db, "Sneaky") is None
