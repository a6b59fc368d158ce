"""Junk in any attribute of a User, a PATCH or a list's parameters: a SCIM error, never a 500.

An identity provider's mapping can send any JSON value where the tracker expects
a string: each attribute a User may carry gets each junk value, on creation
(POST), replacement (PUT) and in a PATCH of each kind, with a path and without.
"""

from __future__ import annotations

from typing import Any

from tests.scim.conftest import Scim, user_body

ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"
JUNK: tuple[Any, ...] = (
    "",
    -1,
    10**400,
    "9" * 400,
    None,
    True,
    [],
    {"a": 1},
    "x" * 5000,
    "ñ€😀",
    "\x00x",
    0.5,
)
ATTRIBUTES = (
    ("userName",),
    ("name",),
    ("name", "formatted"),
    ("name", "givenName"),
    ("name", "familyName"),
    ("displayName",),
    ("externalId",),
    ("active",),
    ("emails",),
    ("schemas",),
    ("id",),
    ("meta",),
    (ENTERPRISE,),
    (ENTERPRISE, "manager"),
    ("groups",),
)
LIST_PARAMETERS = ("filter", "startIndex", "count", "attributes", "excludedAttributes")


def _set(body: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    node = body
    for name in path[:-1]:
        if not isinstance(node.get(name), dict):
            node[name] = {}
        node = node[name]
    node[path[-1]] = value
    return body


def test_junk_in_any_attribute_is_refused_or_taken_never_a_500(scim: Scim) -> None:
    user = scim.create_user("base@example.com")["id"]
    failures = []
    for path in ATTRIBUTES:
        for junk in JUNK:
            body = _set(user_body("junk@example.com"), path, junk)
            answers = [scim.call("POST", "/Users", body), scim.call("PUT", f"/Users/{user}", body)]
            for op in ("add", "replace", "remove"):
                dotted = ".".join(path)
                answers.append(
                    scim.patch(f"/Users/{user}", {"op": op, "path": dotted, "value": junk})
                )
                answers.append(scim.patch(f"/Users/{user}", {"op": op, "value": {dotted: junk}}))
            for answer in answers:
                if answer.status_code >= 500:
                    failures.append(f"{answer.request.method} {path}={junk!r:.30}")
                if answer.status_code == 201:
                    scim.delete(f"/Users/{answer.get_json(force=True)['id']}")
    for junk in JUNK:
        for parameter in LIST_PARAMETERS:
            answer = scim.client.get(
                "/scim/v2/Users",
                query_string={parameter: str(junk)},
                headers={"Authorization": f"Bearer {scim.token}"},
            )
            if answer.status_code >= 500:
                failures.append(f"GET /Users?{parameter}={junk!r:.30}")
    assert not failures, failures
