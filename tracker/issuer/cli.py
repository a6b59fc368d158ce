"""`tracker issuer init-key|did|revoke`: the Open Badges issuer's key and credentials."""

from __future__ import annotations

import click
from flask import current_app
from flask.cli import AppGroup

from tracker.badges.services import proofs
from tracker.clock import utcnow
from tracker.db import get_for_change
from tracker.extensions import db_session, secret_key
from tracker.issuer.models import IssuedCredential
from tracker.issuer.services import keys
from tracker.issuer.services.credentials import revoke

issuer_cli = AppGroup("issuer", help="The Open Badges 3.0 issuer: its signing key and credentials.")


@issuer_cli.command("init-key")
@click.option("--rotate", is_flag=True, help="Make a new signing key even if one exists.")
def init_key(rotate: bool) -> None:
    """Make the signing key (the older ones stay published); print the DID and the key's id."""
    session = db_session()
    secret = secret_key()
    did = proofs.did_web(str(current_app.config["BASE_URL"]).rstrip("/"))
    row = (
        keys.create_key(session, secret, utcnow())
        if rotate
        else keys.signing_key(session, secret, utcnow())
    )
    session.commit()
    click.echo(f"issuer {did}")
    click.echo(f"signing key {keys.method_id(did, row)} {row.public_key}")


@issuer_cli.command("revoke")
@click.argument("issued_id", type=int)
def revoke_command(issued_id: int) -> None:
    """Revoke an issued credential: its status-list bit is set."""
    session = db_session()
    row = get_for_change(session, IssuedCredential, issued_id)
    if row is None:
        raise click.ClickException(f"no issued credential with id {issued_id}")
    revoke(session, row, None, utcnow())
    session.commit()
    click.echo(f"credential {row.credential_uri} revoked")
