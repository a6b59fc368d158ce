"""The weekly digest's unsubscribe link: a signed token naming the person and the list.

The token never expires (a digest kept for months must still stop the next
one) and needs no sign-in: it is signed with the deployment's secret key under
a salt of its own, so it opens nothing but this one choice, and a token cut
short or changed names no one. A token signed with a key since replaced still
works while that key is one of the fallbacks.
"""

from __future__ import annotations

from itsdangerous import BadData, URLSafeSerializer

from tracker.config import SecretKeys
from tracker.db import MAX_ID
from tracker.reminders.rules import DIGEST_LIST, UNSUBSCRIBE_PATH, UNSUBSCRIBE_SALT


def _serializer(keys: SecretKeys) -> URLSafeSerializer:
    return URLSafeSerializer(keys.for_itsdangerous(), salt=UNSUBSCRIBE_SALT)


def unsubscribe_token(signing_key: str, engineer_id: int) -> str:
    """Return the token that stops the weekly digest of the person `engineer_id` names."""
    return str(_serializer(SecretKeys(signing_key)).dumps([engineer_id, DIGEST_LIST]))


def unsubscribe_url(base_url: str, signing_key: str, engineer_id: int) -> str:
    """Return the absolute URL that stops the person's weekly digest."""
    token = unsubscribe_token(signing_key, engineer_id)
    return f"{base_url.rstrip('/')}{UNSUBSCRIBE_PATH}/{token}"


def subscriber(keys: SecretKeys, token: str) -> int | None:
    """Return the id of the person whose digest `token` stops; None for one no key signed so."""
    try:
        data = _serializer(keys).loads(token)
    except BadData:
        return None
    match data:
        case [int() as engineer_id, str() as listed] if listed == DIGEST_LIST:
            # Only these keys sign tokens; the bounds keep a lookup of one safe all the same.
            if not isinstance(engineer_id, bool) and 0 < engineer_id <= MAX_ID:
                return engineer_id
    return None
