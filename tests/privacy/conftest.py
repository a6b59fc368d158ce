"""The privacy tests' scene: a person with a row of every kind, their manager, a senior, another."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.factories import SECRET_KEY, TODAY
from tests.helpers import WEBHOOK_HOSTS
from tracker.badges.services.imports import record_verified
from tracker.badges.services.verified import VerifiedBadge
from tracker.careers.services.apprenticeships import create_apprenticeship
from tracker.careers.services.evidence import record_evidence
from tracker.careers.services.skills import assess, find_speciality
from tracker.identity.models import Identity
from tracker.issuer.services.credentials import Issuer, issue
from tracker.people.models import Engineer, RecoveryCode, Team
from tracker.people.services.accounts import create_token
from tracker.people.services.persons import set_level
from tracker.people.services.totp import code_at, enrol, new_secret, time_step
from tracker.progress.models import HourLog
from tracker.progress.services.certifications import record_attempt
from tracker.progress.services.exam_plans import plan_exam
from tracker.progress.services.hours import delete_hours, log_hours
from tracker.reminders.calendars import replace_token
from tracker.reminders.services.daily_pass import plan
from tracker.reminders.services.queueing import Mail
from tracker.reminders.services.windows import Windows
from tracker.scim.services.tokens import create_scim_token
from tracker.webhooks.services.endpoints import add_endpoint

NOW = dt.datetime.combine(TODAY, dt.time(9))
DAY = dt.timedelta(days=1)


@dataclass
class Scene:
    """The person whose data is downloaded, the people around them, and what must not show."""

    person: Engineer
    manager: Engineer
    senior: Engineer
    other: Engineer
    team: Team
    # Values that open something: none may be anywhere in the file.
    secrets: dict[str, str] = field(default_factory=dict)
    # Other people's data: none may be anywhere in the person's file.
    others: dict[str, str] = field(default_factory=dict)


@pytest.fixture
def scene(db: Session, pinned_today: dt.date) -> Scene:
    manager = factories.engineer(
        db, name="Maya Manager", email="maya.manager@example.com", access_role="manager", level=4
    )
    team = factories.team(db, name="Blue", manager=manager)
    senior = factories.engineer(
        db, name="Sasha Senior", email="sasha.senior@example.com", team=team, level=4
    )
    person = factories.engineer(
        db, name="Pat Person", email="pat@example.com", team=team, manager=manager, level=1
    )
    other = factories.engineer(
        db, name="Olga Other", email="olga.other@example.com", team=team, level=2
    )
    # Written first, so that the hours below queue deliveries to it.
    endpoint = add_endpoint(
        db, "https://hooks.example.com/privacy", ["hours.logged"], allow_hosts=WEBHOOK_HOSTS
    )
    fdl = factories.course(db, "FDL")

    set_level(db, person, 2, manager, TODAY, via="web")
    # Logged newest first: the file lists them by day, not by id.
    log_hours(db, person, fdl, TODAY - DAY, factories.hours("1.25"), TODAY, note="pat later")
    log_hours(db, person, fdl, TODAY - 3 * DAY, factories.hours("2.5"), TODAY, note="pat earlier")
    gone = log_hours(db, person, fdl, TODAY - 2 * DAY, factories.hours(1), TODAY, note="pat gone")
    delete_hours(db, db.get_one(HourLog, gone.id), person)
    record_attempt(
        db,
        person,
        factories.exam(db, "NCA-AIIO"),
        TODAY - 20 * DAY,
        80,
        True,
        TODAY,
        recorded_by=manager,
        cost=Decimal("125.50"),
        voucher_code="VOUCHER-PAT",
    )
    plan_exam(db, person, factories.exam(db, "NCP-AII"), TODAY + 30 * DAY, TODAY)
    record_evidence(
        db, person, "publication", "GPU fleets at scale", TODAY - 100 * DAY, TODAY, note="pat paper"
    )
    speciality = find_speciality(db, "infiniband-rdma")
    assert speciality is not None
    assess(db, person, speciality, 3, manager)
    create_apprenticeship(db, person, senior, TODAY - 10 * DAY, 6, TODAY, note="pat shadows")
    token, token_secret = create_token(db, person, "laptop", today=TODAY)
    db.add(
        Identity(
            engineer_id=person.id,
            issuer="https://id.example.com",
            subject="pat-subject",
            email="pat@id.example.com",
        )
    )
    totp = new_secret()
    recovery = enrol(db, person, totp, code_at(totp, time_step(NOW)), NOW, secret_key=SECRET_KEY)
    person_feed = replace_token(db, person)
    team_feed = replace_token(db, team)
    scim, scim_secret = create_scim_token(db, "idp")
    # A certification that lapses in 20 days: the pass reminds the person, copying the manager.
    factories.certification(db, person, "NCP-AII", dt.date(2024, 12, 1), TODAY + 20 * DAY)
    mail = Mail(
        base_url="https://tracker.example.com", domain="example.com", signing_key=SECRET_KEY
    )
    plan(db, TODAY, Windows(), mail)
    record_verified(
        db,
        person,
        VerifiedBadge(
            format="ob2",
            assertion_id="https://badges.example.com/assertions/pat",
            badge_class_id="https://badges.example.com/classes/k8s",
            badge_name="Kubernetes Operator",
            issuer_id="https://badges.example.com/issuer",
            issuer_name="Badge Issuer",
            recipient="pat@example.com",
            issued_on=TODAY - 50 * DAY,
            expires_on=None,
            document='{"id": "https://badges.example.com/assertions/pat"}',
        ),
        "json",
        TODAY,
    )
    factories.internal_credential(db, "INT-PRIV", "Internal privacy operations")
    internal = factories.certification(db, person, "INT-PRIV", TODAY - 5 * DAY, TODAY + 700 * DAY)
    issued = issue(db, internal, Issuer("http://localhost", "Org", factories.KEYS), NOW)

    # Another person's records, which the person's file never shows.
    log_hours(db, other, fdl, TODAY, factories.hours(3), TODAY, note="olga private note")
    record_attempt(
        db,
        other,
        factories.exam(db, "NCA-AIIO"),
        TODAY - DAY,
        90,
        True,
        TODAY,
        voucher_code="OLGA-V",
    )
    create_token(db, other, "olga laptop", today=TODAY)
    db.flush()

    secrets = {
        "password hash": person.password_hash or "",
        "stored TOTP secret": person.totp_secret or "",
        "TOTP secret": totp,
        "API token": token_secret,
        "API token hash": token.token_hash,
        "calendar token": person_feed,
        "team calendar token": team_feed,
        "SCIM token": scim_secret,
        "SCIM token hash": scim.token_hash,
        "webhook secret": endpoint.secret,
        "Open Badge public token": issued.public_token,
    }
    for n, code in enumerate(recovery):
        secrets[f"recovery code {n}"] = code
    hashes = db.scalars(select(RecoveryCode.code_hash).where(RecoveryCode.engineer_id == person.id))
    for n, code_hash in enumerate(hashes):
        secrets[f"recovery code hash {n}"] = code_hash
    others = {
        "other's address": other.email,
        "other's name": other.name,
        "other's note": "olga private note",
        "other's voucher": "OLGA-V",
        "other's token": "olga laptop",
        "manager's address": manager.email,
        "senior's address": senior.email,
    }
    return Scene(person, manager, senior, other, team, secrets, others)
