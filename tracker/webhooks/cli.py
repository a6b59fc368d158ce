"""`tracker webhook add|list|remove|rotate-secret`: the endpoints that receive events."""

from __future__ import annotations

import click
from flask import current_app
from flask.cli import AppGroup

from tracker.clock import utcnow
from tracker.db import get_for_change
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.webhooks.models import WebhookEndpoint
from tracker.webhooks.rules import EVENTS, FORMATS
from tracker.webhooks.services.endpoints import add_endpoint, endpoints, remove_endpoint
from tracker.webhooks.services.endpoints import rotate_secret as rotate

webhook_cli = AppGroup("webhook", help="Register, list and remove webhook endpoints.")


def _fail(exc: ValidationError) -> click.ClickException:
    names = {"url": "URL", "events": "--events", "format": "--format"}
    return click.ClickException("; ".join(f"{names.get(k, k)}: {v}" for k, v in exc.errors.items()))


def _endpoint(endpoint_id: int) -> WebhookEndpoint:
    """Return the endpoint a command changes, held until it commits (db.FOR_CHANGE)."""
    endpoint = get_for_change(db_session(), WebhookEndpoint, endpoint_id)
    if endpoint is None:
        raise click.ClickException(f"no webhook endpoint with id {endpoint_id}")
    return endpoint


@webhook_cli.command("add")
@click.argument("url")
@click.option("--events", required=True, help="Comma-separated: " + ", ".join(EVENTS) + ".")
@click.option(
    "--format",
    "format_",
    type=click.Choice(FORMATS),
    default="generic",
    show_default=True,
    help="generic: Standard Webhooks JSON; slack: an incoming-webhook message; "
    "teams: a Workflows Adaptive Card.",
)
def webhook_add(url: str, events: str, format_: str) -> None:
    """Register an endpoint; its signing secret is the last line printed."""
    session = db_session()
    try:
        endpoint = add_endpoint(
            session,
            url,
            events,
            format_,
            allow_hosts=current_app.config.get("WEBHOOK_ALLOW_HOSTS", frozenset()),
        )
    except ValidationError as exc:
        raise _fail(exc) from None
    session.commit()
    click.echo(f"webhook {endpoint.id} added: {endpoint.url} ({endpoint.events})")
    click.echo("signing secret (shown once; verify webhook-signature with it):")
    click.echo(endpoint.secret)


@webhook_cli.command("list")
def webhook_list() -> None:
    """List the endpoints: id, format, events, URL (tab-separated)."""
    for endpoint in endpoints(db_session()):
        state = "" if endpoint.active else "\tinactive"
        click.echo(f"{endpoint.id}\t{endpoint.format}\t{endpoint.events}\t{endpoint.url}{state}")


@webhook_cli.command("remove")
@click.argument("endpoint_id", type=int)
def webhook_remove(endpoint_id: int) -> None:
    """Remove an endpoint and its deliveries; nothing more is sent to it."""
    session = db_session()
    remove_endpoint(session, _endpoint(endpoint_id))
    session.commit()
    click.echo(f"webhook {endpoint_id} removed")


@webhook_cli.command("rotate-secret")
@click.argument("endpoint_id", type=int)
def webhook_rotate_secret(endpoint_id: int) -> None:
    """Give an endpoint a new secret (the last line printed); the old one signs for 24 hours."""
    session = db_session()
    endpoint = rotate(session, _endpoint(endpoint_id), utcnow())
    session.commit()
    assert endpoint.previous_until is not None
    until = f"{endpoint.previous_until:%Y-%m-%d %H:%M}"
    click.echo(f"webhook {endpoint_id}: both secrets sign until {until} UTC; the new one:")
    click.echo(endpoint.secret)
