"""Issuing Open Badges 3.0 for the internal track: signed, shared, revoked, verified elsewhere."""

from __future__ import annotations

import datetime as dt
import json
import re
from urllib.parse import urlsplit

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from tests import factories
from tests.helpers import confirmation
from tests.issuer import vc_node
from tests.issuer.conftest import EARNED, EXPIRES
from tracker.badges.services import proofs
from tracker.badges.services.ob3 import verify_ob3
from tracker.badges.services.verified import BadgeRefused
from tracker.issuer.models import IssuedCredential
from tracker.issuer.services.baking import unbake_png
from tracker.progress.models import Certification

NOW = dt.datetime(2026, 11, 29, 12, 0, tzinfo=dt.UTC)


def _fetch(app: Flask):
    """Fetch the tracker's own URLs through the test client, as a verifier would over HTTP."""
    base = urlsplit(app.config["BASE_URL"])
    client = app.test_client()

    def fetch(url: str) -> bytes:
        parts = urlsplit(url)
        if (parts.scheme, parts.netloc) != (base.scheme, base.netloc):
            raise BadgeRefused(f"not the tracker: {url}", "unreachable")
        response = client.get(parts.path)
        if response.status_code != 200:
            raise BadgeRefused(f"{url} answered {response.status_code}", "unreachable")
        return response.get_data()

    return fetch


def _issue(client: FlaskClient, cert: Certification, show_name: bool = False) -> IssuedCredential:
    data = {f"share-{cert.id}-show_name": "y"} if show_name else {}
    response = client.post(f"/open-badges/certifications/{cert.id}/issue", data=data)
    assert response.status_code == 302
    return (
        client.application.extensions["tracker.sessions"]()
        .scalars(select(IssuedCredential).where(IssuedCredential.certification_id == cert.id))
        .one()
    )


def _handed(app: Flask) -> dict[str, object]:
    """The issuer's DID document and status list, handed to the independent verifier."""
    fetch = _fetch(app)
    did = proofs.did_web(app.config["BASE_URL"].rstrip("/"))
    status_url = app.config["BASE_URL"].rstrip("/") + "/ob/status"
    return {
        did: json.loads(fetch(proofs.did_web_url(did))),
        status_url: json.loads(fetch(status_url)),
    }


def test_an_issued_badge_verifies_with_the_independent_verifier_and_ours(
    app, db, client, auth, holder, pinned_today
):
    person, cert = holder
    auth.sign_in(person)
    row = _issue(client, cert)

    download = client.get(f"/ob/{row.public_token}/credential.json")
    assert download.status_code == 200
    assert (
        download.headers["Content-Disposition"]
        == 'attachment; filename="internal-gpu-operations.json"'
    )
    credential = json.loads(download.get_data())
    assert credential["issuer"]["id"] == proofs.did_web(app.config["BASE_URL"].rstrip("/"))
    assert credential["validFrom"] == "2026-01-10T00:00:00Z"
    assert credential["validUntil"] == "2028-01-31T23:59:59Z"
    assert "ada@example.com" not in download.get_data(as_text=True)

    verdict = vc_node.verify(credential, NOW, _handed(app))
    assert verdict == {"verified": True, "errors": [], "revoked": False}

    verified = verify_ob3(
        download.get_data(as_text=True), [person.email], pinned_today, _fetch(app)
    )
    assert (verified.recipient, verified.issued_on, verified.expires_on) == (
        person.email,
        EARNED,
        EXPIRES,
    )
    assert verified.badge_name == "Internal GPU operations"
    assert verified.badge_class_id == "http://127.0.0.1:5000/ob/achievements/INT-GPU-OPS"


def test_a_tampered_issued_badge_fails_the_independent_verifier(app, db, client, auth, holder):
    person, cert = holder
    auth.sign_in(person)
    row = _issue(client, cert)
    credential = json.loads(row.document)
    credential["validUntil"] = "2099-01-31T23:59:59Z"

    verdict = vc_node.verify(credential, NOW, _handed(app))

    assert verdict["verified"] is False
    assert any("Invalid signature" in error for error in verdict["errors"])


