"""The webhooks' rules: the events, the formats, the URLs accepted, secrets, retries."""

from __future__ import annotations

import datetime as dt

from tracker.i18n import N_, msg

# --- events -------------------------------------------------------------------

# Every event an endpoint may subscribe to, in the order pages list them.
EVENTS = (
    "certification.earned",
    "certification.renewed",
    "certification.expiring",
    "certification.lapsed",
    "certification.revoked",
    "readiness.dropped",
    "hours.logged",
)
EVENTS_RULE = N_("events must be one or more of %(events)s")
UNKNOWN_EVENTS_RULE = N_("events must be one or more of %(events)s (not %(unknown)s)")
# The web form ticks each event once: a list names no more than there are.
MAX_EVENTS = len(EVENTS)
EVENTS_COUNT_RULE = msg("events must name at most %(max)s events, each once", max=MAX_EVENTS)
# An endpoint's events are kept as one text, names joined by this separator.
EVENT_SEPARATOR = ","

# --- formats ------------------------------------------------------------------

# generic: the Standard Webhooks JSON ({"type", "timestamp", "data"});
# slack: a Slack incoming-webhook message; teams: a Microsoft Teams Workflows
# message holding an Adaptive Card.
FORMATS = ("generic", "slack", "teams")
FORMAT_RULE = N_("format must be one of %(formats)s")
ADAPTIVE_CARD_VERSION = "1.4"

# --- URLs ---------------------------------------------------------------------

# Only the web's own schemes: no file:, ftp: or gopher: to reach the server's insides.
URL_SCHEMES = ("http", "https")
MAX_URL_LENGTH = 2000
URL_RULE = N_("url must be an http:// or https:// address with a host name")
URL_LENGTH_RULE = N_("url must be at most %(max)d characters")
# An endpoint inside the network (the server itself, the cloud's metadata
# service, a database) is refused, at registration and before every POST,
# unless the operator lists its host in TRACKER_WEBHOOK_ALLOW_HOSTS.
URL_PRIVATE_RULE = N_(
    "url must point to a public address: %(host)s is a private, loopback or link-local "
    "address (an operator may allow it in TRACKER_WEBHOOK_ALLOW_HOSTS)"
)
URL_NOT_FOUND_RULE = N_("url must name a host that can be found: %(host)s cannot be found")

# --- secrets ------------------------------------------------------------------

# Standard Webhooks: "whsec_" and the key in base64, 24 to 64 bytes.
SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32
# After a rotation the previous secret signs too, this long, so receivers can
# move to the new one without refusing a delivery.
ROTATION_OVERLAP = dt.timedelta(hours=24)

# --- deliveries ---------------------------------------------------------------

DELIVERY_STATUSES = ("pending", "sending", "delivered", "failed")
# A delivery that has failed this many times is `failed`, for an admin to retry.
MAX_ATTEMPTS = 10
# How long a sender waits for an endpoint to connect and answer.
DELIVERY_TIMEOUT = 10.0
# Deliveries a sender claims at once.
SEND_BATCH = 50
# How much of an endpoint's answer is kept with an error.
ANSWER_TEXT_LIMIT = 300
# The deliveries the webhooks page lists, newest first.
DELIVERIES_SHOWN = 50
