"""The OpenAPI document: valid 3.1, every API route in it, and real answers in its schemas.

Every API test also checks each answer it gets against the document (conftest's
answers_as_documented); the calls here make sure each kind of answer is seen.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from flask import Flask, Response
from openapi_spec_validator import validate
from sqlalchemy.orm import Session

from tests import factories
from tests.api.conformance import conforming, problems
from tests.api.conftest import Scene
from tests.helpers import Api
from tracker.api.openapi import Operation, api_routes
from tracker.catalog.rules import MAX_LEVEL, MIN_LEVEL
from tracker.people.rules import MAX_EXPERIENCE_MONTHS, MIN_PASSWORD_LENGTH


@pytest.fixture
def doc(api: Api) -> dict:
    response = api.get("/api/v1/openapi.json")  # no token: integrators read it first
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    return response.get_json()


def test_the_document_is_valid_openapi_3_1(doc: dict) -> None:
    validate(doc)
    assert doc["openapi"].startswith("3.1")
    assert doc["components"]["securitySchemes"]["bearer"] == {
        "type": "http",
        "scheme": "bearer",
        "description": doc["components"]["securitySchemes"]["bearer"]["description"],
    }
    assert doc["security"] == [{"bearer": []}]


def test_every_api_route_and_method_is_in_the_document(app: Flask, doc: dict) -> None:
    expected = set()
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/v1/") or rule.rule == "/api/v1/openapi.json":
            continue
        path = rule.rule
        for name in rule.arguments:
            converter = f"<int:{name}>" if f"<int:{name}>" in path else f"<{name}>"
            path = path.replace(converter, "{" + name + "}")
        expected |= {(path, m.lower()) for m in rule.methods - {"HEAD", "OPTIONS"}}
    listed = {(path, method) for path, methods in doc["paths"].items() for method in methods}
    assert len(expected) >= 19
    assert listed == expected


def test_operation_ids_are_the_endpoint_names_each_once(app: Flask, doc: dict) -> None:
    ids = [spec["operationId"] for methods in doc["paths"].values() for spec in methods.values()]
    assert len(ids) == len(set(ids))
    endpoints = {rule.endpoint.removeprefix("api.") for rule in app.url_map.iter_rules()}
    assert set(ids) <= endpoints
    assert {"log_hours", "hours_entry", "update_hours", "delete_hours"} <= set(ids)


def test_each_operation_lists_its_parameters_body_and_refusals(doc: dict) -> None:
    paths = doc["paths"]
    entry = paths["/api/v1/hours/{entry_id}"]
    entry_id, if_none_match = entry["get"]["parameters"]
    assert entry_id == {
        "name": "entry_id",
        "in": "path",
        "required": True,
        "schema": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1},
    }
    # Any operation: no live token, a URL or headers past the server's limits, no database.
    always = {"401", "414", "431", "503"}
    assert set(entry["delete"]["responses"]) == {"204", "403", "404", "412", *always}
    assert if_none_match["name"] == "If-None-Match"

    log = paths["/api/v1/hours"]["post"]
    assert log["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/LogHoursBody"
    }
    assert set(log["responses"]) == {"201", "400", "403", "413", "415", *always}
    assert "Location" in log["responses"]["201"]["headers"]
    body = doc["components"]["schemas"]["LogHoursBody"]
    assert body["additionalProperties"] is False
    assert set(body["required"]) == {"date", "hours"}

    filters = {p["name"]: p for p in paths["/api/v1/certifications"]["get"]["parameters"]}
    assert filters["status"]["schema"] == {
        "enum": ["valid", "expiring", "expired", "revoked"],
        "type": "string",
    }
    assert filters["expiring_within"]["schema"]["default"] == 90
    assert all(p["in"] == "query" and not p["required"] for p in filters.values())

    # The body of /roi may be left out (or be `{}`); one that is sent is JSON.
    roi = paths["/api/v1/roi"]["post"]
    assert roi["requestBody"]["required"] is False
    assert roi["requestBody"]["content"]["application/json"]["schema"] == {
        "anyOf": [{"$ref": "#/components/schemas/RoiBody"}, {"type": "object", "maxProperties": 0}]
    }
    assert "415" in roi["responses"]

    errors = doc["components"]["responses"]["Unauthorized"]
    assert errors["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ErrorsOut"
    }
    assert "WWW-Authenticate" in errors["headers"]


def _value(prop: dict) -> dict:
    """Return a field's schema without its null branch."""
    branches = [b for b in prop.get("anyOf", [prop]) if b != {"type": "null"}]
    assert len(branches) == 1, prop
    return branches[0]