def test_an_admin_revokes_a_badge_and_its_status_bit_is_set(
    app, db, client, auth, holder, pinned_today
):
    person, cert = holder
    auth.sign_in(person)
    row = _issue(client, cert)
    auth.logout()
    admin = factories.engineer(db, access_role="admin")
    auth.sign_in(admin)
    page = client.get("/open-badges").get_data(as_text=True)
    assert f"Revoke #{row.id}" in page

    assert client.post(f"/open-badges/{row.id}/revoke").status_code == 302

    verdict = vc_node.verify(json.loads(row.document), NOW, _handed(app))
    assert verdict["revoked"] is True
    with pytest.raises(BadgeRefused) as refused:
        verify_ob3(row.document, [person.email], pinned_today, _fetch(app))
    assert refused.value.kind == "revoked"
    assert "revoked by its issuer" in app.test_client().get(f"/ob/{row.public_token}").get_data(
        as_text=True
    )


def test_the_status_list_is_signed_again_only_when_it_changes(
    app, db, client, auth, holder, monkeypatch
):
    person, cert = holder
    auth.sign_in(person)
    row = _issue(client, cert)
    # A clock that moves a minute a request: a list signed again would say so.
    minutes = iter(range(1000))
    monkeypatch.setattr(
        "tracker.issuer.views.utcnow",
        lambda: dt.datetime(2026, 12, 1, 9) + dt.timedelta(minutes=next(minutes)),
    )
    first = client.get("/ob/status")
    assert first.status_code == 200 and first.headers["ETag"]

    assert client.get("/ob/status").get_json() == first.get_json()
    held = client.get("/ob/status", headers={"If-None-Match": first.headers["ETag"]})
    assert held.status_code == 304 and held.get_data() == b""

    auth.logout()
    auth.sign_in(factories.engineer(db, access_role="admin"))
    assert client.post(f"/open-badges/{row.id}/revoke").status_code == 302
    changed = client.get("/ob/status", headers={"If-None-Match": first.headers["ETag"]})
    assert changed.status_code == 200
    assert changed.get_json()["proof"]["created"] != first.get_json()["proof"]["created"]
    assert vc_node.verify(json.loads(row.document), NOW, _handed(app))["revoked"] is True


def test_a_renewed_or_deleted_certification_revokes_its_badge(
    app, db, client, auth, holder, internal
):
    person, cert = holder
    auth.sign_in(person)
    row = _issue(client, cert)
    renewal = Certification(
        engineer_id=person.id,
        credential_id=internal.id,
        earned_on=dt.date(2026, 11, 1),
        expires_on=dt.date(2028, 11, 30),
        evidence="renewed",
        renews_id=cert.id,
    )
    db.add(renewal)
    db.flush()
    assert vc_node.verify(json.loads(row.document), NOW, _handed(app))["revoked"] is True

    second = _issue(client, renewal)
    assert vc_node.verify(json.loads(second.document), NOW, _handed(app))["revoked"] is False
    db.delete(renewal)
    db.flush()
    db.expire_all()
    assert db.get(IssuedCredential, second.id).certification_id is None
    assert vc_node.verify(json.loads(second.document), NOW, _handed(app))["revoked"] is True


def test_the_public_page_shows_the_name_only_when_the_holder_agrees(app, db, client, auth, holder):
    person, cert = holder
    auth.sign_in(person)
    row = _issue(client, cert)
    visitor = app.test_client()

    page = visitor.get(f"/ob/{row.public_token}")
    assert page.status_code == 200
    assert "This Open Badge is valid." in page.get_data(as_text=True)
    assert "Ada Lovelace" not in page.get_data(as_text=True)
    assert person.email not in page.get_data(as_text=True)

    client.post(
        f"/open-badges/certifications/{cert.id}/sharing", data={f"share-{cert.id}-show_name": "y"}
    )
    assert "Ada Lovelace" in visitor.get(f"/ob/{row.public_token}").get_data(as_text=True)
    client.post(f"/open-badges/certifications/{cert.id}/sharing", data={})
    assert "Ada Lovelace" not in visitor.get(f"/ob/{row.public_token}").get_data(as_text=True)
    assert visitor.get("/ob/no-such-token").status_code == 404


def test_the_public_page_speaks_spanish(app, db, client, auth, holder):
    person, cert = holder
    auth.sign_in(person)
    row = _issue(client, cert)

    page = app.test_client().get(f"/ob/{row.public_token}", headers={"Accept-Language": "es"})

    assert "Esta Open Badge es válida." in page.get_data(as_text=True)


