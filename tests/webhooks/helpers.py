"""Shared helpers for the webhooks tests: an hour entry that raises an event, a subscriber."""

from __future__ import annotations

from tests import factories
from tests.helpers import WEBHOOK_HOSTS
from tracker.progress.services.hours import log_hours
from tracker.webhooks.services.endpoints import add_endpoint

TODAY = factories.TODAY
URL = "https://hooks.example.com/in"


def log(db, who=None, hours="1.5", note="reading"):
    """Log hours for `who` (a new engineer by default): an hours.logged event."""
    who = who or factories.engineer(db, name="Ada")
    return log_hours(
        db, who, factories.course(db, "FDL"), TODAY, factories.hours(hours), TODAY, note=note
    )


def subscribe(db, *events: str, active: bool = True):
    """Add an endpoint at URL taking `events`, active or not."""
    endpoint = add_endpoint(db, URL, list(events), allow_hosts=WEBHOOK_HOSTS)
    endpoint.active = active
    db.flush()
    return endpoint
