"""Who may call what: every endpoint as every role, with the exact status code."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy.orm import Session

from tests.api.conftest import Scene, row_counts
from tests.helpers import Api

ROLES = (
    "self",
    "other engineer",
    "manager",
    "other manager",
    "admin",
    "no token",
    "revoked token",
    "deactivated",
)
UNAUTHENTICATED = (401, 401, 401)


def expect(self, other, manager, other_manager, admin) -> dict[str, int]:
    return dict(
        zip(ROLES, (self, other, manager, other_manager, admin, *UNAUTHENTICATED), strict=True)
    )


READ = expect(200, 403, 200, 403, 200)

# endpoint name -> (method, url or body builder, expected status per role)
Request = Callable[[Scene], tuple[str, str, Any]]

ENDPOINTS: dict[str, tuple[Request, dict[str, int]]] = {
    "GET /me": (lambda s: ("GET", "/api/v1/me", None), expect(200, 200, 200, 200, 200)),
    "GET progress": (
        lambda s: ("GET", f"/api/v1/engineers/{s.target.id}/progress", None),
        READ,
    ),
    "GET engineer": (lambda s: ("GET", f"/api/v1/engineers/{s.target.id}", None), READ),
    "PATCH engineer's language": (
        lambda s: ("PATCH", f"/api/v1/engineers/{s.target.id}", {"locale": "es"}),
        # A person's settings are their own (or an admin's) to change, not the manager's.
        expect(200, 403, 403, 403, 200),
    ),
    "POST engineer": (
        lambda s: ("POST", "/api/v1/engineers", {"email": "new@example.com", "name": "New"}),
        expect(403, 403, 403, 403, 201),
    ),
    "GET hours of": (lambda s: ("GET", f"/api/v1/hours?engineer={s.target.id}", None), READ),
    "GET hours entry": (lambda s: ("GET", f"/api/v1/hours/{s.entry.id}", None), READ),
    "GET certifications of": (
        lambda s: ("GET", f"/api/v1/certifications?engineer={s.target.id}", None),
        READ,
    ),
    "POST hours for": (
        lambda s: (
            "POST",
            "/api/v1/hours",
            {"engineer": s.target.id, "course": "FDL", "date": "2026-11-20", "hours": 2},
        ),
        # Hours are the owner's (or an admin's) to log, not the manager's.
        expect(201, 403, 403, 403, 201),
    ),
    "PUT hours entry": (
        lambda s: (
            "PUT",
            f"/api/v1/hours/{s.entry.id}",
            {"course": "GPU-ARCH", "date": "2026-11-21", "hours": 3.5, "note": "lab"},
        ),
        expect(200, 403, 403, 403, 200),
    ),
    "DELETE hours entry": (
        lambda s: ("DELETE", f"/api/v1/hours/{s.entry.id}", None),
        expect(204, 403, 403, 403, 204),
    ),
    "POST exam attempt for": (
        lambda s: (
            "POST",
            "/api/v1/exam-attempts",
            {
                "engineer": s.target.id,
                "exam": "NCA-AIIO",
                "date": "2026-11-20",
                "score": 81,
                "passed": True,
            },
        ),
        expect(201, 403, 201, 403, 201),
    ),
    "POST credential for": (
        lambda s: (
            "POST",
            "/api/v1/credentials",
            {
                "engineer": s.target.id,
                "code": "CKA",
                "issued_on": "2026-10-01",
                "evidence": "LF-123",
            },
        ),
        expect(201, 403, 201, 403, 201),
    ),
}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_permission_matrix(
    api: Api, db: Session, scene_with_entry: Scene, endpoint: str, role: str
) -> None:
    build, expected = ENDPOINTS[endpoint]
    method, url, body = build(scene_with_entry)
    before = row_counts(db)

    response = api.call(method, url, scene_with_entry.tokens[role], body)

    assert response.status_code == expected[role], response.get_data(as_text=True)
    if response.status_code >= 400:
        assert response.is_json
        assert set(response.get_json()) == {"errors"}
        assert row_counts(db) == before, "a refused request stored something"
    if response.status_code == 401:
        assert "token" in response.get_json()["errors"]
        assert response.headers["WWW-Authenticate"].startswith("Bearer")
    if response.status_code == 403:
        assert set(response.get_json()["errors"]) & {"engineer", "entry"}


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("GET", "/api/v1/engineers/999999/progress"),
        ("GET", "/api/v1/engineers/99999999999999999999/progress"),
        ("GET", "/api/v1/hours?engineer=999999"),
        ("GET", "/api/v1/hours/999999"),
        ("PUT", "/api/v1/hours/999999"),
        ("DELETE", "/api/v1/hours/999999"),
        ("GET", "/api/v1/certifications?engineer=999999"),
        ("GET", "/api/v1/no-such-thing"),
    ],
)
def test_unknown_ids_are_404(api: Api, scene: Scene, method: str, url: str) -> None:
    body = {"course": "FDL", "date": "2026-11-20", "hours": 1} if method == "PUT" else None
    response = api.call(method, url, scene.tokens["admin"], body)
    assert response.status_code == 404
    assert "errors" in response.get_json()


def test_signed_in_browser_session_does_not_open_the_api(
    api: Api, app, auth, scene: Scene, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a bearer token authenticates the API; a session cookie does not."""
    monkeypatch.setitem(app.config, "WTF_CSRF_ENABLED", False)  # sign in without a form token
    auth.sign_in(scene.target)
    response = api.get("/api/v1/me")
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.parametrize(
    "header",
    ["", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Token abc", "Bearer trk_not-a-real-token"],
)
def test_malformed_or_unknown_tokens_are_401(api: Api, scene: Scene, header: str) -> None:
    response = api.get("/api/v1/me", headers={"Authorization": header} if header else {})
    assert response.status_code == 401
    assert response.get_json()["errors"]["token"]
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


def test_scheme_is_case_insensitive(api: Api, scene: Scene) -> None:
    response = api.get("/api/v1/me", headers={"Authorization": f"bearer {scene.tokens['self']}"})
    assert response.status_code == 200
