"""Verify an Open Badges 2.0 hosted assertion: its issuer's copy, recipient, revocation, dates.

The copy that counts is the one the issuer hosts at the assertion's `id`: a
pasted or baked assertion only names it, and must agree with it. The badge
class and the issuer are fetched from their ids too, and each must say it is
what its URL names. A signed assertion (ob2_signed) shares every check but
where the issuer vouches for it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
from collections.abc import Callable, Collection, Mapping
from typing import Any
from urllib.parse import urlsplit

from tracker import jsontext
from tracker.badges.rules import (
    MAX_BADGE_NAME_LENGTH,
    MAX_ISSUER_NAME_LENGTH,
    MAX_URL_LENGTH,
    RECIPIENT_HASHES,
)
from tracker.badges.services.fetching import Gone
from tracker.badges.services.verified import BadgeRefused, Fetch, VerifiedBadge
from tracker.i18n import N_, day, msg

Json = Mapping[str, Any]


def parse_json(text: str | bytes, what: str) -> Json:
    """Return the JSON object of `text`; refused when it is not one."""
    try:
        found = jsontext.loads(text)
    except (ValueError, UnicodeDecodeError):
        raise BadgeRefused(msg("the %(what)s is not valid JSON", what=what)) from None
    if not isinstance(found, dict):
        raise BadgeRefused(msg("the %(what)s is not a JSON object", what=what))
    return found


def types_of(document: Json) -> set[str]:
    """Return the types a document says it has (`type`, or JSON-LD's `@type`)."""
    kind = document.get("type", document.get("@type"))
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    return set()


def url_of(value: object, what: str) -> str:
    """Return the URL `value` names: the string itself, or an embedded object's `id`."""
    if isinstance(value, dict):
        value = value.get("id")
    if (
        not isinstance(value, str)
        or len(value) > MAX_URL_LENGTH
        or urlsplit(value).scheme.lower() not in ("http", "https")
    ):
        raise BadgeRefused(msg("the %(what)s is not named by an http or https URL", what=what))
    return value


def hosted_url(assertion: Json) -> str:
    """Return the URL where the issuer hosts `assertion` (2.0 `id`, 1.x `verify.url`)."""
    verification = assertion.get("verification", assertion.get("verify"))
    if isinstance(verification, dict):
        kind = str(verification.get("type", "hosted")).lower()
        if kind in ("signed", "signedbadge"):
            # Its JSON alone proves nothing: the signature is over the JWS.
            raise BadgeRefused(
                N_(
                    "a signed Open Badges 2.0 assertion is verified from its signed text (the JWS)"
                    " or its baked image, not from its JSON"
                )
            )
        if "url" in verification and not str(assertion.get("id", "")).startswith("http"):
            return url_of(verification["url"], N_("assertion"))
    return url_of(assertion.get("id"), N_("assertion"))


def fetch_json(fetch: Fetch, url: str, what: str) -> Json:
    """Fetch the JSON object at `url`; refused unless it says it is that URL."""
    found = parse_json(fetch(url), what)
    if found.get("id") != url:
        raise BadgeRefused(
            msg("the %(what)s fetched from %(url)s does not say it is that URL", what=what, url=url)
        )
    return found


def _date(value: object, field: str) -> dt.date:
    if not isinstance(value, str):
        raise BadgeRefused(msg("the assertion's %(field)s is not a date", field=field))
    try:
        when = dt.datetime.fromisoformat(value.strip())
    except ValueError:
        raise BadgeRefused(msg("the assertion's %(field)s is not a date", field=field)) from None
    if when.tzinfo is not None:
        when = when.astimezone(dt.UTC)
    return when.date()


def _recipient(assertion: Json, emails: Collection[str]) -> str:
    """Return which of `emails` the assertion was issued to; refused when none."""
    recipient = assertion.get("recipient")
    if not isinstance(recipient, dict) or not isinstance(recipient.get("identity"), str):
        raise BadgeRefused(N_("the assertion names no recipient"), "recipient")
    if str(recipient.get("type", "email")).lower() != "email":
        raise BadgeRefused(N_("the badge was issued to something other than an e-mail address"))
    identity = recipient["identity"].strip()
    salt = recipient.get("salt") or ""
    if not isinstance(salt, str):
        raise BadgeRefused(N_("the recipient's salt is not text"), "recipient")
    hashed = recipient.get("hashed") is True or "$" in identity
    for email in (e.strip().lower() for e in emails):
        if not hashed:
            if hmac.compare_digest(identity.lower(), email):
                return email
            continue
        algorithm, _, digest = identity.partition("$")
        if algorithm.lower() not in RECIPIENT_HASHES:
            raise BadgeRefused(
                msg(
                    "the recipient is hashed with %(algorithm)s, which is not accepted",
                    algorithm=algorithm,
                ),
                "recipient",
            )
        expected = hashlib.new(algorithm.lower(), (email + salt).encode()).hexdigest()
        if hmac.compare_digest(digest.strip().lower(), expected):
            return email
    raise BadgeRefused(N_("the badge was issued to someone else's e-mail address"), "recipient")


def _same_origin(assertion_url: str, issuer: Json) -> bool:
    """Return whether the issuer vouches for where its assertion is hosted."""
    where = urlsplit(assertion_url)
    own = urlsplit(str(issuer.get("id", "")))
    verification = issuer.get("verification")
    if isinstance(verification, dict):
        starts = verification.get("startsWith")
        if starts is not None:
            starts = [starts] if isinstance(starts, str) else starts
            return any(isinstance(s, str) and assertion_url.startswith(s) for s in starts)
        allowed = verification.get("allowedOrigins")
        if allowed is not None:
            allowed = [allowed] if isinstance(allowed, str) else allowed
            return any(isinstance(a, str) and a.lower() == where.netloc.lower() for a in allowed)
    return (where.scheme.lower(), where.netloc.lower()) == (own.scheme.lower(), own.netloc.lower())


def _revoked_in_list(fetch: Fetch, issuer: Json, assertion_url: str, uid: object) -> str | None:
    """Return the revocation reason the issuer's revocationList gives, or None when not listed."""
    if "revocationList" not in issuer:
        return None
    listing = parse_json(
        fetch(url_of(issuer["revocationList"], N_("revocation list"))), N_("revocation list")
    )
    for entry in listing.get("revokedAssertions") or ():
        entry_id = entry.get("id") if isinstance(entry, dict) else entry
        if entry_id == assertion_url or (uid is not None and entry_id == uid):
            reason = entry.get("revocationReason") if isinstance(entry, dict) else None
            return str(reason) if reason else ""
    return None


def _name(document: Json, what: str, most: int) -> str:
    name = document.get("name")
    if not isinstance(name, str) or not name.strip():
        raise BadgeRefused(msg("the %(what)s has no name", what=what))
    return name.strip()[:most]


def _revoked(reason: str) -> BadgeRefused:
    if reason:
        return BadgeRefused(
            msg("the issuer revoked the badge: %(reason)s", reason=reason), "revoked"
        )
    return BadgeRefused(N_("the issuer revoked the badge"), "revoked")


def verify_hosted(
    url: str,
    emails: Collection[str],
    today: dt.date,
    fetch: Fetch,
    body: bytes | None = None,
    received: Json | None = None,
) -> VerifiedBadge:
    """Verify the assertion its issuer hosts at `url` (`body`: already fetched from it)."""
    if body is None:
        try:
            body = fetch(url)
        except Gone:
            raise _revoked("") from None
    text = body.decode("utf-8", "replace")
    assertion = parse_json(text, N_("assertion"))
    if "Assertion" not in types_of(assertion):
        raise BadgeRefused(N_("the document is not an Open Badges assertion"))
    if assertion.get("id") != url:
        raise BadgeRefused(
            msg("the assertion fetched from %(url)s does not say it is that URL", url=url)
        )
    if received is not None and any(
        received.get(key) != assertion.get(key) for key in ("recipient", "badge", "issuedOn")
    ):
        raise BadgeRefused(N_("the badge given differs from the one its issuer hosts"))

    def vouched(issuer: Json) -> None:
        if not _same_origin(url, issuer):
            raise BadgeRefused(
                N_("the assertion is hosted where its issuer does not vouch for it (wrong issuer)")
            )

    return verify_assertion(assertion, url, text, emails, today, fetch, vouched)


def verify_assertion(
    assertion: Json,
    assertion_id: str,
    document: str,
    emails: Collection[str],
    today: dt.date,
    fetch: Fetch,
    vouch: Callable[[Json], None],
) -> VerifiedBadge:
    """Verify an assertion's badge class, issuer, recipient, revocation and dates.

    `vouch` refuses the issuer's profile unless the issuer stands by this very
    assertion: where it is hosted, or the key it is signed with.
    """
    if assertion.get("revoked") is True:
        raise _revoked(str(assertion.get("revocationReason") or ""))
    badge_url = url_of(assertion.get("badge"), N_("badge class"))
    badge = fetch_json(fetch, badge_url, N_("badge class"))
    if "BadgeClass" not in types_of(badge):
        raise BadgeRefused(N_("the assertion's badge is not a badge class"))
    issuer_url = url_of(badge.get("issuer"), N_("issuer"))
    issuer = fetch_json(fetch, issuer_url, N_("issuer"))
    if not types_of(issuer) & {"Issuer", "Profile"}:
        raise BadgeRefused(N_("the badge class's issuer is not an issuer profile"))
    vouch(issuer)
    recipient = _recipient(assertion, emails)
    reason = _revoked_in_list(fetch, issuer, assertion_id, assertion.get("uid"))
    if reason is not None:
        raise _revoked(reason)
    issued_on = _date(assertion.get("issuedOn"), "issuedOn")
    if issued_on > today:
        raise BadgeRefused(N_("the badge is issued on a date in the future"))
    expires_on = None
    if assertion.get("expires") is not None:
        expires_on = _date(assertion["expires"], "expires")
        if expires_on < issued_on:
            raise BadgeRefused(N_("the badge expires before it was issued"))
        if expires_on < today:
            raise BadgeRefused(
                msg("the badge expired on %(date)s", date=day(expires_on)), "expired"
            )
    return VerifiedBadge(
        format="ob2",
        assertion_id=assertion_id,
        badge_class_id=badge_url,
        badge_name=_name(badge, N_("badge class"), MAX_BADGE_NAME_LENGTH),
        issuer_id=issuer_url,
        issuer_name=_name(issuer, N_("issuer"), MAX_ISSUER_NAME_LENGTH),
        recipient=recipient,
        issued_on=issued_on,
        expires_on=expires_on,
        document=document,
    )


def verify_ob2(
    document: str, emails: Collection[str], today: dt.date, fetch: Fetch
) -> VerifiedBadge:
    """Verify an Open Badges 2.0 assertion given as JSON text, by its issuer's hosted copy."""
    received = parse_json(document, N_("assertion"))
    return verify_hosted(hosted_url(received), emails, today, fetch, received=received)
