"""`tracker scim-token create|list|revoke` through the CLI runner; tokens are stored hashed."""

from __future__ import annotations

from sqlalchemy import select

from tests.scim.conftest import Scim, error_of
from tracker.people.services.accounts import token_hash
from tracker.scim.models import ScimToken


def test_create_prints_the_token_last_and_stores_only_its_hash(runner, db, client):
    result = runner.invoke(args=["scim-token", "create", "Okta production"])
    assert result.exit_code == 0, result.output
    secret = result.output.strip().splitlines()[-1]
    assert secret.startswith("scim_") and len(secret) > 40
    token = db.scalars(select(ScimToken).where(ScimToken.name == "Okta production")).one()
    assert token.token_hash == token_hash(secret) and secret not in token.token_hash
    assert Scim(client, secret).get("/Users").status_code == 200


def test_create_without_a_name(runner):
    result = runner.invoke(args=["scim-token", "create"])
    assert result.exit_code == 0, result.output
    assert result.output.strip().splitlines()[-1].startswith("scim_")


def test_list_shows_state_use_and_name(runner, client):
    secret = runner.invoke(args=["scim-token", "create", "entra"]).output.split()[-1]
    Scim(client, secret).get("/ServiceProviderConfig")
    lines = runner.invoke(args=["scim-token", "list"]).output.strip().splitlines()
    fields = lines[-1].split("\t")
    assert fields[1] == "active" and fields[3] != "never used" and fields[4] == "entra"


def test_revoke_stops_the_token_at_once(runner, db, client):
    secret = runner.invoke(args=["scim-token", "create", "old"]).output.split()[-1]
    token = db.scalars(select(ScimToken).where(ScimToken.name == "old")).one()
    result = runner.invoke(args=["scim-token", "revoke", str(token.id)])
    assert result.exit_code == 0 and f"SCIM token {token.id} revoked" in result.output
    error_of(Scim(client, secret).get("/Users"), 401)
    listed = runner.invoke(args=["scim-token", "list"]).output
    assert f"{token.id}\trevoked" in listed


def test_revoking_an_unknown_token_fails(runner):
    result = runner.invoke(args=["scim-token", "revoke", "999999"])
    assert result.exit_code != 0 and "no SCIM token with id 999999" in result.output
