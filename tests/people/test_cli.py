"""`tracker user ...`, `tracker token ...` and `tracker team ...` through the CLI runner.

The commands commit on the app's session; under the `db` fixture that session
is bound to the test's connection in savepoint mode, so each commit is kept
in the test's transaction and rolled back with it at the end.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import pytest
from sqlalchemy import select, text

from tests import factories
from tests.factories import PASSWORD
from tests.helpers import count, fresh
from tracker.api.tokens import caller_for_token
from tracker.people.models import ApiToken, Engineer, LevelChange, Team
from tracker.people.services.accounts import authenticate
from tracker.people.services.reads import find_engineer
from tracker.people.services.teams import find_team

NOW = dt.datetime(2026, 11, 29, 12, 0)
NEW_PASSWORD = "a much longer secret"


def owner(db, secret: str) -> int | None:
    """Return the id of whom the API takes a token's caller to be (None: refused)."""
    caller = caller_for_token(db, secret, NOW, NOW.date())
    return caller.id if caller is not None else None


# --- the fixtures roll CLI commits back ---------------------------------------


@pytest.fixture
def nothing_kept(app) -> Iterator[list[str]]:
    """Yield a list of emails; after the db fixture's teardown none may be in the database.

    Requested before `runner`, so it is set up before `db` and torn down after it.
    """
    emails: list[str] = []
    yield emails
    engine = app.extensions["tracker.engine"]
    with engine.connect() as conn:
        for email in emails:
            found = conn.execute(
                text("SELECT count(*) FROM engineers WHERE email = :e"), {"e": email}
            ).scalar()
            assert found == 0, f"{email} outlived the test's rollback"


def test_cli_commits_are_visible_in_the_test_and_rolled_back_after(nothing_kept, runner, db):
    email = "rollback-probe@example.com"
    nothing_kept.append(email)
    result = runner.invoke(args=["user", "add", email, "--name", "Probe", "--password", PASSWORD])
    assert result.exit_code == 0, result.output
    assert find_engineer(db, email) is not None
    # A second command in the same test sees the first one's commit.
    result = runner.invoke(args=["token", "create", email])
    assert result.exit_code == 0, result.output
    assert count(db, ApiToken) >= 1


# --- user add -----------------------------------------------------------------


def test_user_add_with_every_option(runner, db):
    boss = factories.engineer(db, email="boss-cli@example.com", access_role="manager")
    factories.team(db, 256, name="Blue Fleet")
    result = runner.invoke(
        args=[
            "user",
            "add",
            "New.Person@Example.com",
            "--name",
            "New Person",
            "--role",
            "manager",
            "--job",
            "operations",
            "--job",
            "network",
            "--level",
            "3",
            "--team",
            "blue fleet",
            "--manager",
            "boss-cli@example.com",
            "--hired",
            "2024-01-31",
            "--experience-months",
            "6",
            "--password",
            NEW_PASSWORD,
        ]
    )
    assert result.exit_code == 0, result.output
    assert "added new.person@example.com" in result.output
    who = find_engineer(db, "new.person@example.com")
    assert who is not None
    assert who.name == "New Person"
    assert who.access_role == "manager"
    assert who.level == 3
    assert who.team.name == "Blue Fleet"
    assert who.manager_id == boss.id
    assert who.hired_on == dt.date(2024, 1, 31)
    assert who.experience_months == 6
    assert who.job_role_codes == {"operations", "network"}
    assert {a.started_on for a in who.role_assignments} == {dt.date(2024, 1, 31)}
    assert who.active and who.session_epoch == 0
    assert NEW_PASSWORD not in who.password_hash
    assert authenticate(db, "new.person@example.com", NEW_PASSWORD) is who


def test_user_add_defaults(runner, db):
    result = runner.invoke(
        args=["user", "add", "plain@example.com", "--name", "Plain", "--password", PASSWORD]
    )
    assert result.exit_code == 0, result.output
    who = find_engineer(db, "plain@example.com")
    assert (who.access_role, who.level, who.team, who.manager, who.hired_on) == (
        "engineer",
        1,
        None,
        None,
        None,
    )
    assert who.experience_months == 0
    assert who.job_roles == []


def test_user_add_records_the_first_level_in_the_level_history(runner, db):
    result = runner.invoke(
        args=[
            *("user", "add", "levelled@example.com", "--name", "Levelled"),
            *("--level", "3", "--password", PASSWORD),
        ]
    )
    assert result.exit_code == 0, result.output
    who = find_engineer(db, "levelled@example.com")
    first = db.scalars(select(LevelChange).where(LevelChange.engineer_id == who.id)).one()
    assert (first.from_level, first.to_level, first.changed_by_id) == (None, 3, None)


