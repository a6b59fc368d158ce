"""The credentials page's badge import and the admin's mappings page."""

from __future__ import annotations

import datetime as dt
import io
import json
import re

from tests import factories
from tests.badges.conftest import Issuer, entered_by_hand
from tests.helpers import confirmation, count, fresh
from tracker.audit.models import AuditEvent
from tracker.badges.models import BadgeMapping, ImportedBadge
from tracker.badges.services.fetching import make_fetch
from tracker.badges.services.imports import check_badge, record_badge
from tracker.badges.services.mapping import map_badge_class
from tracker.people.models import Engineer
from tracker.progress.models import Certification


def _import(client, who: Engineer, url: str):
    """Import the badge at `url` for `who` on the credentials page, following the redirect."""
    return client.post(
        "/credentials/badges",
        data={"badge_engineer": who.id, "badge_url": url},
        follow_redirects=True,
    )


def test_an_engineer_imports_a_hosted_badge_and_sees_it_verified(
    db, client, auth, pinned_today, issuer: Issuer
) -> None:
    ada = factories.engineer(db, email="ada@example.com")
    auth.sign_in(ada)
    issuer.assertion("/a/1", ada.email, issued="2026-03-15", expires="2028-03-15")
    response = _import(client, ada, issuer.server.url("/a/1"))
    assert response.status_code == 200
    assert "GPU Operations Practitioner verified and recorded." in response.text
    cert = db.query(Certification).filter_by(engineer_id=ada.id).one()
    assert (str(cert.earned_on), str(cert.expires_on)) == ("2026-03-15", "2028-03-15")
    assert cert.verified_at is not None and cert.credential.issuer == "Example Academy"
    page = client.get("/credentials").text
    assert "✔</span> verified" in page and "badge by Example Academy" in page
    assert "2028-03-15" in page


def test_a_badge_verifies_the_certification_entered_by_hand_for_its_credential_and_day(
    db, client, auth, pinned_today, issuer: Issuer
) -> None:
    ada = factories.engineer(db, email="ada@example.com")
    by_hand = entered_by_hand(db, issuer, ada)
    auth.sign_in(ada)
    issuer.assertion("/a/1", ada.email, issued="2026-03-15", expires="2028-03-15")
    response = _import(client, ada, issuer.server.url("/a/1"))
    assert response.status_code == 200
    assert (
        "GPU Operations Practitioner earned on 2026-03-15 was already recorded:"
        " the badge verifies it; nothing was added."
    ) in response.text
    (cert,) = db.query(Certification).filter_by(engineer_id=ada.id).all()
    assert cert.id == by_hand.id and fresh(db, cert).verified_at is not None
    assert (cert.evidence, str(cert.expires_on)) == (issuer.server.url("/a/1"), "2028-03-15")
    assert db.query(ImportedBadge).one().certification_id == cert.id
    change = db.query(AuditEvent).filter_by(entity_id=cert.id, action="update").one()
    assert change.before["evidence"] == "certificate 123"
    assert change.after["evidence"] == issuer.server.url("/a/1")
    # Another day's badge of the same credential is another certification.
    issuer.assertion("/a/2", ada.email, issued="2026-04-01")
    response = _import(client, ada, issuer.server.url("/a/2"))
    assert "GPU Operations Practitioner verified and recorded." in response.text
    assert count(db, Certification) == 2


def test_the_verifying_summary_speaks_spanish(
    db, client, auth, pinned_today, issuer: Issuer
) -> None:
    ada = factories.engineer(db, email="ada@example.com", locale="es")
    entered_by_hand(db, issuer, ada)
    auth.sign_in(ada)
    response = _import(client, ada, issuer.server.url("/a/1"))
    assert (
        "GPU Operations Practitioner obtenida el 15 mar 2026 ya estaba registrada:"
        " la insignia la verifica; no se ha añadido nada."
    ) in response.text


def test_a_refused_badge_says_why_and_stores_nothing(
    db, client, auth, pinned_today, issuer: Issuer
) -> None:
    ada = factories.engineer(db, email="ada@example.com")
    auth.sign_in(ada)
    issuer.assertion("/a/1", "eve@example.com")
    before = count(db, Certification)
    response = client.post(
        "/credentials/badges",
        data={"badge_engineer": ada.id, "badge_url": issuer.server.url("/a/1")},
    )
    assert response.status_code == 400
    assert "issued to someone else" in response.text
    assert count(db, Certification) == before and count(db, ImportedBadge) == 0


def test_a_badge_on_a_host_not_allowed_is_refused(db, client, auth, pinned_today, issuer) -> None:
    ada = factories.engineer(db, email="ada@example.com")
    auth.sign_in(ada)
    issuer.assertion("/a/1", ada.email)
    port = issuer.server.base.rsplit(":", 1)[1]
    response = client.post(
        "/credentials/badges",
        data={"badge_engineer": ada.id, "badge_url": f"http://127.0.0.2:{port}/a/1"},
    )
    assert response.status_code == 400 and "private or local address" in response.text
    assert issuer.server.seen == []


