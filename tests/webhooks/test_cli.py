"""`tracker webhook add|list|remove|rotate-secret`."""

from __future__ import annotations

from sqlalchemy import select

from tracker.webhooks.models import WebhookEndpoint

URL = "https://hooks.example.com/in"


def test_add_prints_the_secret_as_its_last_line(runner, db):
    result = runner.invoke(
        args=["webhook", "add", URL, "--events", "hours.logged,certification.lapsed"]
    )
    assert result.exit_code == 0, result.output
    (endpoint,) = db.scalars(select(WebhookEndpoint)).all()
    assert result.output.strip().splitlines()[-1] == endpoint.secret
    assert endpoint.secret.startswith("whsec_")
    assert endpoint.events == "certification.lapsed,hours.logged"
    assert endpoint.format == "generic"


def test_add_refuses_bad_input_naming_it_and_stores_nothing(runner, db):
    result = runner.invoke(args=["webhook", "add", "file:///etc/passwd", "--events", "nope"])
    assert result.exit_code == 1
    assert "URL: url must be an http:// or https:// address" in result.output
    assert "--events: events must be one or more of" in result.output
    result = runner.invoke(
        args=["webhook", "add", URL, "--events", "hours.logged", "--format", "x"]
    )
    assert result.exit_code == 2
    assert db.scalars(select(WebhookEndpoint)).all() == []


def test_list_remove_and_rotate(runner, db):
    runner.invoke(args=["webhook", "add", URL, "--events", "hours.logged", "--format", "slack"])
    (endpoint,) = db.scalars(select(WebhookEndpoint)).all()
    listed = runner.invoke(args=["webhook", "list"])
    assert listed.output.strip() == f"{endpoint.id}\tslack\thours.logged\t{URL}"
    assert endpoint.secret not in listed.output
    old = endpoint.secret
    rotated = runner.invoke(args=["webhook", "rotate-secret", str(endpoint.id)])
    assert rotated.exit_code == 0, rotated.output
    db.expire_all()
    assert rotated.output.strip().splitlines()[-1] == endpoint.secret != old
    assert endpoint.previous_secret == old
    assert "both secrets sign until" in rotated.output
    removed = runner.invoke(args=["webhook", "remove", str(endpoint.id)])
    assert removed.output.strip() == f"webhook {endpoint.id} removed"
    assert runner.invoke(args=["webhook", "list"]).output == ""
    missing = runner.invoke(args=["webhook", "remove", str(endpoint.id)])
    assert missing.exit_code == 1 and "no webhook endpoint with id" in missing.output