def test_user_add_prompts_for_the_password(runner, db):
    result = runner.invoke(
        args=["user", "add", "prompted@example.com", "--name", "Prompted"],
        input=f"{NEW_PASSWORD}\n{NEW_PASSWORD}\n",
    )
    assert result.exit_code == 0, result.output
    assert NEW_PASSWORD not in result.output
    assert authenticate(db, "prompted@example.com", NEW_PASSWORD) is not None


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        pytest.param(["--job", "juggler"], ["job_roles", "juggler"], id="unknown-job-role"),
        pytest.param(["--password", "short"], ["password", "10"], id="short-password"),
        pytest.param(["--team", "No Such Team"], ["team", "No Such Team"], id="unknown-team"),
        pytest.param(
            ["--manager", "ghost@example.com"], ["ghost@example.com"], id="unknown-manager"
        ),
        pytest.param(["--level", "9"], ["level"], id="level-out-of-range"),
        pytest.param(["--experience-months", "-3"], ["experience"], id="negative-experience"),
        pytest.param(["--hired", "2999-01-01"], ["hire"], id="hired-in-the-future"),
        pytest.param(["--name", " "], ["name"], id="blank-name"),
    ],
)
def test_user_add_refuses_bad_input_and_creates_nothing(runner, db, extra, words):
    before = count(db, Engineer)
    args = ["user", "add", "refused@example.com", "--name", "Refused", "--password", PASSWORD]
    result = runner.invoke(args=args + extra)
    assert result.exit_code != 0
    for word in words:
        assert word in result.output
    assert "Traceback" not in result.output
    assert count(db, Engineer) == before
    assert find_engineer(db, "refused@example.com") is None


@pytest.mark.parametrize("email", ["not-an-email", "a@b", "two@@example.com", ""])
def test_user_add_refuses_a_bad_email(runner, db, email):
    before = count(db, Engineer)
    result = runner.invoke(args=["user", "add", email, "--name", "X", "--password", PASSWORD])
    assert result.exit_code != 0
    assert "email" in result.output
    assert count(db, Engineer) == before


@pytest.mark.parametrize("role", ["root", "ADMINISTRATOR", ""])
def test_user_add_refuses_an_unknown_access_role(runner, db, role):
    before = count(db, Engineer)
    result = runner.invoke(
        args=["user", "add", "r@example.com", "--name", "R", "--role", role, "--password", PASSWORD]
    )
    assert result.exit_code != 0
    assert "--role" in result.output
    assert count(db, Engineer) == before


def test_user_add_refuses_a_duplicate_email_in_any_case(runner, db):
    factories.engineer(db, email="taken@example.com", name="First")
    before = count(db, Engineer)
    for email in ("taken@example.com", "TAKEN@Example.COM"):
        result = runner.invoke(
            args=["user", "add", email, "--name", "Second", "--password", PASSWORD]
        )
        assert result.exit_code != 0
        assert "email" in result.output and "already exists" in result.output
    assert count(db, Engineer) == before
    assert find_engineer(db, "taken@example.com").name == "First"


def test_user_add_reports_every_bad_field_at_once(runner, db):
    result = runner.invoke(
        args=[
            "user",
            "add",
            "bad-email",
            "--name",
            "X",
            "--job",
            "juggler",
            "--password",
            "short",
        ]
    )
    assert result.exit_code != 0
    for field in ("email", "job_roles", "password"):
        assert f"{field}:" in result.output


# --- user set-password ----------------------------------------------------------


def test_user_set_password_changes_it_and_ends_sessions(runner, db):
    who = factories.engineer(db)
    epoch = who.session_epoch
    result = runner.invoke(args=["user", "set-password", who.email, "--password", NEW_PASSWORD])
    assert result.exit_code == 0, result.output
    assert NEW_PASSWORD not in result.output
    fresh(db, who)
    assert who.session_epoch == epoch + 1
    assert authenticate(db, who.email, NEW_PASSWORD) is who
    assert authenticate(db, who.email, PASSWORD) is None


def test_user_set_password_prompts_twice(runner, db):
    who = factories.engineer(db)
    result = runner.invoke(
        args=["user", "set-password", who.email],
        input=f"{NEW_PASSWORD}\n{NEW_PASSWORD}\n",
    )
    assert result.exit_code == 0, result.output
    assert authenticate(db, fresh(db, who).email, NEW_PASSWORD) is who


