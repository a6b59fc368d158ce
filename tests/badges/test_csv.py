"""The CSV import's badges file: every badge verified with its issuer, or nothing imported."""

from __future__ import annotations

import io

import pytest

from tests import factories
from tests.badges.conftest import Issuer, entered_by_hand
from tests.helpers import count
from tracker.badges.models import ImportedBadge
from tracker.badges.services.fetching import make_fetch
from tracker.i18n import translate
from tracker.imports.services.kinds import ImportRefused
from tracker.imports.services.run import import_csv
from tracker.progress.models import Certification

FETCH = make_fetch({"127.0.0.1"})


def test_a_badges_file_imports_verified_certifications(db, pinned_today, issuer: Issuer) -> None:
    ann = factories.engineer(db, email="ann@example.com")
    bob = factories.engineer(db, email="bob@example.com")
    issuer.assertion("/a/ann", ann.email)
    issuer.assertion("/a/bob", bob.email, hash_with=None)
    text = (
        "email,badge_url\n"
        f"ann@example.com,{issuer.server.url('/a/ann')}\n"
        f"BOB@example.com,{issuer.server.url('/a/bob')}\n"
    )
    result = import_csv(db, "badges", text, pinned_today, fetch=FETCH)
    assert result.count == 2
    certs = db.query(Certification).filter(Certification.engineer_id.in_([ann.id, bob.id])).all()
    assert len(certs) == 2 and all(c.verified_at is not None for c in certs)


def test_the_summary_counts_the_certifications_a_file_verified(
    db, pinned_today, issuer: Issuer
) -> None:
    ann = factories.engineer(db, email="ann@example.com")
    bob = factories.engineer(db, email="bob@example.com")
    by_hand = entered_by_hand(db, issuer, ann, path="/a/ann")
    issuer.assertion("/a/bob", bob.email, issued="2026-03-15")
    text = (
        "email,badge_url\n"
        f"ann@example.com,{issuer.server.url('/a/ann')}\n"
        f"bob@example.com,{issuer.server.url('/a/bob')}\n"
    )
    result = import_csv(db, "badges", text, pinned_today, fetch=FETCH)
    assert result.summary == (
        "2 badges verified and imported. 1 of them verified a certification already"
        " recorded by hand; nothing was added for it."
    )
    assert translate(result.summary, "es") == (
        "2 insignias verificadas e importadas. 1 de ellas verificó una certificación ya"
        " registrada a mano; no se ha añadido nada por ella."
    )
    certs = db.query(Certification).filter(Certification.engineer_id.in_([ann.id, bob.id])).all()
    assert len(certs) == 2 and by_hand in certs and all(c.verified_at for c in certs)


def test_one_refused_badge_refuses_the_file(db, pinned_today, issuer: Issuer) -> None:
    ann = factories.engineer(db, email="ann@example.com")
    issuer.assertion("/a/ann", ann.email)
    issuer.assertion("/a/eve", "eve@example.com")
    text = (
        "email,badge_url\n"
        f"ann@example.com,{issuer.server.url('/a/ann')}\n"
        f"ann@example.com,{issuer.server.url('/a/eve')}\n"
        "nobody@example.com,\n"
    )
    before = count(db, Certification)
    with pytest.raises(ImportRefused) as refused:
        import_csv(db, "badges", text, pinned_today, fetch=FETCH)
    found = {(e.line, e.column) for e in refused.value.errors}
    assert {(3, "badge_url"), (4, "email"), (4, "badge_url")} <= found
    assert (3, "badge_url") in found and (2, "badge_url") not in found
    assert count(db, Certification) == before and count(db, ImportedBadge) == 0


def test_without_the_apps_fetch_no_local_host_is_fetched(db, pinned_today, issuer) -> None:
    ann = factories.engineer(db, email="ann@example.com")
    issuer.assertion("/a/ann", ann.email)
    text = f"email,badge_url\nann@example.com,{issuer.server.url('/a/ann')}\n"
    with pytest.raises(ImportRefused, match="private or local"):
        import_csv(db, "badges", text, pinned_today)


def test_the_import_page_takes_a_badges_file(db, client, auth, pinned_today, issuer) -> None:
    auth.sign_in(factories.engineer(db, access_role="admin"))
    ann = factories.engineer(db, email="ann@example.com")
    issuer.assertion("/a/ann", ann.email)
    text = f"email,badge_url\nann@example.com,{issuer.server.url('/a/ann')}\n"
    response = client.post(
        "/admin/imports",
        data={"kind": "badges", "file": (io.BytesIO(text.encode()), "badges.csv")},
        content_type="multipart/form-data",
        follow_redirects=True,
    )
    assert response.status_code == 200 and "1 badge verified and imported." in response.text
