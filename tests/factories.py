"""Factories for test data, built on the seeded catalog and the services."""

from __future__ import annotations

import datetime as dt
import itertools
from decimal import Decimal

from sqlalchemy import select
from sqlalchemy.orm import Session

from tracker.badges.services.mapping import map_badge_class
from tracker.catalog.models.credentials import Course, Credential, Exam
from tracker.config import PROJECT_ROOT, SecretKeys
from tracker.identity.models import Identity
from tracker.issuer.services.credentials import Issuer, issue
from tracker.people.models import Engineer, Team
from tracker.people.services.persons import create_person, set_active
from tracker.people.services.reads import find_engineer
from tracker.people.services.teams import create_team
from tracker.progress.models import Certification
from tracker.progress.services.exam_plans import plan_exam
from tracker.reminders.calendars import replace_token
from tracker.webhooks.models import WebhookDelivery, WebhookEndpoint
from tracker.webhooks.services.endpoints import add_endpoint

_seq = itertools.count(1)
TODAY = dt.date(2026, 11, 29)
PASSWORD = "correct horse battery"
# The suite's TRACKER_SECRET_KEY: what the app encrypts (TOTP secrets) opens with it.
SECRET_KEY = "test-secret"
# The same key as what reads with it (no fallbacks).
KEYS = SecretKeys(SECRET_KEY)
# The key the `rotated` and `replaced` fixtures put in SECRET_KEY's place.
NEW_SECRET_KEY = "test-secret-after-rotation"
# The seed catalog: what the suite's database holds, what `tracker init` loads by default.
SEED = PROJECT_ROOT / "seed" / "catalog.toml"


def engineer(session: Session, **overrides: object) -> Engineer:
    """Create an engineer with sensible defaults (hired five years before TODAY)."""
    n = next(_seq)
    values: dict[str, object] = {
        "email": f"engineer{n}@example.com",
        "name": f"Engineer {n}",
        "today": TODAY,
        "hired_on": dt.date(2021, 1, 1),
        "job_roles": ("operations",),
        "password": PASSWORD,
    }
    values.update(overrides)
    # Scenes name the team and the manager; create_person takes their ids.
    for key in ("team", "manager"):
        if key in values:
            related = values.pop(key)
            values[f"{key}_id"] = related.id if related is not None else None  # type: ignore[attr-defined]
    return create_person(session, **values)  # type: ignore[arg-type]


def someone_and_an_admin(session: Session) -> tuple[Engineer, Engineer]:
    """Create a person holding NCA-AIIO (2025-01-06 to 2027-01-06) and an admin."""
    who = engineer(session)
    certification(session, who, "NCA-AIIO", dt.date(2025, 1, 6), dt.date(2027, 1, 6))
    return who, engineer(session, access_role="admin")


def team(
    session: Session, gpus: int = 64, manager: Engineer | None = None, **overrides: object
) -> Team:
    name = str(overrides.pop("name", f"Team {next(_seq)}"))
    return create_team(session, name, gpus, manager.id if manager else None, **overrides)  # type: ignore[arg-type]


def course(session: Session, code: str) -> Course:
    return session.scalars(select(Course).where(Course.code == code)).one()


def exam(session: Session, code: str) -> Exam:
    return session.scalars(select(Exam).join(Exam.credential).where(Credential.code == code)).one()


def credential(session: Session, code: str) -> Credential:
    return session.scalars(select(Credential).where(Credential.code == code)).one()


def certification(
    session: Session,
    who: Engineer,
    code: str,
    earned_on: dt.date,
    expires_on: dt.date | None = None,
) -> Certification:
    """Insert a certification directly (no rules), for setting up a scene."""
    cred = credential(session, code)
    cert = Certification(
        engineer_id=who.id,
        credential_id=cred.id,
        earned_on=earned_on,
        expires_on=expires_on,
        evidence="test fixture",
    )
    session.add(cert)
    session.flush()
    return cert


def hours(value: str | int) -> Decimal:
    return Decimal(str(value))


def webhook_delivery(
    session: Session, endpoint: WebhookEndpoint, **overrides: object
) -> WebhookDelivery:
    """Insert a delivery of hours.logged to `endpoint` directly (failed, unless told)."""
    values: dict[str, object] = {
        "endpoint_id": endpoint.id,
        "event": "hours.logged",
        "webhook_id": f"msg_factory_{next(_seq)}",
        "payload": {"type": "hours.logged", "timestamp": "2026-11-29T00:00:00Z", "data": {}},
        "status": "failed",
    }
    values.update(overrides)
    delivery = WebhookDelivery(**values)
    session.add(delivery)
    session.flush()
    return delivery


def internal_credential(
    session: Session, code: str, name: str, name_es: str = "", **overrides: object
) -> Credential:
    """Insert an exam of the internal track's kind directly: one the tracker issues badges for."""
    values: dict[str, object] = {
        "code": code,
        "name": name,
        "name_es": name_es,
        "issuer": "internal",
        "kind": "exam",
        "origin": "internal",
        "validity_months": 24,
    }
    values.update(overrides)
    credential = Credential(**values)
    session.add(credential)
    session.flush()
    return credential


def things_to_confirm(session: Session, today: dt.date, *, secret_key: str) -> None:
    """Give the demo one of each thing it lacks that a confirmation page asks about.

    The crawls of the Nu HTML checker and of axe open every page by its links; a
    confirmation page is linked from the thing it removes: Tom's planned exam, his
    calendar feed and provider account, Borealis's feed, a webhook, a badge
    mapping, an Open Badge issued to Tom, a departed person's erasure.
    """
    tom = find_engineer(session, "tom@example.com")
    assert tom is not None, "the demo organisation first"
    plan_exam(session, tom, exam(session, "NCP-AII"), today + dt.timedelta(days=60), today)
    replace_token(session, tom)
    borealis = session.scalars(select(Team).where(Team.name == "Borealis Cluster")).one()
    replace_token(session, borealis)
    session.add(Identity(engineer_id=tom.id, issuer="https://id.example.com", subject="tom"))
    # An event the crawls never cause: the endpoint's host is never called.
    add_endpoint(
        session,
        "https://hooks.example.com/demo",
        ["certification.lapsed"],
        allow_hosts={"hooks.example.com"},
    )
    map_badge_class(session, "https://badges.example.com/classes/demo", "NCP-AII")
    internal = internal_credential(
        session, "INT-FLEET-OPS", "Internal fleet operations", "Operaciones internas de la flota"
    )
    earned = certification(session, tom, internal.code, today, today + dt.timedelta(days=730))
    issuer = Issuer(base_url="http://localhost", name="Demo", secret_keys=SecretKeys(secret_key))
    issue(session, earned, issuer, dt.datetime.combine(today, dt.time(9)))
    # Deactivated: their page offers the erasure of their personal data.
    departed = engineer(session, name="Dora Departed", email="dora.departed@example.com")
    set_active(session, departed, False, via="cli")