def test_user_set_password_refuses_a_short_password(runner, db):
    who = factories.engineer(db)
    old_hash, epoch = who.password_hash, who.session_epoch
    result = runner.invoke(args=["user", "set-password", who.email, "--password", "short"])
    assert result.exit_code != 0
    assert "password" in result.output
    fresh(db, who)
    assert (who.password_hash, who.session_epoch) == (old_hash, epoch)


def test_user_set_password_for_an_unknown_email(runner, db):
    result = runner.invoke(
        args=["user", "set-password", "ghost@example.com", "--password", NEW_PASSWORD]
    )
    assert result.exit_code != 0
    assert "ghost@example.com" in result.output


# --- tokens -----------------------------------------------------------------------


def test_token_create_prints_the_token_last_and_it_authenticates(runner, db):
    who = factories.engineer(db)
    result = runner.invoke(args=["token", "create", who.email, "--name", "hr sync"])
    assert result.exit_code == 0, result.output
    secret = result.output.strip().splitlines()[-1]
    assert secret.startswith("trk_") and " " not in secret
    assert owner(db, secret) == who.id
    token = db.scalars(select(ApiToken).where(ApiToken.engineer_id == who.id)).one()
    assert token.name == "hr sync"
    assert secret not in token.token_hash
    assert f"token {token.id} " in result.output


def test_token_create_for_an_unknown_email_creates_nothing(runner, db):
    before = count(db, ApiToken)
    result = runner.invoke(args=["token", "create", "ghost@example.com"])
    assert result.exit_code != 0
    assert "ghost@example.com" in result.output
    assert count(db, ApiToken) == before


def test_a_token_name_too_long_is_refused_not_cut(runner, db):
    who = factories.engineer(db)
    before = count(db, ApiToken)
    result = runner.invoke(args=["token", "create", who.email, "--name", "n" * 121])
    assert result.exit_code != 0
    assert "name must be at most 120 characters" in result.output
    assert count(db, ApiToken) == before
    kept = runner.invoke(args=["token", "create", who.email, "--name", "n" * 120])
    assert kept.exit_code == 0, kept.output


def test_token_list_and_revoke(runner, db):
    who = factories.engineer(db)
    first = runner.invoke(args=["token", "create", who.email, "--name", "one"])
    second = runner.invoke(args=["token", "create", who.email, "--name", "two"])
    secret_one = first.output.strip().splitlines()[-1]
    secret_two = second.output.strip().splitlines()[-1]
    one = db.scalars(select(ApiToken).where(ApiToken.name == "one")).one()

    listing = runner.invoke(args=["token", "list", who.email])
    assert listing.exit_code == 0, listing.output
    assert listing.output.count("active") == 2
    assert secret_one not in listing.output and secret_two not in listing.output

    result = runner.invoke(args=["token", "revoke", str(one.id)])
    assert result.exit_code == 0, result.output
    assert f"token {one.id} revoked" in result.output
    fresh(db, one)
    assert one.revoked_at is not None
    assert owner(db, secret_one) is None
    assert owner(db, secret_two) == who.id

    listing = runner.invoke(args=["token", "list", who.email])
    lines = dict(line.split("\t", 1) for line in listing.output.strip().splitlines())
    assert lines[str(one.id)].startswith("revoked")


def test_token_create_with_a_read_scope_and_an_expiry(runner, db, pinned_today):
    who = factories.engineer(db)
    args = ["token", "create", who.email, "--scope", "read", "--expires", "2026-12-31"]
    result = runner.invoke(args=args)
    assert result.exit_code == 0, result.output
    secret = result.output.strip().splitlines()[-1]
    assert secret.startswith("trk_")
    token = db.scalars(select(ApiToken).where(ApiToken.engineer_id == who.id)).one()
    assert (token.scope, token.expires_on) == ("read", dt.date(2026, 12, 31))
    assert "read, expires 2026-12-31" in result.output
    assert owner(db, secret) == who.id


def test_token_create_defaults_to_write_and_no_expiry(runner, db, pinned_today):
    who = factories.engineer(db)
    result = runner.invoke(args=["token", "create", who.email])
    assert result.exit_code == 0, result.output
    token = db.scalars(select(ApiToken).where(ApiToken.engineer_id == who.id)).one()
    assert (token.scope, token.expires_on) == ("write", None)
    assert "write, never expires" in result.output