def test_the_bodies_state_the_limits_the_server_enforces(doc: dict) -> None:
    schemas = doc["components"]["schemas"]
    engineer = schemas["EngineerBody"]["properties"]
    assert (_value(engineer["level"])["minimum"], _value(engineer["level"])["maximum"]) == (
        MIN_LEVEL,
        MAX_LEVEL,
    )
    months = _value(engineer["experience_months"])
    assert (months["minimum"], months["maximum"]) == (0, MAX_EXPERIENCE_MONTHS)
    assert _value(engineer["password"])["minLength"] == MIN_PASSWORD_LENGTH
    level = schemas["LevelBody"]["properties"]["level"]
    assert (level["minimum"], level["maximum"]) == (MIN_LEVEL, MAX_LEVEL)
    # A credential's evidence is required unless a badge (its own evidence) is sent.
    credential = schemas["CredentialOrBadgeBody"]
    assert _value(credential["properties"]["evidence"])["minLength"] == 1
    assert "required without a badge" in credential["properties"]["evidence"]["description"]
    assert {"required": ["code", "issued_on", "evidence"]} in credential["anyOf"]
    assert {"required": ["badge_url"]} in credential["anyOf"]
    assert all(
        "evidence" in form["required"] for form in credential["anyOf"] if len(form["required"]) > 1
    )


def test_a_body_field_that_may_be_left_out_may_be_null(doc: dict) -> None:
    """A body reads null as absent (tracker.schemas.Body): the document says so."""
    bodies = {
        spec["requestBody"]["content"]["application/json"]["schema"].get("$ref", "")
        for methods in doc["paths"].values()
        for spec in methods.values()
        if "requestBody" in spec
    }
    schemas = doc["components"]["schemas"]
    checked = 0
    for ref in filter(None, bodies):
        body = schemas[ref.rsplit("/", 1)[-1]]
        for name, prop in body["properties"].items():
            admits_null = {"type": "null"} in prop.get("anyOf", ())
            assert admits_null == (name not in body.get("required", ())), (ref, name)
            checked += 1
    assert checked > 30
    note = schemas["EvidenceBody"]["properties"]["note"]
    assert note == {
        "anyOf": [{"type": "string", "maxLength": 2000}, {"type": "null"}],
        "default": "",
        "title": "Note",
    }


def test_a_query_parameter_left_empty_is_absent(doc: dict) -> None:
    """`?on=` is no date at all (tracker.schemas.Query): OpenAPI's allowEmptyValue."""
    parameters = [
        p
        for methods in doc["paths"].values()
        for spec in methods.values()
        for p in spec.get("parameters", ())
        if p["in"] == "query"
    ]
    assert len(parameters) > 10
    assert all(p.get("allowEmptyValue") is (not p["required"]) for p in parameters)


def _links(doc: dict, path: str, method: str, status: str) -> dict:
    return doc["paths"][path][method]["responses"][status]["links"]


def test_answers_link_their_ids_to_the_operations_that_take_them(doc: dict) -> None:
    entry = "$response.body#/id"
    assert _links(doc, "/api/v1/hours", "post", "201") == {
        name: {"operationId": name, "parameters": {"path.entry_id": entry}}
        for name in ("delete_hours", "hours_entry", "update_hours")
    }
    first = "$response.body#/items/0/id"
    assert set(_links(doc, "/api/v1/teams", "get", "200")) == {
        "team_forecast", "team_history", "team_readiness", "team_skills",
    }  # fmt: skip
    assert _links(doc, "/api/v1/webhooks", "get", "200")["delete_webhook"]["parameters"] == {
        "path.endpoint_id": first
    }
    me = _links(doc, "/api/v1/me", "get", "200")
    assert me["career"]["parameters"] == {"path.engineer_id": entry}
    assert me["list_hours"]["parameters"] == {"query.engineer": entry}
    assert me == _links(doc, "/api/v1/engineers", "post", "201")


def test_every_link_names_an_operation_and_its_parameters(doc: dict) -> None:
    operations = {
        spec["operationId"]: spec for methods in doc["paths"].values() for spec in methods.values()
    }
    found = 0
    for spec in operations.values():
        for answer in spec["responses"].values():
            for link in answer.get("links", {}).values():
                target = operations[link["operationId"]]
                taken = {f"{p['in']}.{p['name']}" for p in target.get("parameters", ())}
                assert set(link["parameters"]) <= taken, link
                found += 1
    assert found > 30


