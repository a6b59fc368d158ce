"""A SCIM caller: the test client with a provisioning token, speaking application/scim+json."""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from tracker.scim.services.tokens import create_scim_token

USER = "urn:ietf:params:scim:schemas:core:2.0:User"
GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group"
PATCH = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
ERROR = "urn:ietf:params:scim:api:messages:2.0:Error"
BASE = "/scim/v2"


class Scim:
    """Call /scim/v2 as an identity provider does."""

    def __init__(self, client: FlaskClient, token: str | None) -> None:
        self.client = client
        self.token = token

    def call(self, method: str, path: str, body: Any = None, **headers: str) -> TestResponse:
        sent = dict(headers)
        if self.token is not None:
            sent["Authorization"] = f"Bearer {self.token}"
        data = None
        if body is not None:
            data = json.dumps(body)
            sent["Content-Type"] = "application/scim+json"
        return self.client.open(BASE + path, method=method, data=data, headers=sent)

    def get(self, path: str, **headers: str) -> TestResponse:
        return self.call("GET", path, **headers)

    def post(self, path: str, body: Any, **headers: str) -> TestResponse:
        return self.call("POST", path, body, **headers)

    def put(self, path: str, body: Any, **headers: str) -> TestResponse:
        return self.call("PUT", path, body, **headers)

    def patch(self, path: str, *operations: dict[str, Any], **headers: str) -> TestResponse:
        return self.call(
            "PATCH", path, {"schemas": [PATCH], "Operations": list(operations)}, **headers
        )

    def delete(self, path: str, **headers: str) -> TestResponse:
        return self.call("DELETE", path, **headers)

    def create_user(self, email: str, name: str = "Ada Lovelace", **more: Any) -> dict[str, Any]:
        response = self.post(
            "/Users", {"schemas": [USER], "userName": email, "name": {"formatted": name}, **more}
        )
        assert response.status_code == 201, response.get_data(as_text=True)
        return response.get_json(force=True)


def user_body(email: str, name: str = "Ada Lovelace", **more: Any) -> dict[str, Any]:
    return {"schemas": [USER], "userName": email, "name": {"formatted": name}, **more}


def error_of(response: TestResponse, status: int, scim_type: str | None = None) -> str:
    """Check a SCIM Error answer (status as a string, scimType); return its detail."""
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/scim+json"
    body = response.get_json(force=True)
    assert body["schemas"] == [ERROR]
    assert body["status"] == str(status)
    assert body.get("scimType") == scim_type
    return body["detail"]


@pytest.fixture
def scim_token(db) -> str:
    return create_scim_token(db, "test")[1]


@pytest.fixture
def scim(client: FlaskClient, scim_token: str) -> Scim:
    return Scim(client, scim_token)
