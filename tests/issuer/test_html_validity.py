"""The Open Badges pages are valid HTML (the Nu HTML checker), with badges issued.

The demo crawl of tests/test_html_validity.py issues no badge: these are the pages it
cannot show, the public page of a badge (valid and named, revoked) and the lists of
issued badges. The public page passes axe in tests/issuer/test_served.py.
"""

from __future__ import annotations

import pytest

from tests import factories
from tests.nu import JAVA, VNU_JAR, grouped, validate


@pytest.mark.skipif(JAVA is None, reason="java not found: the Nu HTML check is skipped")
@pytest.mark.skipif(not VNU_JAR.exists(), reason=f"{VNU_JAR} not found: Nu HTML check skipped")
def test_the_open_badges_pages_are_valid_html(app, db, client, auth, holder, internal, tmp_path):
    person, cert = holder
    second = factories.certification(db, person, internal.code, factories.TODAY)
    saved: dict[str, str] = {}

    def save(label: str, response, status: int = 200) -> None:
        assert response.status_code == status, label
        name = f"{len(saved):02d}.html"
        (tmp_path / name).write_bytes(response.get_data())
        saved[name] = label

    auth.sign_in(person)
    save("nothing issued", client.get("/open-badges"))
    client.post(
        f"/open-badges/certifications/{cert.id}/issue", data={f"share-{cert.id}-show_name": "y"}
    )
    save("one issued, one not", client.get("/open-badges"))
    page = client.get("/open-badges").get_data(as_text=True)
    token = page.split('href="/ob/', 1)[1].split('"', 1)[0]
    visitor = app.test_client()
    save("public page, named", visitor.get(f"/ob/{token}"))
    save("public page in Spanish", visitor.get(f"/ob/{token}", headers={"Accept-Language": "es"}))
    auth.logout()
    auth.sign_in(factories.engineer(db, access_role="admin"))
    save("every badge issued", client.get("/open-badges"))
    issued_id = int(
        client.get("/open-badges").get_data(as_text=True).split("Revoke #", 1)[1].split("<", 1)[0]
    )
    client.post(f"/open-badges/{issued_id}/revoke")
    save("public page, revoked", visitor.get(f"/ob/{token}"))
    assert second.id

    messages = validate(tmp_path, sorted(saved))
    errors = [m for m in messages if m.get("type") != "info"]
    assert not errors, grouped(errors, saved)
