"""The daily re-check: a revocation stops the credential counting; an outage changes nothing."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from sqlalchemy import select

from tests import factories
from tests.badges.conftest import Issuer
from tests.helpers import Api, token_for
from tests.webhooks.helpers import subscribe
from tracker.badges.models import ImportedBadge
from tracker.badges.services.fetching import make_fetch
from tracker.badges.services.imports import check_badge, record_badge
from tracker.badges.services.mapping import map_badge_class
from tracker.badges.services.recheck import (
    Kept,
    Outcome,
    ask_issuer,
    due_for_recheck,
    record_recheck,
    revoke,
)
from tracker.careers.services.bonuses import Quarter, ledger, set_bonus
from tracker.people.models import Team
from tracker.progress.services.validity import Status, holding, status_on
from tracker.readiness.services.members import load_members
from tracker.webhooks.models import WebhookDelivery
from tracker.webhooks.services.formats import summary

FETCH = make_fetch({"127.0.0.1"})


def _imported(db, issuer: Issuer, today: dt.date, code: str | None = None):
    team = factories.team(db, gpus=8)
    ada = factories.engineer(db, email="ada@example.com", team=team)
    if code:
        map_badge_class(db, issuer.server.url("/badges/gpu-ops"), code)
    issuer.assertion("/a/1", ada.email, issued="2026-03-15")
    checked = check_badge("url", issuer.server.url("/a/1"), ada.email, today, FETCH)
    cert = record_badge(db, ada, checked, today).certification
    badge = db.scalars(select(ImportedBadge).where(ImportedBadge.certification_id == cert.id)).one()
    return team, ada, cert, badge


def test_a_badge_still_valid_stays_verified(db, pinned_today, issuer: Issuer) -> None:
    _team, _ada, cert, badge = _imported(db, issuer, pinned_today)
    assert due_for_recheck(db, pinned_today) == [badge.id]
    assert recheck(db, badge, pinned_today) == "verified"
    assert cert.revoked_on is None and badge.last_problem == ""


def test_a_revocation_is_recorded_and_marks_the_team_stale(db, pinned_today, issuer) -> None:
    team, ada, cert, badge = _imported(db, issuer, pinned_today)
    assert [m.id for m in load_members(db, [team.id])[team.id]] == [ada.id]
    assert load_members(db, [team.id])[team.id][0].held  # the certification counts
    revision = db.get(Team, team.id).readiness_revision
    issuer.assertion("/a/1", ada.email, issued="2026-03-15", revoked=True, revocationReason="fraud")
    assert recheck(db, badge, pinned_today) == "revoked"
    assert cert.revoked_on == pinned_today and "fraud" in badge.revocation_reason
    db.expire_all()
    assert db.get(Team, team.id).readiness_revision > revision
    assert load_members(db, [team.id])[team.id][0].held == ()
    assert due_for_recheck(db, pinned_today) == []


def test_an_issuer_down_changes_nothing_but_the_note(db, pinned_today, issuer) -> None:
    _team, _ada, cert, badge = _imported(db, issuer, pinned_today)
    issuer.server.serve("/a/1", b"down", 503)
    assert recheck(db, badge, pinned_today) == "problem"
    assert cert.revoked_on is None and "503" in badge.last_problem


def test_a_revoked_credential_earns_no_bonus_and_a_verified_only_bonus_wants_a_badge(
    db, pinned_today, issuer
) -> None:
    _team, ada, cert, badge = _imported(db, issuer, pinned_today, code="NCP-AII")
    hand = factories.certification(db, factories.engineer(db), "NCP-AII", dt.date(2026, 3, 20))
    quarter = Quarter.of(dt.date(2026, 3, 15))
    # Announced late for verified passes only: the pass entered by hand earns nothing.
    set_bonus(
        db,
        cert.credential,
        Decimal(500),
        effective_on=dt.date(2026, 1, 1),
        today=pinned_today,
        verified_only=True,
    )
    assert {r.certification.id for r in ledger(db, quarter)} == {cert.id}
    assert hand.id not in {r.certification.id for r in ledger(db, quarter)}
    issuer.assertion("/a/1", ada.email, issued="2026-03-15", status=410)
    assert recheck(db, badge, pinned_today) == "revoked"
    assert ledger(db, quarter) == []


def test_a_revoked_certification_holds_no_more_from_its_revocation(db, pinned_today, issuer):
    _team, _ada, cert, badge = _imported(db, issuer, pinned_today)
    assert holding([cert], cert.credential, pinned_today) is cert
    revoke(db, badge, pinned_today, "fraud")
    assert holding([cert], cert.credential, pinned_today) is None
    assert holding([cert], cert.credential, pinned_today - dt.timedelta(days=1)) is cert


def test_a_revoked_certification_says_so_on_its_pages_and_in_the_api(
    db, client, auth, pinned_today, issuer
) -> None:
    """Its status is "revoked" from the day the revocation was found, not the "valid" its
    dates would say; the API's status filter finds it as revoked and no more as valid."""
    _team, ada, cert, badge = _imported(db, issuer, pinned_today)
    revoke(db, badge, pinned_today, "fraud")
    assert status_on(cert, pinned_today) == Status.REVOKED
    assert status_on(cert, pinned_today - dt.timedelta(days=1)) != Status.REVOKED
    token, api = token_for(db, ada), Api(client)
    (listed,) = api.get("/api/v1/certifications", token).json["items"]
    assert (listed["status"], listed["revoked_on"]) == ("revoked", pinned_today.isoformat())
    assert listed["verified"] is False

    def found(status: str) -> list[int]:
        items = api.get(f"/api/v1/certifications?status={status}", token).json["items"]
        return [c["id"] for c in items]

    assert (found("revoked"), found("valid"), found("expiring")) == ([cert.id], [], [])
    auth.sign_in(ada)
    page = client.get("/credentials").get_data(as_text=True)
    assert '<span class="status status-revoked"><span aria-hidden="true">⊘</span> revoked' in page


def test_a_revocation_is_announced_to_the_endpoints_that_take_it(db, pinned_today, issuer) -> None:
    """certification.revoked: the certification, its holder, the day and the issuer's
    reason, queued in the re-check's transaction; nothing for an endpoint not taking it."""
    taking = subscribe(db, "certification.revoked")
    subscribe(db, "certification.lapsed")
    _team, ada, cert, badge = _imported(db, issuer, pinned_today)
    issuer.assertion(
        "/a/1", ada.email, issued="2026-03-15", revoked=True, revocationReason="issued in error"
    )
    assert recheck(db, badge, pinned_today) == "revoked"
    (delivery,) = db.scalars(select(WebhookDelivery)).all()
    assert (delivery.endpoint_id, delivery.event) == (taking.id, "certification.revoked")
    data = delivery.payload["data"]
    assert data["certification"]["id"] == cert.id
    assert data["engineer"] == {"id": ada.id, "name": ada.name}
    assert data["revoked_on"] == pinned_today.isoformat()
    assert "issued in error" in data["reason"]
    assert "was revoked by its issuer" in summary(delivery.payload)


def recheck(db, badge: ImportedBadge, today: dt.date) -> Outcome:
    """Ask the issuer about a badge again and record its answer, as the daily job does."""
    return record_recheck(db, badge, ask_issuer(Kept.of(badge), today, FETCH), today)