def test_a_badge_pasted_or_uploaded_is_verified_and_not_recorded_twice(
    db, client, auth, pinned_today, issuer
) -> None:
    ada = factories.engineer(db, email="ada@example.com")
    auth.sign_in(ada)
    document = json.dumps(issuer.assertion("/a/1", ada.email))
    response = client.post(
        "/credentials/badges", data={"badge_engineer": ada.id, "badge_json": document}
    )
    assert response.status_code == 302
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:openbadges="http://openbadges.org">'
        f'<openbadges:assertion verify="{issuer.server.url("/a/1")}"/></svg>'
    )
    again = client.post(
        "/credentials/badges",
        data={"badge_engineer": ada.id, "badge_image": (io.BytesIO(svg.encode()), "badge.svg")},
        content_type="multipart/form-data",
    )
    assert again.status_code == 400 and "already recorded" in again.text
    assert count(db, ImportedBadge) == 1


def test_one_badge_at_a_time(db, client, auth, pinned_today) -> None:
    ada = factories.engineer(db)
    auth.sign_in(ada)
    for data in ({}, {"badge_url": "https://a.example/1", "badge_json": "{}"}):
        response = client.post("/credentials/badges", data={"badge_engineer": ada.id, **data})
        assert response.status_code == 400 and "Give one badge" in response.text


def test_no_one_imports_for_a_person_they_may_not_see(db, client, auth, pinned_today) -> None:
    ada, bob = factories.engineer(db), factories.engineer(db)
    auth.sign_in(ada)
    response = client.post(
        "/credentials/badges", data={"badge_engineer": bob.id, "badge_url": "https://a.example/1"}
    )
    assert response.status_code == 400  # bob is not one of ada's choices


def test_an_admin_maps_a_badge_class_and_its_badges_record_the_catalog_credential(
    db, client, auth, pinned_today, issuer
) -> None:
    admin = factories.engineer(db, access_role="admin")
    ada = factories.engineer(db, email="ada@example.com")
    auth.sign_in(admin)
    assert "Badge mappings" in client.get("/admin/people").text
    badge_class = issuer.server.url("/badges/gpu-ops")
    code = factories.credential(db, "NCP-AII").code
    response = client.post("/admin/badges", data={"badge_class": badge_class, "credential": code})
    assert response.status_code == 302
    assert code in client.get("/admin/badges").text
    issuer.assertion("/a/1", ada.email)
    response = client.post(
        "/credentials/badges",
        data={"badge_engineer": ada.id, "badge_url": issuer.server.url("/a/1")},
    )
    assert response.status_code == 302
    cert = db.query(Certification).filter_by(engineer_id=ada.id).one()
    assert cert.credential.code == code
    mapping = db.query(BadgeMapping).one()
    response = client.post(f"/admin/badges/{mapping.id}/remove", data={})
    assert response.status_code == 302 and count(db, BadgeMapping) == 0
    bad = client.post("/admin/badges", data={"badge_class": "ftp://x", "credential": code})
    assert bad.status_code == 400 and "http or https URL" in bad.text


def test_the_heat_map_marks_a_verified_certification(
    db, client, auth, pinned_today, issuer
) -> None:
    boss = factories.engineer(db, access_role="manager")
    team = factories.team(db, gpus=8, manager=boss)
    ada = factories.engineer(db, email="ada@example.com", team=team, manager=boss)
    bob = factories.engineer(db, team=team, manager=boss)
    factories.certification(db, bob, "NCA-AIIO", dt.date(2026, 1, 10), dt.date(2028, 1, 10))
    map_badge_class(db, issuer.server.url("/badges/gpu-ops"), "NCA-AIIO")
    issuer.assertion("/a/1", ada.email, issued="2026-03-15", expires="2028-03-15")
    fetch = make_fetch({"127.0.0.1"})
    checked = check_badge("url", issuer.server.url("/a/1"), ada.email, pinned_today, fetch)
    record_badge(db, ada, checked, pinned_today)
    auth.sign_in(boss)
    html = client.get(f"/teams/{team.id}").text
    rows = dict(re.findall(r'<tr><th scope="row"><a [^>]*>([^<]*)</a>(.*?)</tr>', html, re.S))
    assert 'class="verified"' in rows[ada.name]
    assert 'class="verified"' not in rows[bob.name]
    cells = {
        line.split(",")[0]: line.split(",")[3:]
        for line in client.get(f"/teams/{team.id}/heatmap.csv").text.splitlines()[1:]
    }
    assert "valid (2028-03-15) verified" in cells[ada.name]
    assert "valid (2028-01-10)" in cells[bob.name]
    assert not any(c.endswith("verified") for c in cells[bob.name])


def test_removing_a_mapping_asks_first_and_keeps_what_was_imported(db, client, auth) -> None:
    auth.sign_in(factories.engineer(db, access_role="admin"))
    badge_class = "https://badges.example.com/classes/gpu-ops"
    mapping = map_badge_class(db, badge_class, "NCP-AII")
    url = f"/admin/badges/{mapping.id}/remove"
    assert f'<a href="{url}" role="button"' in client.get("/admin/badges").text

    asked = confirmation(client, url)

    assert asked.question == f"Remove the mapping of {badge_class} to NCP-AII?"
    assert "recorded as credentials outside the catalog" in asked.text
    assert "Certifications already imported stay as they are." in asked.text
    assert asked.back == "/admin/badges"
    assert count(db, BadgeMapping) == 1

    response = asked.confirm(follow_redirects=True)

    assert "Mapping removed." in response.text
    assert count(db, BadgeMapping) == 0
    assert client.get(url).status_code == 404
