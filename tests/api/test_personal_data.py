"""GET /me/data and /engineers/ID/data: the web's personal-data file, its rules and its trail.

The privacy tests' scene holds a row of every kind, so the answer checked against the
OpenAPI document (tests/api/conftest.py) fills every section of it.
"""

from __future__ import annotations

import json

import pytest
from flask.testing import FlaskClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import Api, fresh, sign_in, token_for

# Its fixture `scene` is this module's (the tests name it: F811).
from tests.privacy.conftest import Scene, scene  # noqa: F401
from tracker.audit.models import AccountEvent
from tracker.people.models import Engineer
from tracker.people.services.persons import set_active
from tracker.privacy.schemas import PersonalDataOut
from tracker.privacy.services.export import SECTIONS

OWN = "/api/v1/me/data"
# What differs between two downloads: their moment, the downloads noted, the tokens' use.
OF_THE_MOMENT = {"generated_at", "account_events", "api_tokens"}


def _url(person: Engineer) -> str:
    return f"/api/v1/engineers/{person.id}/data"


def _downloads(db: Session) -> list[tuple[int | None, int | None, str | None]]:
    rows = db.scalars(
        select(AccountEvent).where(AccountEvent.kind == "data_exported").order_by(AccountEvent.id)
    )
    return [(row.engineer_id, row.actor_id, row.method) for row in rows]


def _lasting(document: dict) -> dict:
    return {key: value for key, value in document.items() if key not in OF_THE_MOMENT}


def _checked(response, people: Scene) -> dict:
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    text = response.get_data(as_text=True)
    for what, value in {**people.secrets, **people.others}.items():
        assert value not in text, f"the answer holds the {what}"
    return json.loads(text)


@pytest.fixture
def admin(db: Session) -> Engineer:
    return factories.engineer(db, name="Ada Admin", email="ada@example.com", access_role="admin")


def test_a_person_gets_the_file_their_profile_gives(
    api: Api,
    client: FlaskClient,
    db: Session,
    scene: Scene,  # noqa: F811
):
    answer = _checked(api.get(OWN, token_for(db, scene.person)), scene)
    assert answer["person"]["id"] == scene.person.id
    assert all(answer[key] for key in ("hour_logs", "certifications", "skill_assessments"))
    sign_in(client, scene.person)
    web = json.loads(client.get("/profile/data.json").get_data(as_text=True))
    assert list(answer) == list(web)
    assert _lasting(answer) == _lasting(web)
    # Noted in the trail as the page's download is, through the API; their own names no actor.
    assert _downloads(db) == [(scene.person.id, None, "api"), (scene.person.id, None, "web")]
    noted = [(e["kind"], e["method"]) for e in web["account_events"]]
    assert ("data_exported", "api") in noted


def test_an_admin_gets_anyones(api: Api, db: Session, scene: Scene, admin: Engineer):  # noqa: F811
    token = token_for(db, admin)
    answer = _checked(api.get(_url(scene.person), token), scene)
    assert answer["person"]["email"] == "pat@example.com"
    assert _downloads(db) == [(scene.person.id, admin.id, "api")]
    missing = api.get("/api/v1/engineers/999999/data", token)
    assert missing.status_code == 404
    assert set(missing.get_json()["errors"]) == {"engineer"}
    assert _downloads(db) == [(scene.person.id, admin.id, "api")]


@pytest.mark.parametrize("who", ["person", "manager", "senior", "other"])
def test_nobody_else_gets_a_persons_through_its_url(api: Api, db: Session, scene: Scene, who):  # noqa: F811
    """Not their manager, nor the person by this URL (theirs is /me/data): as on the web."""
    token = token_for(db, getattr(scene, who))
    refused = api.get(_url(scene.person), token)
    assert refused.status_code == 403
    assert refused.get_json() == {
        "errors": {
            "engineer": "only an admin may download another person's data;"
            " your own is GET /api/v1/me/data"
        }
    }
    # An id that names no one is refused alike: the URL tells nothing to a non-admin.
    assert api.get("/api/v1/engineers/999999/data", token).status_code == 403
    assert _downloads(db) == []
    assert api.get(OWN, token).get_json()["person"]["id"] == getattr(scene, who).id


def test_the_refusal_speaks_the_requests_language(api: Api, db: Session, scene: Scene):  # noqa: F811
    token = token_for(db, scene.other)
    refused = api.get(_url(scene.person), token, headers={"Accept-Language": "es"})
    assert refused.get_json()["errors"]["engineer"].startswith("solo un administrador")


def test_without_a_token_nothing_is_given(api: Api, db: Session, scene: Scene):  # noqa: F811
    assert api.get(OWN, None).status_code == 401
    assert api.get(_url(scene.person), None).status_code == 401
    assert _downloads(db) == []


def test_the_document_describes_the_file(api: Api, db: Session, scene: Scene):  # noqa: F811
    spec = api.get("/api/v1/openapi.json").get_json()
    for path in ("/api/v1/me/data", "/api/v1/engineers/{engineer_id}/data"):
        answer = spec["paths"][path]["get"]["responses"]["200"]
        schema = answer["content"]["application/json"]["schema"]
        assert schema == {"$ref": "#/components/schemas/PersonalDataOut"}
    assert "403" in spec["paths"]["/api/v1/engineers/{engineer_id}/data"]["get"]["responses"]
    described = spec["components"]["schemas"]["PersonalDataOut"]
    assert described["additionalProperties"] is False
    # Every key the service writes is described, in the file's order.
    keys = ["format", "version", "generated_at", "person", *SECTIONS]
    assert list(PersonalDataOut.model_fields) == keys
    assert set(described["properties"]) == set(keys)


# --- POST /engineers/ID/erase -------------------------------------------------------------


def _erase_url(person: Engineer) -> str:
    return f"/api/v1/engineers/{person.id}/erase"


def test_an_admin_erases_a_departed_person(api: Api, db: Session, scene: Scene, admin: Engineer):  # noqa: F811
    token = token_for(db, admin)
    url = _erase_url(scene.person)
    active = api.call("POST", url, token, {"email": "pat@example.com"})
    assert active.status_code == 400 and set(active.get_json()["errors"]) == {"active"}
    set_active(db, scene.person, False, admin, via="api")
    wrong = api.call("POST", url, token, {"email": "olga.other@example.com"})
    assert wrong.status_code == 400 and set(wrong.get_json()["errors"]) == {"email"}
    assert fresh(db, scene.person).erased_at is None

    done = api.call("POST", url, token, {"email": "Pat@Example.com"})
    assert done.status_code == 200, done.get_data(as_text=True)
    person_id = scene.person.id
    assert done.get_json()["name"] == f"Former member #{person_id}"
    assert done.get_json()["email"] == f"erased-{person_id}@invalid"
    again = api.call("POST", url, token, {"email": "pat@example.com"})
    assert again.status_code == 200 and again.get_json() == done.get_json()
    events = db.scalars(select(AccountEvent).where(AccountEvent.kind == "erased")).all()
    assert [(e.engineer_id, e.actor_id, e.method) for e in events] == [(person_id, admin.id, "api")]


@pytest.mark.parametrize("who", ["person", "manager", "other"])
def test_only_an_admin_erases(api: Api, db: Session, scene: Scene, who):  # noqa: F811
    set_active(db, scene.person, False, via="api")
    response = api.call(
        "POST", _erase_url(scene.person), token_for(db, getattr(scene, who)), {"email": "x@y.z"}
    )
    assert response.status_code in (401, 403)
    assert fresh(db, scene.person).erased_at is None
