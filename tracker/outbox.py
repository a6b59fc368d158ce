"""What every outbox shares (the mail's, the webhooks'): the claim lease, retries with back-off.

A sender claims due rows for CLAIM_LEASE; a row whose sender died is taken
again after it. A temporary failure is retried after RETRY_BASE, doubling
each time up to RETRY_CAP. The last error kept on a row is cut at
ERROR_TEXT_LIMIT characters.
"""

from __future__ import annotations

import datetime as dt

# A sender holds a claimed row this long; after it, another sender may take it.
CLAIM_LEASE = dt.timedelta(minutes=10)
# A temporary failure is retried after RETRY_BASE, doubling each time up to RETRY_CAP.
RETRY_BASE = dt.timedelta(minutes=5)
RETRY_CAP = dt.timedelta(hours=6)
# The longest error text kept on an outbox row.
ERROR_TEXT_LIMIT = 2000


def backoff(attempts: int) -> dt.timedelta:
    """Return how long a row that has failed `attempts` times waits before the next try."""
    return min(RETRY_BASE * (2 ** max(attempts - 1, 0)), RETRY_CAP)
