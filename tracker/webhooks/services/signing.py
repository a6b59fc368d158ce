"""Signing deliveries per the Standard Webhooks specification, and making secrets.

Each attempt carries `webhook-id` (the delivery's, the same every attempt),
`webhook-timestamp` (the attempt's, in whole seconds) and `webhook-signature`:
"v1," and the base64 HMAC-SHA256 of "id.timestamp.body" under the secret's key.
During a rotation the signatures of both secrets are sent, space-separated,
new first, so a receiver that knows either accepts the delivery.
"""

from __future__ import annotations

import base64
import datetime as dt
import secrets
from collections.abc import Sequence

from standardwebhooks import Webhook

from tracker.webhooks.rules import SECRET_BYTES, SECRET_PREFIX


def new_secret() -> str:
    """Return a new signing secret: whsec_ and SECRET_BYTES random bytes in base64."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def signing_secrets(
    secret: str, previous: str | None, previous_until: dt.datetime | None, now: dt.datetime
) -> list[str]:
    """Return the secrets that sign at `now`: the current one, and the previous until its end."""
    if previous and previous_until is not None and now < previous_until:
        return [secret, previous]
    return [secret]


def signature(keys: Sequence[str], webhook_id: str, at: int, body: str) -> str:
    """Return the webhook-signature header: one "v1,..." per secret, space-separated."""
    moment = dt.datetime.fromtimestamp(at, dt.UTC)
    return " ".join(Webhook(key).sign(webhook_id, moment, body) for key in keys)


def signed_headers(keys: Sequence[str], webhook_id: str, at: int, body: str) -> dict[str, str]:
    """Return the Standard Webhooks headers of one attempt sent at `at` (Unix seconds)."""
    return {
        "webhook-id": webhook_id,
        "webhook-timestamp": str(at),
        "webhook-signature": signature(keys, webhook_id, at, body),
    }
