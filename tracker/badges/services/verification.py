"""Send a badge to its verifier: Open Badges 3.0 (a VC) or 2.0 (a hosted or signed assertion).

A URL is fetched first, an image unbaked first; then a compact JWS whose
payload is an Open Badges 2.0 assertion goes to `verify_signed`, another
compact JWT or JSON with a Verifiable Credentials context to `verify_ob3`,
anything else to `verify_ob2`.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Collection

from tracker import jsontext
from tracker.badges.rules import MAX_DOCUMENT_BYTES, VC_CONTEXTS
from tracker.badges.services import ob2, ob2_signed, ob3
from tracker.badges.services.baking import unbake
from tracker.badges.services.fetching import Gone
from tracker.badges.services.verified import BadgeRefused, Fetch, VerifiedBadge
from tracker.i18n import N_, msg

COMPACT_JWT = re.compile(r"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$")
URL = re.compile(r"^https?://\S+$", re.IGNORECASE)


def is_ob3(text: str) -> bool:
    """Return whether `text` is an Open Badges 3.0 credential: a compact JWT, or a VC's JSON."""
    text = text.strip()
    if COMPACT_JWT.match(text):
        return True
    if not text.startswith("{"):
        return False
    try:
        document = jsontext.loads(text)
    except ValueError:
        return False
    context = document.get("@context") if isinstance(document, dict) else None
    contexts = context if isinstance(context, list) else [context]
    return any(isinstance(c, str) and c in VC_CONTEXTS for c in contexts)


def verify_url(url: str, emails: Collection[str], today: dt.date, fetch: Fetch) -> VerifiedBadge:
    """Fetch the badge at `url` and verify it."""
    url = url.strip()
    try:
        body = fetch(url)
    except Gone:
        raise BadgeRefused(N_("the issuer revoked the badge"), "revoked") from None
    text = body.decode("utf-8", "replace")
    if ob2_signed.is_signed_assertion(text):
        return ob2_signed.verify_signed(text, emails, today, fetch)
    if is_ob3(text):
        return ob3.verify_ob3(text, emails, today, fetch)
    return ob2.verify_hosted(url, emails, today, fetch, body=body)


def verify_document(
    text: str, emails: Collection[str], today: dt.date, fetch: Fetch
) -> VerifiedBadge:
    """Verify a pasted badge: an assertion's JSON or JWS, a VC's JSON or JWT, or its URL."""
    text = text.strip()
    if not text:
        raise BadgeRefused(N_("no badge given"))
    if len(text.encode()) > MAX_DOCUMENT_BYTES:
        raise BadgeRefused(msg("the badge is larger than %(most)s bytes", most=MAX_DOCUMENT_BYTES))
    if ob2_signed.is_signed_assertion(text):
        return ob2_signed.verify_signed(text, emails, today, fetch)
    if is_ob3(text):
        return ob3.verify_ob3(text, emails, today, fetch)
    if URL.match(text):
        return verify_url(text, emails, today, fetch)
    return ob2.verify_ob2(text, emails, today, fetch)


def verify_image(
    image: bytes, emails: Collection[str], today: dt.date, fetch: Fetch
) -> VerifiedBadge:
    """Verify the badge a baked PNG or SVG image carries."""
    baked = unbake(image)
    if baked.format == "ob3":
        return ob3.verify_ob3(baked.payload, emails, today, fetch)
    return verify_document(baked.payload, emails, today, fetch)


def reverify(
    badge_format: str, document: str, emails: Collection[str], today: dt.date, fetch: Fetch
) -> VerifiedBadge:
    """Verify an imported badge again from the document kept when it was imported."""
    if badge_format == "ob3":
        return ob3.verify_ob3(document, emails, today, fetch)
    if ob2_signed.is_signed_assertion(document):
        return ob2_signed.verify_signed(document, emails, today, fetch)
    return ob2.verify_ob2(document, emails, today, fetch)
