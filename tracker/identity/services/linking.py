"""Who a provider's checked claims sign in: a linked person, one linked now, or one created now.

A person is found by the provider's (issuer, subject). The first time, an active
person whose address the provider says it verified is linked to that pair;
failing that, a person is created when TRACKER_OIDC_CREATE_USERS allows it.
The role claim, when configured and present, sets the access role.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from tracker.audit.accounts import record_account_event
from tracker.errors import ValidationError
from tracker.i18n import join, msg
from tracker.identity.models import Identity
from tracker.identity.rules import ROLE_RANK
from tracker.identity.services.refusals import SignInRefused
from tracker.identity.services.settings import OidcSettings
from tracker.people.models import Engineer
from tracker.people.rules import MAX_EMAIL_LENGTH, MAX_NAME_LENGTH
from tracker.people.services.checks import normalise_email
from tracker.people.services.persons import create_person, update_engineer
from tracker.people.services.reads import find_engineer

METHOD = "oidc"
ONLY_WAY_IN = msg("it is your only way to sign in; ask an admin to set a password first")


def claim(claims: Mapping[str, Any], name: str) -> Any:
    """Return a claim by its name, or by a dotted path into nested claims (realm_access.roles)."""
    if name in claims:
        return claims[name]
    value: Any = claims
    for part in name.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def mapped_role(claims: Mapping[str, Any], settings: OidcSettings) -> str | None:
    """Return the access role the role claim gives; None when the claim is not configured or absent.

    The highest role of every mapped value wins; a present claim that maps no value
    gives "engineer".
    """
    if not settings.role_claim:
        return None
    values = claim(claims, settings.role_claim)
    if values is None:
        return None
    if isinstance(values, str):
        values = [values]
    if not isinstance(values, list):
        return None
    roles = [settings.role_map[v] for v in values if isinstance(v, str) and v in settings.role_map]
    return max(roles, key=ROLE_RANK.__getitem__, default="engineer")


def email_verified(claims: Mapping[str, Any], settings: OidcSettings) -> bool:
    """Return whether the provider says it verified the address (some send the text "true")."""
    if settings.trust_email:
        return True
    verified = claims.get("email_verified")
    return verified is True or (isinstance(verified, str) and verified.lower() == "true")


def display_name(claims: Mapping[str, Any], email: str) -> str:
    """Return the name a person created now gets: name, given and family name, username, address."""
    for candidate in (
        claims.get("name"),
        " ".join(
            part
            for part in (claims.get("given_name"), claims.get("family_name"))
            if isinstance(part, str)
        ),
        claims.get("preferred_username"),
    ):
        if isinstance(candidate, str) and candidate.strip():
            return candidate.strip()[:MAX_NAME_LENGTH]
    return email.split("@")[0][:MAX_NAME_LENGTH]


def find_identity(session: Session, issuer: str, subject: str) -> Identity | None:
    """Return the identity of the provider's (issuer, subject), if linked."""
    return session.scalars(
        select(Identity).where(Identity.issuer == issuer, Identity.subject == subject)
    ).one_or_none()


def identities(session: Session, engineer: Engineer) -> list[Identity]:
    """Return the provider accounts linked to a person."""
    return list(
        session.scalars(
            select(Identity).where(Identity.engineer_id == engineer.id).order_by(Identity.id)
        )
    )


def _provider_email(claims: Mapping[str, Any]) -> str:
    """Return the provider's address in the stored form, or raise SignInRefused."""
    raw = claims.get("email")
    if not isinstance(raw, str) or not raw.strip():
        raise SignInRefused("no_email")
    try:
        return normalise_email(raw)
    except ValidationError:
        raise SignInRefused("no_email", "email_invalid", email=raw[:MAX_EMAIL_LENGTH]) from None


