"""`tracker badge map|mappings|import|recheck`, and the daily pass re-checking badges."""

from __future__ import annotations

from tests import factories
from tests.badges.conftest import Issuer, entered_by_hand
from tracker.progress.models import Certification
from tracker.reminders.jobs import run_pass


def test_map_import_and_recheck(app, db, runner, pinned_today, issuer: Issuer) -> None:
    ada = factories.engineer(db, email="ada@example.com")
    badge_class = issuer.server.url("/badges/gpu-ops")
    mapped = runner.invoke(args=["badge", "map", badge_class, "ncp-aii"])
    assert mapped.exit_code == 0, mapped.output
    assert mapped.output.strip() == f"{badge_class} -> NCP-AII"
    assert runner.invoke(args=["badge", "mappings"]).output == f"{badge_class}\tNCP-AII\n"
    unknown = runner.invoke(args=["badge", "map", badge_class, "NOPE"])
    assert unknown.exit_code != 0 and "unknown credential code" in unknown.output

    issuer.assertion("/a/1", ada.email, issued="2026-03-15", expires="2028-03-15")
    imported = runner.invoke(args=["badge", "import", ada.email, issuer.server.url("/a/1")])
    assert imported.exit_code == 0, imported.output
    assert (
        "verified: NCP-AII" in imported.output and ", valid through 2028-03-15" in imported.output
    )
    again = runner.invoke(args=["badge", "import", ada.email, issuer.server.url("/a/1")])
    assert again.exit_code != 0 and "already recorded" in again.output

    assert runner.invoke(args=["badge", "recheck"]).output.startswith("1 verified, 0 revoked")
    issuer.assertion("/a/1", ada.email, status=410)
    run_pass(app, pinned_today)
    cert = db.query(Certification).filter_by(engineer_id=ada.id).one()
    db.refresh(cert)
    assert cert.revoked_on == pinned_today


def test_import_says_it_verified_the_certification_entered_by_hand(
    db, runner, pinned_today, issuer: Issuer
) -> None:
    ada = factories.engineer(db, email="ada@example.com")
    by_hand = entered_by_hand(db, issuer, ada, "NCA-AIIO")
    imported = runner.invoke(args=["badge", "import", ada.email, issuer.server.url("/a/1")])
    assert imported.exit_code == 0, imported.output
    assert imported.output.startswith("verified the certification already recorded: NCA-AIIO")
    (cert,) = db.query(Certification).filter_by(engineer_id=ada.id).all()
    db.refresh(cert)
    assert cert.id == by_hand.id and cert.verified_at is not None
