"""What makes the tracker unhealthy (fail) or in need of a look (warn)."""

from __future__ import annotations

import datetime as dt

# The health answer's media type (draft-inadarei-api-health-check).
HEALTH_JSON = "application/health+json"
PASS, WARN, FAIL = "pass", "warn", "fail"
# A notice or webhook delivery due this long and still not sent: the sender runs every
# five minutes, so six runs have passed it by (no scheduler, or the receiver refuses).
OUTBOX_LATE = dt.timedelta(minutes=30)
