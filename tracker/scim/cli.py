"""SCIM commands: `tracker scim-token create|list|revoke`."""

from __future__ import annotations

import click
from flask.cli import AppGroup

from tracker.clock import utcnow
from tracker.db import get_for_change
from tracker.extensions import db_session
from tracker.scim.models import ScimToken
from tracker.scim.services.tokens import create_scim_token, revoke_scim_token, scim_tokens

scim_token_cli = AppGroup(
    "scim-token", help="Create, list and revoke the tokens of SCIM provisioning (/scim/v2)."
)


@scim_token_cli.command("create")
@click.argument("name", default="")
def scim_token_create(name: str) -> None:
    """Create a SCIM token (NAME: what it is for); the token is printed once, as the last line."""
    session = db_session()
    token, secret = create_scim_token(session, name)
    session.commit()
    click.echo(f"SCIM token {token.id} (store it now; it is not shown again):")
    click.echo(secret)


@scim_token_cli.command("list")
def scim_token_list() -> None:
    """List the SCIM tokens: id, state, created, last used, name (tab-separated)."""
    for token in scim_tokens(db_session()):
        state = f"revoked {token.revoked_at:%Y-%m-%d}" if token.revoked_at else "active"
        used = f"{token.last_used_at:%Y-%m-%d %H:%M}" if token.last_used_at else "never used"
        click.echo(f"{token.id}\t{state}\t{token.created_at:%Y-%m-%d}\t{used}\t{token.name}")


@scim_token_cli.command("revoke")
@click.argument("token_id", type=int)
def scim_token_revoke(token_id: int) -> None:
    """Revoke a SCIM token by id; it stops working at once."""
    session = db_session()
    token = get_for_change(session, ScimToken, token_id)
    if token is None:
        raise click.ClickException(f"no SCIM token with id {token_id}")
    revoke_scim_token(session, token, utcnow())
    session.commit()
    click.echo(f"SCIM token {token_id} revoked")
