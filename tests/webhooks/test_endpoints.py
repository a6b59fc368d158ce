"""Registering endpoints: the URLs and events accepted, removal, rotation, the audit trail."""

from __future__ import annotations

import base64

import pytest
from sqlalchemy import select

from tests.helpers import WEBHOOK_HOSTS
from tracker.audit.models import AuditEvent
from tracker.clock import utcnow
from tracker.errors import ValidationError
from tracker.webhooks.models import WebhookEndpoint
from tracker.webhooks.rules import EVENTS, ROTATION_OVERLAP
from tracker.webhooks.services.endpoints import add_endpoint, remove_endpoint, rotate_secret

GOOD = "https://hooks.example.com/tracker?x=1"


@pytest.mark.parametrize(
    "url",
    [
        "ftp://example.com/in",
        "file:///etc/passwd",
        "gopher://example.com",
        "javascript:alert(1)",
        "https://",
        "example.com/in",
        "http://exa mple.com/",
        "http://example.com:port/",
        "https://example.com/" + "a" * 2000,
        "",
    ],
)
def test_only_http_and_https_urls_with_a_host_are_accepted(db, url):
    with pytest.raises(ValidationError) as caught:
        add_endpoint(db, url, ["hours.logged"], allow_hosts=WEBHOOK_HOSTS)
    assert set(caught.value.errors) == {"url"}
    assert caught.value.errors["url"].startswith("url must be")
    assert db.scalars(select(WebhookEndpoint)).all() == []


def test_every_bad_field_is_named_at_once(db):
    with pytest.raises(ValidationError) as caught:
        add_endpoint(
            db, "ftp://x", ["hours.logged", "hours.deleted"], "email", allow_hosts=WEBHOOK_HOSTS
        )
    errors = caught.value.errors
    assert set(errors) == {"url", "events", "format"}
    assert "(not hours.deleted)" in errors["events"]
    assert errors["format"] == "format must be one of generic, slack, teams"
    with pytest.raises(ValidationError) as caught:
        add_endpoint(db, GOOD, " , ", allow_hosts=WEBHOOK_HOSTS)
    assert caught.value.errors["events"].startswith("events must be one or more of")


def test_more_events_than_there_are_is_refused(db):
    """The web form ticks each event once: no door names more."""
    with pytest.raises(ValidationError) as caught:
        add_endpoint(db, GOOD, ",".join([*EVENTS, "hours.logged"]), allow_hosts=WEBHOOK_HOSTS)
    assert caught.value.errors == {"events": "events must name at most 7 events, each once"}
    endpoint = add_endpoint(db, GOOD, ",".join(EVENTS) + ",", allow_hosts=WEBHOOK_HOSTS)
    assert endpoint.event_names == list(EVENTS)


def test_an_endpoint_keeps_its_events_in_order_and_a_standard_secret(db):
    endpoint = add_endpoint(
        db,
        f"  {GOOD} ",
        "hours.logged, certification.earned,hours.logged",
        allow_hosts=WEBHOOK_HOSTS,
    )
    assert endpoint.url == GOOD
    assert endpoint.events == "certification.earned,hours.logged"
    assert endpoint.format == "generic" and endpoint.active
    assert endpoint.secret.startswith("whsec_")
    assert len(base64.b64decode(endpoint.secret.removeprefix("whsec_"))) == 32
    assert add_endpoint(
        db, "http://127.0.0.1:8080/", list(EVENTS), "teams", allow_hosts=WEBHOOK_HOSTS
    ).event_names == list(EVENTS)


def test_rotating_keeps_the_old_secret_signing_for_the_overlap(db):
    endpoint = add_endpoint(db, GOOD, ["hours.logged"], allow_hosts=WEBHOOK_HOSTS)
    old = endpoint.secret
    now = utcnow()
    rotate_secret(db, endpoint, now)
    assert endpoint.secret != old and endpoint.previous_secret == old
    assert endpoint.previous_until == now + ROTATION_OVERLAP


def test_the_audit_trail_records_changes_but_never_a_secret(db):
    endpoint = add_endpoint(db, GOOD, ["hours.logged"], actor_id=None, allow_hosts=WEBHOOK_HOSTS)
    rotate_secret(db, endpoint, utcnow())
    secrets = (endpoint.secret, endpoint.previous_secret)
    remove_endpoint(db, endpoint)
    events = db.scalars(
        select(AuditEvent).where(AuditEvent.entity == "webhook_endpoints").order_by(AuditEvent.id)
    ).all()
    assert [e.action for e in events] == ["create", "rotate-secret", "delete"]
    assert events[0].after["url"] == GOOD
    text = repr([(e.before, e.after) for e in events])
    assert not any(secret in text for secret in secrets)
    assert db.get(WebhookEndpoint, endpoint.id) is None