def test_a_declared_id_the_answer_cannot_hold_is_refused(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tracker.api import openapi
    from tracker.api.hours import LOG_HOURS, log_hours

    for gives, reason in (
        ({"entry_id": "/note"}, "not an id"),
        ({"entry_id": "/items/0/id"}, "not an id"),
        ({"colour_id": "/id"}, "no operation takes"),
    ):
        monkeypatch.setitem(openapi._DECLARED, log_hours, replace(LOG_HOURS, gives=gives))
        with pytest.raises(LookupError, match=reason):
            openapi.document(app)


def test_every_api_view_declares_an_operation(app: Flask) -> None:
    routes = api_routes(app)  # refuses a view that declares none
    assert all(isinstance(r.operation, Operation) for r in routes)


def test_real_answers_match_their_schemas(
    app: Flask, api: Api, db: Session, scene: Scene, monkeypatch: pytest.MonkeyPatch
) -> None:
    me, admin, manager = scene.tokens["self"], scene.tokens["admin"], scene.tokens["manager"]
    target = scene.target.id
    hours = {"course": "FDL", "date": "2026-11-20", "hours": 1.5}
    factories.certification(
        db, scene.target, "NCA-AIIO", factories.TODAY, factories.TODAY.replace(year=2028)
    )
    with conforming(app) as found:
        seen: set[tuple[str, str, int]] = set()

        def call(method: str, url: str, token: str | None, status: int, **kw) -> Response:
            response = api.call(method, url, token, **kw)
            assert response.status_code == status, (method, url, response.get_json())
            seen.add((method, url.split("?")[0], status))
            return response

        created = call("POST", "/api/v1/hours", me, 201, json=hours).get_json()
        entry = f"/api/v1/hours/{created['id']}"
        call("GET", "/api/v1/me", me, 200)
        call("GET", "/api/v1/hours", me, 200)
        call("GET", entry, me, 200)
        call("PUT", entry, me, 200, json={**hours, "hours": 2})
        call("GET", "/api/v1/certifications", admin, 200)
        call("GET", f"/api/v1/engineers/{target}/progress", me, 200)
        call("GET", f"/api/v1/engineers/{target}/career", manager, 200)
        call("GET", f"/api/v1/engineers/{target}/skills", me, 200)
        call("GET", "/api/v1/teams", admin, 200)
        call("POST", "/api/v1/roi", admin, 200)
        call("GET", "/api/v1/bonuses", admin, 200)
        # Refusals: the error envelope, each with a status the operation lists.
        call("POST", "/api/v1/hours", me, 400, json={**hours, "hours": 25})
        call("GET", "/api/v1/hours?colour=red", me, 400)
        call("GET", "/api/v1/me", None, 401)
        call("GET", entry, scene.tokens["other engineer"], 403)
        call("GET", "/api/v1/hours/999999", me, 404)
        call("POST", "/api/v1/hours", me, 415, data="x", content_type="text/plain")
        monkeypatch.setitem(app.config, "MAX_CONTENT_LENGTH", 64)
        call("POST", "/api/v1/hours", me, 413, json={**hours, "note": "n" * 100})
        monkeypatch.setitem(app.config, "MAX_CONTENT_LENGTH", 1024 * 1024)
        call("DELETE", entry, me, 204)
    assert not found, "\n".join(found)
    assert {status for _, _, status in seen} == {200, 201, 204, 400, 401, 403, 404, 413, 415}


def test_an_answer_unlike_the_document_is_found(app: Flask) -> None:
    with app.test_request_context():
        undeclared = Response('{"errors": {}}', status=409, mimetype="application/json")
        assert problems(app, "api.me", "GET", undeclared)
        wrong_shape = Response('{"id": "one"}', status=200, mimetype="application/json")
        assert problems(app, "api.me", "GET", wrong_shape)
        not_json = Response("<p>hi</p>", status=401, mimetype="text/html")
        assert problems(app, "api.me", "GET", not_json)


def test_the_reference_page_shows_every_operation(client, doc: dict) -> None:
    response = client.get("/api/docs")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    page = response.get_data(as_text=True)
    for path, methods in doc["paths"].items():
        for method, spec in methods.items():
            assert f'id="op-{spec["operationId"]}"' in page
            assert f"{method.upper()} {path}" in page
    assert 'id="schema-ErrorsOut"' in page
    assert 'href="/api/v1/openapi.json"' in page
    # Vendored styles only: nothing from another site.
    assert "https://" not in page.split("<body>")[0]


def test_the_reference_page_keeps_the_signed_in_menu(client, auth, db: Session) -> None:
    person = factories.engineer(db, name="Reader")
    auth.sign_in(person)
    page = client.get("/api/docs").get_data(as_text=True)
    assert "Reader" in page and "Sign out" in page
    # The API itself still ignores the session: a token or nothing.
    assert client.get("/api/v1/me").status_code == 401


def test_a_certifications_expires_on_is_documented_as_its_last_valid_day(doc: dict) -> None:
    """Mail, pages and feeds say "valid through" that day; so does every schema that has it."""
    schemas = doc["components"]["schemas"]
    having = {
        name: schema["properties"]["expires_on"]
        for name, schema in schemas.items()
        if "expires_on" in schema.get("properties", {})
    }
    assert set(having) == {"CertificationOut", "CredentialOrBadgeBody"}
    for name, prop in having.items():
        assert "valid through this date" in prop.get("description", ""), name