def _link_or_create(
    session: Session,
    settings: OidcSettings,
    claims: Mapping[str, Any],
    *,
    today: dt.date,
    address: str,
) -> tuple[Engineer, bool]:
    """Return the person the claims name for the first time, linked; and whether it is new."""
    email = _provider_email(claims)
    verified = email_verified(claims, settings)
    person = find_engineer(session, email)
    if person is None:
        if not settings.create_users:
            raise SignInRefused("no_account", email=email)
        if not verified:
            raise SignInRefused("unverified_email", email=email)
        try:
            person = create_person(
                session,
                email=email,
                name=display_name(claims, email),
                today=today,
                access_role=mapped_role(claims, settings) or "engineer",
                via=METHOD,
            )
        except ValidationError as exc:
            raise SignInRefused(
                "account", "invalid_account", email=email, rule=join(exc.errors.values())
            ) from None
        return person, True
    if not verified:
        raise SignInRefused("unverified_email", email=email, engineer_id=person.id)
    if not person.active:
        raise SignInRefused("inactive", email=email, engineer_id=person.id)
    if any(linked.issuer == settings.issuer for linked in identities(session, person)):
        raise SignInRefused("linked_elsewhere", email=email, engineer_id=person.id)
    return person, False


def sign_in_person(
    session: Session,
    settings: OidcSettings,
    claims: Mapping[str, Any],
    *,
    today: dt.date,
    now: dt.datetime,
    address: str = "",
) -> Engineer:
    """Return the person the provider's checked claims sign in, linking or creating them.

    Raises SignInRefused (nothing of the sign-in is then meant to be kept: the
    caller runs this in a savepoint and records the refusal itself).
    """
    issuer, subject = settings.issuer, str(claims["sub"])
    identity = find_identity(session, issuer, subject)
    created, linked = False, identity is None
    if identity is None:
        person, created = _link_or_create(session, settings, claims, today=today, address=address)
        identity = Identity(engineer=person, issuer=issuer, subject=subject, created_at=now)
        session.add(identity)
    person = identity.engineer
    if not person.active:
        raise SignInRefused("inactive", email=person.email, engineer_id=person.id)

    role = mapped_role(claims, settings)
    if not created and role is not None and role != person.access_role:
        try:
            update_engineer(session, person, None, today, access_role=role, via=METHOD)
        except ValidationError as exc:
            raise SignInRefused(
                "role",
                "role_not_applied",
                email=person.email,
                engineer_id=person.id,
                rule=exc.errors.get("access_role", join(exc.errors.values())),
            ) from None

    email = claims.get("email")
    identity.email = email[:MAX_EMAIL_LENGTH] if isinstance(email, str) else ""
    identity.last_sign_in_at = now
    record_account_event(
        session,
        "sign_in",
        engineer_id=person.id,
        email=person.email,
        method=METHOD,
        address=address,
        detail={"issuer": issuer, "subject": subject, "linked": linked},
    )
    session.flush()
    return person


def linked_identities(session: Session, engineer: Engineer) -> list[Identity]:
    """Return the person's accounts at OpenID providers, by provider."""
    return list(
        session.scalars(
            select(Identity)
            .where(Identity.engineer_id == engineer.id)
            .order_by(Identity.issuer, Identity.id)
        )
    )


def unlink_identity(
    session: Session, engineer: Engineer, identity_id: int, address: str = ""
) -> Identity:
    """Unlink one of the person's provider accounts; record it in the account trail. Flushes.

    LookupError when it is not theirs; ValidationError (`identity`) when it is
    their only way to sign in (no password, no other account linked).
    """
    identity = session.get(Identity, identity_id)
    if identity is None or identity.engineer_id != engineer.id:
        raise LookupError(identity_id)
    others = [i for i in linked_identities(session, engineer) if i.id != identity.id]
    if not engineer.password_hash and not others:
        raise ValidationError(
            {
                "identity": msg(
                    "it is your only way to sign in; ask an admin to set a password first"
                )
            }
        )
    session.delete(identity)
    session.flush()
    record_account_event(
        session,
        "identity_unlinked",
        engineer_id=engineer.id,
        email=engineer.email,
        method="web",
        actor_id=engineer.id,
        address=address,
        detail={"issuer": identity.issuer, "subject": identity.subject},
    )
    return identity