def test_a_token_may_expire_today(runner, db, pinned_today):
    who = factories.engineer(db)
    result = runner.invoke(args=["token", "create", who.email, "--expires", str(pinned_today)])
    assert result.exit_code == 0, result.output
    assert owner(db, result.output.strip().splitlines()[-1]) == who.id


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--scope", "admin", "Invalid value for '--scope': 'admin' is not one of 'read', 'write'"),
        ("--scope", "", "Invalid value for '--scope'"),
        ("--expires", "2026-13-01", "Invalid value for '--expires'"),
        ("--expires", "tomorrow", "does not match the format '%Y-%m-%d'"),
        (
            "--expires",
            "2026-11-28",
            "--expires: the expiry date must not be before today (2026-11-29)",
        ),
        (
            "--expires",
            "9999-12-31",
            "--expires: the expiry date must be at most 365 days after today (2027-11-29)",
        ),
    ],
)
def test_token_create_refuses_a_bad_scope_or_date(runner, db, pinned_today, option, value, message):
    who = factories.engineer(db)
    result = runner.invoke(args=["token", "create", who.email, option, value])
    assert result.exit_code != 0
    assert message in result.output
    assert db.scalars(select(ApiToken).where(ApiToken.engineer_id == who.id)).first() is None


def test_token_list_shows_scope_and_expiry(runner, db, pinned_today):
    who = factories.engineer(db)
    for args in (
        ["--name", "reader", "--scope", "read", "--expires", "2026-12-31"],
        ["--name", "writer"],
        ["--name", "lapsed", "--expires", str(pinned_today)],
    ):
        assert runner.invoke(args=["token", "create", who.email, *args]).exit_code == 0
    lapsed = db.scalars(select(ApiToken).where(ApiToken.name == "lapsed")).one()
    lapsed.expires_on = pinned_today - dt.timedelta(days=1)
    db.flush()
    listing = runner.invoke(args=["token", "list", who.email])
    assert listing.exit_code == 0, listing.output
    rows = {
        name: (state, scope, expiry)
        for _, state, scope, expiry, name in (
            line.split("\t") for line in listing.output.strip().splitlines()
        )
    }
    assert rows == {
        "reader": ("active", "read", "expires 2026-12-31"),
        "writer": ("active", "write", "never expires"),
        "lapsed": ("expired", "write", "expires 2026-11-28"),
    }


def test_token_revoke_an_unknown_id(runner, db):
    result = runner.invoke(args=["token", "revoke", "999999"])
    assert result.exit_code != 0
    assert "999999" in result.output


# --- team add ------------------------------------------------------------------------


def test_team_add_with_a_manager(runner, db):
    boss = factories.engineer(db, email="fleet-boss@example.com", access_role="manager")
    result = runner.invoke(
        args=["team", "add", "Green Fleet", "--gpus", "512", "--manager", "fleet-boss@example.com"]
    )
    assert result.exit_code == 0, result.output
    assert "added team Green Fleet" in result.output
    team = find_team(db, "green fleet")
    assert (team.name, team.gpus, team.manager_id) == ("Green Fleet", 512, boss.id)


def test_team_add_without_a_manager_and_zero_gpus(runner, db):
    result = runner.invoke(args=["team", "add", "Idle Fleet", "--gpus", "0"])
    assert result.exit_code == 0, result.output
    team = find_team(db, "Idle Fleet")
    assert (team.gpus, team.manager) == (0, None)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        pytest.param(["Neg Fleet", "--gpus", "-1"], ["gpus"], id="negative-gpus"),
        pytest.param(["Taken Fleet", "--gpus", "8"], ["name", "already exists"], id="duplicate"),
        pytest.param(["TAKEN fleet", "--gpus", "8"], ["name", "already exists"], id="dup-case"),
        pytest.param(["Some Fleet", "--gpus", "many"], ["--gpus"], id="gpus-not-a-number"),
        pytest.param(["No Gpus Fleet"], ["--gpus"], id="gpus-missing"),
        pytest.param(["  ", "--gpus", "8"], ["name"], id="blank-name"),
        pytest.param(
            ["Lost Fleet", "--gpus", "8", "--manager", "ghost@example.com"],
            ["ghost@example.com"],
            id="unknown-manager",
        ),
    ],
)
def test_team_add_refuses_bad_input_and_creates_nothing(runner, db, args, words):
    factories.team(db, 16, name="Taken Fleet")
    before = count(db, Team)
    result = runner.invoke(args=["team", "add", *args])
    assert result.exit_code != 0
    for word in words:
        assert word in result.output
    assert count(db, Team) == before