def test_an_expired_certification_shows_an_expired_badge(
    app, db, client, auth, holder, pinned_today
):
    person, cert = holder
    cert.expires_on = dt.date(2026, 6, 30)
    db.flush()
    auth.sign_in(person)
    row = _issue(client, cert)

    assert "has expired" in app.test_client().get(f"/ob/{row.public_token}").get_data(as_text=True)
    with pytest.raises(BadgeRefused) as refused:
        verify_ob3(row.document, [person.email], pinned_today, _fetch(app))
    assert refused.value.kind == "expired"


def test_only_the_holders_internal_certifications_are_issued(app, db, client, auth, holder):
    person, cert = holder
    vendor = factories.certification(db, person, "NCA-AIIO", EARNED)
    other = factories.engineer(db)
    auth.sign_in(other)
    assert client.post(f"/open-badges/certifications/{cert.id}/issue").status_code == 403
    auth.logout()
    auth.sign_in(person)

    response = client.post(f"/open-badges/certifications/{vendor.id}/issue", follow_redirects=True)

    assert "only certifications of the internal track can be issued" in response.get_data(
        as_text=True
    )
    assert db.scalar(select(func.count()).select_from(IssuedCredential)) == 0
    _issue(client, cert)
    again = client.post(f"/open-badges/certifications/{cert.id}/issue", follow_redirects=True)
    assert "already has an Open Badge" in again.get_data(as_text=True)


def test_the_baked_png_and_svg_hold_the_credential(app, db, client, auth, holder, pinned_today):
    person, cert = holder
    auth.sign_in(person)
    row = _issue(client, cert)
    visitor = app.test_client()

    png = visitor.get(f"/ob/{row.public_token}/badge.png")
    assert png.mimetype == "image/png"
    baked = unbake_png(png.get_data())
    assert baked == row.document
    assert (
        verify_ob3(baked, [person.email], pinned_today, _fetch(app)).assertion_id
        == row.credential_uri
    )
    svg = visitor.get(f"/ob/{row.public_token}/badge.svg").get_data(as_text=True)
    inside = re.search(
        r"<openbadges:credential><!\[CDATA\[(.*)\]\]></openbadges:credential>", svg, re.S
    )
    assert inside and json.loads(inside.group(1))["id"] == row.credential_uri


def test_a_rotated_key_keeps_older_badges_verifiable(app, db, client, auth, holder, runner):
    person, cert = holder
    auth.sign_in(person)
    row = _issue(client, cert)

    result = runner.invoke(args=["issuer", "init-key", "--rotate"])

    assert result.exit_code == 0, result.output
    assert "signing key did:web:127.0.0.1%3A5000#key-" in result.output
    document = app.test_client().get("/.well-known/did.json").get_json()
    assert len(document["verificationMethod"]) == 2
    assert vc_node.verify(json.loads(row.document), NOW, _handed(app))["verified"] is True
    keys = app.test_client().get("/.well-known/jwks.json").get_json()["keys"]
    assert [k["kty"] for k in keys] == ["OKP", "OKP"] and all("d" not in k for k in keys)


def test_a_tracker_under_a_path_publishes_its_did_where_did_web_looks(app, db):
    visitor = app.test_client()
    under = visitor.get("/did.json", base_url="http://127.0.0.1:5000/tracker")

    assert under.status_code == 200
    assert under.get_json()["verificationMethod"][0]["type"] == "Multikey"
    assert (
        proofs.did_web_url(proofs.did_web("https://host.example/tracker"))
        == "https://host.example/tracker/did.json"
    )


def test_revoking_a_badge_asks_first_naming_it_and_what_stays(app, db, client, auth, holder):
    person, cert = holder
    auth.sign_in(person)
    row = _issue(client, cert)
    auth.logout()
    auth.sign_in(factories.engineer(db, access_role="admin"))
    url = f"/open-badges/{row.id}/revoke"
    assert f'<a href="{url}" role="button"' in client.get("/open-badges").text

    asked = confirmation(client, url)

    assert asked.question == (
        f"Revoke Open Badge #{row.id}, Internal GPU operations of Ada Lovelace?"
    )
    assert "a revoked badge cannot be restored" in asked.text
    assert "The certification itself stays on record" in asked.text
    assert asked.back == "/open-badges"
    assert db.get(IssuedCredential, row.id).revoked_at is None

    response = asked.confirm(follow_redirects=True)

    assert "The Open Badge is revoked." in response.text
    db.expire_all()
    assert db.get(IssuedCredential, row.id).revoked_at is not None
    assert db.get(Certification, cert.id) is not None
    # Revoked, nothing is left to ask about: back to the list.
    assert client.get(url).headers["Location"] == "/open-badges"
