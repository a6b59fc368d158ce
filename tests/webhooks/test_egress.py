"""Endpoints inside the network are refused: at registration (page, API, CLI) and before a POST."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from tests import factories
from tests.helpers import WEBHOOK_HOSTS, Api, count, token_for
from tests.webhooks.conftest import deliveries, endpoint_for, send
from tests.webhooks.helpers import log
from tracker.config import Config
from tracker.errors import ValidationError
from tracker.webhooks.models import WebhookEndpoint
from tracker.webhooks.rules import MAX_ATTEMPTS
from tracker.webhooks.services.endpoints import add_endpoint

PAGE = "/admin/webhooks"
API = "/api/v1/webhooks"
PRIVATE_RULE = "url must point to a public address"
SETTING = "TRACKER_WEBHOOK_ALLOW_HOSTS"

# Loopback besides the suite's receivers, private, the cloud's metadata service,
# IPv6 loopback, IPv4 loopback written as IPv6, and a name resolving to loopback.
INSIDE = [
    ("http://127.0.0.2:8080/hooks", "127.0.0.2"),
    ("http://10.0.0.1/hooks", "10.0.0.1"),
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254"),
    ("http://[::1]:8080/hooks", "::1"),
    ("http://[::ffff:127.0.0.1]/hooks", "::ffff:127.0.0.1"),
    ("http://localhost:8080/hooks", "localhost"),
]


@pytest.fixture
def nothing_allowed(app, monkeypatch):
    """TRACKER_WEBHOOK_ALLOW_HOSTS empty, as in production by default."""
    monkeypatch.setitem(app.config, "WEBHOOK_ALLOW_HOSTS", frozenset())


def admin(db):
    return factories.engineer(db, access_role="admin")


# --- the rule, in the service ---------------------------------------------------------


@pytest.mark.parametrize(("url", "host"), INSIDE)
def test_a_host_inside_the_network_is_refused_naming_url_and_the_setting(db, url, host):
    with pytest.raises(ValidationError) as caught:
        add_endpoint(db, url, ["hours.logged"], allow_hosts=frozenset())
    problem = caught.value.errors["url"]
    assert problem.startswith(f"{PRIVATE_RULE}: {host} is a private, loopback or link-local")
    assert SETTING in problem
    assert count(db, WebhookEndpoint) == 0


def test_allowing_one_loopback_address_lets_no_other_through(db):
    # The suite allows 127.0.0.1; its neighbour is still inside the network.
    with pytest.raises(ValidationError) as caught:
        add_endpoint(db, "http://127.0.0.2/", ["hours.logged"], allow_hosts=WEBHOOK_HOSTS)
    assert caught.value.errors["url"].startswith(PRIVATE_RULE)


def test_a_name_that_cannot_be_found_is_refused(db):
    with pytest.raises(ValidationError) as caught:
        add_endpoint(db, "https://hooks.invalid/in", ["hours.logged"], allow_hosts=frozenset())
    assert caught.value.errors == {
        "url": "url must name a host that can be found: hooks.invalid cannot be found"
    }
    assert count(db, WebhookEndpoint) == 0


def test_other_bad_fields_are_named_beside_a_private_url(db):
    with pytest.raises(ValidationError) as caught:
        add_endpoint(db, "http://10.0.0.1/", ["hours.deleted"], "email", allow_hosts=frozenset())
    assert set(caught.value.errors) == {"url", "events", "format"}


@pytest.mark.parametrize(
    ("url", "listed"),
    [
        ("http://10.0.0.1/hooks", "10.0.0.1"),
        ("http://[::1]:8080/hooks", "::1"),
        ("http://LocalHost:8080/hooks", "localhost"),
        # A name is allowed by the address it resolves to, as the badges' fetching does.
        ("http://localhost:8080/hooks", "127.0.0.1"),
    ],
)
def test_a_host_inside_the_network_is_registered_when_listed(db, url, listed):
    endpoint = add_endpoint(db, url, ["hours.logged"], allow_hosts=frozenset({listed}))
    assert endpoint.url == url


def test_the_setting_is_read_from_the_environment(monkeypatch):
    monkeypatch.setenv(SETTING, " 10.0.0.1, [::1],Hooks.Internal ,")
    listed = Config().WEBHOOK_ALLOW_HOSTS
    assert listed == frozenset({"10.0.0.1", "::1", "hooks.internal"})
    monkeypatch.delenv(SETTING)
    unset = Config().WEBHOOK_ALLOW_HOSTS
    assert unset == frozenset()


# --- registration: the page, the API, the CLI -----------------------------------------


@pytest.mark.parametrize(("url", "host"), INSIDE)
def test_the_page_refuses_a_private_url_with_400_storing_nothing(
    client, auth, db, nothing_allowed, url, host
):
    auth.sign_in(admin(db))
    response = client.post(PAGE, data={"url": url, "event_hours_logged": "y"})
    assert response.status_code == 400
    assert f"{PRIVATE_RULE}: {host} is a private" in response.text
    assert SETTING in response.text
    assert count(db, WebhookEndpoint) == 0


def test_the_page_says_it_in_spanish(client, auth, db, nothing_allowed):
    auth.sign_in(admin(db))
    response = client.post(
        PAGE,
        data={"url": "http://169.254.169.254/", "event_hours_logged": "y"},
        headers={"Accept-Language": "es"},
    )
    assert response.status_code == 400
    assert "la URL debe apuntar a una dirección pública: 169.254.169.254" in response.text
    assert count(db, WebhookEndpoint) == 0


def test_the_page_registers_a_private_url_when_listed(app, client, auth, db, monkeypatch):
    monkeypatch.setitem(app.config, "WEBHOOK_ALLOW_HOSTS", frozenset({"10.0.0.1"}))
    auth.sign_in(admin(db))
    response = client.post(PAGE, data={"url": "http://10.0.0.1/in", "event_hours_logged": "y"})
    assert response.status_code == 302
    assert db.scalars(select(WebhookEndpoint.url)).all() == ["http://10.0.0.1/in"]


@pytest.mark.parametrize(("url", "host"), INSIDE)
def test_the_api_refuses_a_private_url_with_400_storing_nothing(
    client, db, nothing_allowed, url, host
):
    token = token_for(db, admin(db))
    response = Api(client).post(API, token, {"url": url, "events": ["hours.logged"]})
    assert response.status_code == 400
    problem = response.get_json()["errors"]["url"]
    assert problem.startswith(f"{PRIVATE_RULE}: {host} is a private") and SETTING in problem
    assert count(db, WebhookEndpoint) == 0


def test_the_api_refuses_a_name_that_cannot_be_found(client, db):
    token = token_for(db, admin(db))
    body = {"url": "https://hooks.invalid/in", "events": ["hours.logged"]}
    response = Api(client).post(API, token, body)
    assert response.status_code == 400
    assert "hooks.invalid cannot be found" in response.get_json()["errors"]["url"]
    assert count(db, WebhookEndpoint) == 0


def test_the_api_registers_a_private_url_when_listed(app, client, db, monkeypatch):
    monkeypatch.setitem(app.config, "WEBHOOK_ALLOW_HOSTS", frozenset({"169.254.169.254"}))
    token = token_for(db, admin(db))
    body = {"url": "http://169.254.169.254/in", "events": ["hours.logged"]}
    response = Api(client).post(API, token, body)
    assert response.status_code == 201, response.get_json()
    assert count(db, WebhookEndpoint) == 1


@pytest.mark.parametrize(("url", "host"), INSIDE)
def test_the_cli_refuses_a_private_url_storing_nothing(runner, db, nothing_allowed, url, host):
    result = runner.invoke(args=["webhook", "add", url, "--events", "hours.logged"])
    assert result.exit_code == 1
    assert f"URL: {PRIVATE_RULE}: {host} is a private" in result.output
    assert SETTING in result.output
    assert count(db, WebhookEndpoint) == 0


def test_the_cli_registers_a_private_url_when_listed(app, runner, db, monkeypatch):
    monkeypatch.setitem(app.config, "WEBHOOK_ALLOW_HOSTS", frozenset({"::1"}))
    result = runner.invoke(args=["webhook", "add", "http://[::1]:9/in", "--events", "hours.logged"])
    assert result.exit_code == 0, result.output
    assert db.scalars(select(WebhookEndpoint.url)).all() == ["http://[::1]:9/in"]


# --- delivery: checked again before each POST -----------------------------------------


def test_an_endpoint_gone_private_is_not_sent_to(app, db, receiver, inside):
    endpoint = endpoint_for(db, receiver, ["hours.logged"])
    # As if its name now resolved inside the network: the row holds a private URL.
    endpoint.url = inside.url
    inside.secrets.append(endpoint.secret)
    db.flush()
    log(db)
    assert send(app).retried == 1
    assert inside.received == [] and receiver.received == []
    (row,) = deliveries(db)
    assert row.status == "pending" and row.attempts == 1
    assert row.last_error.startswith(f"not sent: {PRIVATE_RULE}: 127.0.0.2 is a private")
    # The same delivery goes once 127.0.0.2 is listed: the server was there to be reached.
    assert send(app, row.next_attempt_at, allow_hosts=frozenset({"127.0.0.2"})).sent == 1
    assert len(inside.received) == 1 and inside.received[0].verified_with == [endpoint.secret]


def test_a_name_resolving_inside_the_network_is_checked_at_delivery(app, db, receiver):
    endpoint = endpoint_for(db, receiver, ["hours.logged"])
    endpoint.url = receiver.url.replace("127.0.0.1", "localhost")
    db.flush()
    log(db)
    assert send(app, allow_hosts=frozenset()).retried == 1
    assert receiver.received == []
    (row,) = deliveries(db)
    assert row.last_error.startswith(f"not sent: {PRIVATE_RULE}: localhost is a private")
    # Its address listed, the name goes through.
    assert send(app, row.next_attempt_at).sent == 1
    assert len(receiver.received) == 1


def test_a_delivery_refused_every_time_ends_failed_with_the_reason(app, db, receiver):
    endpoint = endpoint_for(db, receiver, ["hours.logged"])
    endpoint.url = "http://10.0.0.1:9/hooks"
    db.flush()
    factories.webhook_delivery(db, endpoint, status="pending", attempts=MAX_ATTEMPTS - 1)
    assert send(app).failed == 1
    (row,) = deliveries(db)
    assert row.status == "failed"
    assert row.last_error.startswith(f"not sent: {PRIVATE_RULE}: 10.0.0.1")


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_to_a_private_host_is_not_followed(app, db, receiver, inside, status):
    endpoint_for(db, receiver, ["hours.logged"])
    log(db)
    receiver.redirect_to = inside.url
    receiver.answer_next(status)
    assert send(app).retried == 1
    assert len(receiver.received) == 1
    assert inside.received == []
    assert deliveries(db)[0].last_error.startswith(f"answered {status}")
