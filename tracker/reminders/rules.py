"""The reminders' rules: windows, batch sizes, the outbox's values."""

from __future__ import annotations

import re

# --- reminder windows ---------------------------------------------------------

# Days before expiry that open a reminder, most distant first.
DEFAULT_WINDOWS = (90, 60, 30, 7)
# The longest window a deployment may configure, in days.
MAX_WINDOW_DAYS = 3650
WINDOWS_RULE = "windows must be days before expiry like 90,60,30,7"
# The expiry notice goes out from the day after expiry for this many days;
# a certification that lapsed long before the tracker ran gets none.
EXPIRED_GRACE_DAYS = 30
# The managers are copied from this many days before the expiry on.
COPY_MANAGER_FROM_DAYS = 30
# window_days of the notice sent after the expiry.
EXPIRED = -1

# --- digests ------------------------------------------------------------------

# A manager's weekly digest lists the expiries within this many days.
DIGEST_HORIZON_DAYS = 90

# The digest is the tracker's one bulk mail: it carries a one-click unsubscribe link
# (RFC 2369 List-Unsubscribe, RFC 8058 List-Unsubscribe-Post) at this path, its
# token signed under this salt, naming the person and the list.
UNSUBSCRIBE_PATH = "/mail/unsubscribe"
UNSUBSCRIBE_SALT = "tracker.list-unsubscribe"
DIGEST_LIST = "digest"
# What a one-click POST carries (RFC 8058 section 3.1), as the header announces it.
ONE_CLICK_FIELD = "List-Unsubscribe"
ONE_CLICK_VALUE = "One-Click"

# --- delivery -----------------------------------------------------------------

# The claim lease and the retries' back-off are every outbox's: tracker.outbox.
# Rows a sender claims and sends over one SMTP connection.
SEND_BATCH = 100

# --- the pass's batches -------------------------------------------------------

CERTIFICATIONS_PER_BATCH = 200

# --- the outbox ---------------------------------------------------------------

# copy: a reminder, expiry notice or escalation written again in another language,
# for its recipients who read that one (their managers, mostly).
NOTIFICATION_KINDS = ("reminder", "expired", "escalation", "digest", "copy")
# skipped: not sent because it no longer applies (its certification was renewed,
# or its person was deactivated).
NOTIFICATION_STATUSES = ("pending", "sending", "sent", "failed", "skipped")
# The longest text the outbox page searches recipients and subjects for.
MAX_OUTBOX_SEARCH_LENGTH = 200

# --- calendar feeds -----------------------------------------------------------

# secrets.token_urlsafe(32) gives 43 characters of [A-Za-z0-9_-]; the column holds 64.
FEED_TOKEN_SHAPE = re.compile(r"[A-Za-z0-9_-]{20,64}")
