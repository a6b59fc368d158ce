"""The credentials page: recording a catalog or other credential, and the refusals."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from tests import factories
from tests.helpers import count
from tests.progress.helpers import (
    SCRIPT,
    SQL,
    D,
    assert_page_refused,
    counts,
    credential_form,
    page,
)
from tracker.catalog.models.credentials import Credential
from tracker.progress.models import Certification
from tracker.progress.services.certifications import credential_for_entry

pytestmark = pytest.mark.usefixtures("pinned_today")


def test_recording_a_catalog_credential_shows_it(db, client, auth, alice):
    auth.sign_in(alice)

    response = client.post("/credentials", data=credential_form(db, alice), follow_redirects=True)

    assert response.status_code == 200
    view = page(response)
    assert (
        "Certified Kubernetes Administrator (CKA) recorded, valid through 2029-10-01."
        in view.flashes
    )
    row = next(r for r in view.rows if r.startswith("Certified Kubernetes Administrator (CKA)"))
    assert "Oct 1, 2026 Oct 1, 2029" in row
    assert row.endswith("valid · 1037 days left")  # 2029-10-01 - 2026-11-29
    cert = db.scalars(select(Certification).where(Certification.engineer_id == alice.id)).one()
    assert cert.credential_id == factories.credential(db, "CKA").id
    assert (cert.earned_on, cert.expires_on, cert.evidence) == (
        D(2026, 10, 1),
        D(2029, 10, 1),
        "LF-CKA-2026-0042",
    )
    assert cert.recorded_by_id == alice.id
    # It shows on the dashboard too.
    dashboard = page(client.get("/dashboard"))
    assert any("(CKA)" in r and "valid · 1037 days left" in r for r in dashboard.rows)


def test_recording_a_credential_without_expiry(db, client, auth, alice):
    auth.sign_in(alice)

    response = client.post(
        "/credentials",
        data=credential_form(db, alice, "RHCE", expires_on=""),
        follow_redirects=True,
    )

    view = page(response)
    assert "Red Hat Certified Engineer (RHCE) recorded." in view.flashes
    row = next(r for r in view.rows if r.startswith("Red Hat Certified Engineer (RHCE)"))
    assert "does not expire" in row


def test_an_exam_credential_entered_with_evidence_gets_its_validity(db, client, auth, alice):
    auth.sign_in(alice)

    response = client.post(
        "/credentials",
        data=credential_form(db, alice, "NCA-AIIO", issued_on="2026-03-31", expires_on=""),
        follow_redirects=True,
    )

    assert response.status_code == 200
    flashes = page(response).flashes
    assert (
        f"{factories.credential(db, 'NCA-AIIO').name} recorded, valid through 2028-03-31."
        in flashes
    )


def test_an_old_credential_shows_as_expired(db, client, auth, alice):
    auth.sign_in(alice)

    response = client.post(
        "/credentials",
        data=credential_form(db, alice, issued_on="2020-01-01", expires_on="2023-01-01"),
        follow_redirects=True,
    )

    row = next(r for r in page(response).rows if r.startswith("Certified Kubernetes"))
    assert row.endswith("expired · 1428 days ago")  # 2026-11-29 - 2023-01-01


def test_other_credential_is_created_once_with_origin_engineer(db, client, auth, alice, bob):
    auth.sign_in(alice)
    before = count(db, Credential)
    data = credential_form(
        db, alice, None, name="Liquid Cooling Specialist", issuer="CoolCorp", expires_on=""
    )

    response = client.post("/credentials", data=data, follow_redirects=True)

    assert response.status_code == 200
    assert "Liquid Cooling Specialist recorded." in page(response).flashes
    assert count(db, Credential) == before + 1
    made = db.scalars(
        select(Credential).where(Credential.name == "Liquid Cooling Specialist")
    ).one()
    assert (made.origin, made.issuer, made.kind) == ("engineer", "CoolCorp", "external")

    # A second person entering the same name and issuer shares the row.
    auth.logout()
    auth.sign_in(bob)
    again = credential_form(
        db, bob, None, name="liquid cooling specialist ", issuer=" coolcorp", expires_on=""
    )
    response = client.post("/credentials", data=again)

    assert response.status_code == 302
    assert count(db, Credential) == before + 1
    held = db.scalars(select(Certification).where(Certification.credential_id == made.id)).all()
    assert sorted(c.engineer_id for c in held) == sorted([alice.id, bob.id])


def test_other_credentials_are_not_offered_as_catalog_choices(db, client, auth, alice):
    credential_for_entry(db, name="Homebrew Cert", issuer="Somebody")
    auth.sign_in(alice)

    html = client.get("/credentials").get_data(as_text=True)

    assert "Homebrew Cert" not in html
    assert 'value="0">Other (enter name and issuer)<' in html


BAD_CREDENTIALS = [
    pytest.param({"evidence": ""}, "evidence", "evidence is required", id="no-evidence"),
    pytest.param({"evidence": "   "}, "evidence", "evidence is required", id="blank-evidence"),
    pytest.param({"expires_on": "2026-09-30"}, "expires_on", "before the issue", id="expiry-first"),
    pytest.param({"issued_on": "2026-11-30"}, "issued_on", "future", id="future-issue"),
    pytest.param({"issued_on": ""}, "issued_on", "required", id="no-issue-date"),
    pytest.param({"credential": "999999"}, "credential", "", id="unknown-credential"),
    pytest.param(
        {"name": "x" * 201},
        "name",
        "“Name (other credential)” must be at most 200 characters",
        id="name-too-long",
    ),
]


@pytest.mark.parametrize(("overrides", "field", "message"), BAD_CREDENTIALS)
def test_bad_credentials_are_refused(db, client, auth, alice, overrides, field, message):
    auth.sign_in(alice)
    before = counts(db)

    response = client.post("/credentials", data=credential_form(db, alice, **overrides))

    assert_page_refused(response, field, message)
    assert counts(db) == before


@pytest.mark.parametrize(
    ("overrides", "fields"),
    [
        pytest.param({}, ["name", "issuer"], id="neither"),
        pytest.param({"name": "Cool Cert"}, ["issuer"], id="no-issuer"),
        pytest.param({"issuer": "CoolCorp"}, ["name"], id="no-name"),
        pytest.param({"name": "  ", "issuer": "  "}, ["name", "issuer"], id="blank"),
    ],
)
def test_other_without_name_or_issuer_is_refused(db, client, auth, alice, overrides, fields):
    auth.sign_in(alice)
    before = counts(db)

    response = client.post("/credentials", data=credential_form(db, alice, None, **overrides))

    for field in fields:
        assert_page_refused(response, field, "required for a credential outside the catalog")
    assert counts(db) == before


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        pytest.param({"expires_on": "2026-09-30"}, "expires_on", id="expiry-first"),
        pytest.param({"issued_on": "2026-11-30", "expires_on": ""}, "issued_on", id="future"),
    ],
)
def test_a_refused_other_credential_leaves_no_catalog_row(
    db, client, auth, alice, overrides, field
):
    auth.sign_in(alice)
    before = counts(db)
    data = credential_form(db, alice, None, name="Brand New Cert", issuer="NewCorp", **overrides)

    response = client.post("/credentials", data=data)

    assert_page_refused(response, field, "")
    assert counts(db) == before
    assert db.scalars(select(Credential).where(Credential.name == "Brand New Cert")).first() is None


def test_a_manager_records_a_credential_for_their_report(db, client, auth, boss, report):
    auth.sign_in(boss)

    response = client.post("/credentials", data=credential_form(db, report))

    assert response.status_code == 302
    cert = db.scalars(select(Certification).where(Certification.engineer_id == report.id)).one()
    assert cert.recorded_by_id == boss.id
    flashes = page(client.get(response.headers["Location"])).flashes
    assert any(f.startswith("For Rita Report: ") for f in flashes), flashes


def test_an_engineer_cannot_record_a_credential_for_someone_else(db, client, auth, alice, bob):
    auth.sign_in(alice)
    before = counts(db)

    response = client.post("/credentials", data=credential_form(db, alice, engineer=bob.id))

    assert response.status_code in (400, 403)
    assert counts(db) == before


def test_other_credential_names_are_shown_escaped(db, client, auth, alice):
    auth.sign_in(alice)
    data = credential_form(db, alice, None, name=SCRIPT, issuer=SQL, expires_on="")

    response = client.post("/credentials", data=data, follow_redirects=True)

    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert SCRIPT not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    made = db.scalars(select(Credential).where(Credential.origin == "engineer")).one()
    assert (made.name, made.issuer) == (SCRIPT, SQL)
