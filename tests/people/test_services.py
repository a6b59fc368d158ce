"""People rules: passwords, permissions, API tokens (as the API looks them up)."""

from __future__ import annotations

import datetime as dt
import hashlib

import pytest
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from werkzeug.security import generate_password_hash

from tests import factories
from tests.factories import PASSWORD
from tests.helpers import fresh
from tracker.api.tokens import caller_for_token
from tracker.errors import ValidationError
from tracker.people.models import ApiToken, Engineer
from tracker.people.rules import (
    JOB_ROLES_COUNT_RULE,
    MAX_JOB_ROLES,
    MAX_TOKEN_LIFETIME_DAYS,
    ONE_LINE_RULE,
)
from tracker.people.services import accounts
from tracker.people.services.access import can_view, manages, visible_engineers
from tracker.people.services.accounts import (
    authenticate,
    create_token,
    expired,
    revoke_token,
    set_password,
    verify_password,
)
from tracker.people.services.persons import (
    create_person,
    set_active,
    set_identity,
    set_job_roles,
    update_engineer,
)
from tracker.people.services.reads import find_engineer
from tracker.people.services.teams import create_team

NOW = dt.datetime(2026, 11, 29, 9, 30)


# --- passwords --------------------------------------------------------------


def test_password_is_stored_as_a_salted_hash_with_a_method_prefix(db):
    a = factories.engineer(db)
    b = factories.engineer(db)
    method = accounts.PASSWORD_METHOD.split(":")[0]
    for who in (a, b):
        assert who.password_hash
        assert PASSWORD not in who.password_hash
        assert who.password_hash.startswith(f"{method}:")
    assert a.password_hash != b.password_hash, "the same password must hash differently (salt)"


def test_production_method_is_a_memory_hard_kdf(db, monkeypatch):
    # The suite swaps in cheap hashing; the real method must be scrypt.
    from tracker.people.services.accounts import _DUMMY_HASH

    assert _DUMMY_HASH.startswith("scrypt:")
    monkeypatch.setattr(accounts, "PASSWORD_METHOD", "scrypt")
    who = factories.engineer(db)
    assert who.password_hash.startswith("scrypt:")
    assert verify_password(who, PASSWORD)


def test_authenticate_accepts_the_right_password_case_insensitive_email(db):
    who = factories.engineer(db, email="Casey.Mixed@Example.com")
    assert who.email == "casey.mixed@example.com"
    assert authenticate(db, "casey.mixed@example.com", PASSWORD) is who
    assert authenticate(db, "  CASEY.MIXED@EXAMPLE.COM ", PASSWORD) is who


@pytest.mark.parametrize("password", ["wrong password!", "", PASSWORD.upper(), PASSWORD + " "])
def test_authenticate_refuses_a_wrong_password(db, password):
    who = factories.engineer(db)
    assert authenticate(db, who.email, password) is None


def test_authenticate_refuses_an_unknown_email(db):
    assert authenticate(db, "nobody-here@example.com", PASSWORD) is None


def test_authenticate_refuses_a_deactivated_account(db):
    who = factories.engineer(db)
    set_active(db, who, False)
    assert authenticate(db, who.email, PASSWORD) is None
    set_active(db, who, True)
    assert authenticate(db, who.email, PASSWORD) is who


def test_authenticate_refuses_an_account_without_password(db):
    who = factories.engineer(db, password=None)
    assert who.password_hash is None
    assert authenticate(db, who.email, "") is None
    assert authenticate(db, who.email, PASSWORD) is None
    assert verify_password(None, PASSWORD) is False


def test_set_password_changes_it_and_bumps_the_session_epoch(db):
    who = factories.engineer(db)
    epoch = who.session_epoch
    set_password(db, who, "a brand new secret")
    assert who.session_epoch == epoch + 1
    assert authenticate(db, who.email, "a brand new secret") is who
    assert authenticate(db, who.email, PASSWORD) is None


def test_set_password_refuses_a_short_password_and_keeps_the_old_one(db):
    who = factories.engineer(db)
    old_hash, epoch = who.password_hash, who.session_epoch
    with pytest.raises(ValidationError) as caught:
        set_password(db, who, "short")
    assert "password" in caught.value.errors
    assert who.password_hash == old_hash
    assert who.session_epoch == epoch


def test_set_active_bumps_the_epoch_only_on_a_change(db):
    who = factories.engineer(db)
    epoch = who.session_epoch
    set_active(db, who, True)
    assert who.session_epoch == epoch
    set_active(db, who, False)
    assert (who.active, who.session_epoch) == (False, epoch + 1)
    set_active(db, who, False)
    assert who.session_epoch == epoch + 1
    set_active(db, who, True)
    assert (who.active, who.session_epoch) == (True, epoch + 2)


# --- permissions ------------------------------------------------------------


@pytest.fixture
def org(db):
    """A small organisation.

    boss (manager) manages team "red" (alice, bob) and has carol as a direct report;
    dave is in team "blue" (managed by other); admin; idle is a deactivated manager of erin.
    """
    people: dict[str, Engineer] = {}
    people["boss"] = factories.engineer(db, name="Boss", access_role="manager")
    people["other"] = factories.engineer(db, name="Other", access_role="manager")
    people["admin"] = factories.engineer(db, name="Admin", access_role="admin")
    red = factories.team(db, 64, manager=people["boss"])
    blue = factories.team(db, 128, manager=people["other"])
    people["alice"] = factories.engineer(db, name="Alice", team=red)
    people["bob"] = factories.engineer(db, name="Bob", team=red)
    people["carol"] = factories.engineer(db, name="Carol", manager=people["boss"])
    people["dave"] = factories.engineer(db, name="Dave", team=blue)
    people["idle"] = factories.engineer(db, name="Idle", access_role="manager")
    people["erin"] = factories.engineer(db, name="Erin", manager=people["idle"])
    # An engineer-role person named as someone's manager reads nothing of theirs.
    people["frank"] = factories.engineer(db, name="Frank")
    # The services refuse to name one (manager_id is not checked in the database): set it.
    people["gina"] = factories.engineer(db, name="Gina")
    people["gina"].manager = people["frank"]
    db.flush()
    set_active(db, people["idle"], False)
    return people


@pytest.mark.parametrize(
    ("actor", "target", "view", "manage"),
    [
        pytest.param("alice", "alice", True, False, id="engineer-self"),
        pytest.param("alice", "bob", False, False, id="engineer-teammate"),
        pytest.param("alice", "boss", False, False, id="engineer-own-manager"),
        pytest.param("boss", "boss", True, False, id="manager-self"),
        pytest.param("boss", "carol", True, True, id="manager-direct-report"),
        pytest.param("boss", "alice", True, True, id="manager-member-of-managed-team"),
        pytest.param("boss", "dave", False, False, id="manager-member-of-another-team"),
        pytest.param("boss", "other", False, False, id="manager-another-manager"),
        pytest.param("boss", "admin", False, False, id="manager-admin"),
        pytest.param("other", "dave", True, True, id="other-manager-own-team"),
        pytest.param("other", "alice", False, False, id="other-manager-foreign-team"),
        pytest.param("admin", "dave", True, False, id="admin-anyone"),
        pytest.param("admin", "boss", True, False, id="admin-manager"),
        pytest.param("admin", "admin", True, False, id="admin-self"),
        pytest.param("idle", "erin", False, True, id="deactivated-manager-direct-report"),
        pytest.param("idle", "idle", False, False, id="deactivated-self"),
        pytest.param("frank", "gina", False, True, id="engineer-role-named-as-manager"),
    ],
)
def test_can_view_and_manages(org, actor, target, view, manage):
    assert can_view(org[actor], org[target]) is view
    assert manages(org[actor], org[target]) is manage


def test_a_deactivated_admin_views_nobody(db, org):
    factories.engineer(db, name="Second admin", access_role="admin")
    set_active(db, org["admin"], False)
    assert not any(can_view(org["admin"], person) for person in org.values())


def test_visible_engineers_by_role(db, org):
    names = [e.name for e in visible_engineers(db, org["boss"])]
    assert names == ["Alice", "Bob", "Boss", "Carol"]
    assert [e.name for e in visible_engineers(db, org["other"])] == ["Dave", "Other"]
    assert visible_engineers(db, org["alice"]) == [org["alice"]]
    # An engineer-role "manager" still sees only themself.
    assert visible_engineers(db, org["frank"]) == [org["frank"]]
    everyone = db.scalars(select(Engineer).order_by(Engineer.name)).all()
    assert visible_engineers(db, org["admin"]) == everyone


@pytest.mark.parametrize("actor", ["alice", "boss", "other", "admin", "frank"])
def test_visible_engineers_agrees_with_can_view(db, org, actor):
    visible = set(visible_engineers(db, org[actor]))
    for person in db.scalars(select(Engineer)):
        assert (person in visible) is can_view(org[actor], person), person.name


def test_visible_engineers_of_a_deactivated_actor_is_empty(db, org):
    assert visible_engineers(db, org["idle"]) == []


# --- API tokens --------------------------------------------------------------


def test_token_is_stored_as_its_sha256_hash_only(db):
    who = factories.engineer(db)
    token, secret = create_token(db, who, "  ci script  ")
    assert secret.startswith("trk_") and len(secret) > 40
    assert token.name == "ci script"
    assert token.token_hash == hashlib.sha256(secret.encode()).hexdigest()
    row = db.execute(select(ApiToken.__table__).where(ApiToken.id == token.id)).one()
    assert all(secret not in str(value) for value in row)
    assert (token.last_used_at, token.revoked_at) == (None, None)


def test_tokens_are_unique(db):
    who = factories.engineer(db)
    secrets = {create_token(db, who)[1] for _ in range(5)}
    assert len(secrets) == 5


def owner(db, secret: str, now: dt.datetime) -> int | None:
    """Return the id of whom the API takes a token's caller to be (None: refused)."""
    caller = caller_for_token(db, secret, now, now.date())
    return caller.id if caller is not None else None


def last_use(db, token) -> dt.datetime | None:
    db.refresh(token)  # caller_for_token records the use with a Core statement
    return token.last_used_at


def test_caller_for_token_returns_the_owner_and_records_the_use(db):
    who = factories.engineer(db)
    token, secret = create_token(db, who)
    assert owner(db, secret, NOW) == who.id
    assert last_use(db, token) == NOW
    later = NOW + dt.timedelta(hours=1)
    assert owner(db, secret, later) == who.id
    assert last_use(db, token) == later


def test_caller_for_token_records_the_use_to_the_minute(db):
    who = factories.engineer(db)
    token, secret = create_token(db, who)
    assert owner(db, secret, NOW) == who.id
    assert owner(db, secret, NOW + dt.timedelta(seconds=30)) == who.id
    assert last_use(db, token) == NOW


@pytest.mark.parametrize("secret", ["", "trk_", "trk_not-a-real-token", "Bearer x", "' OR 1=1 --"])
def test_caller_for_token_refuses_an_unknown_token(db, secret):
    who = factories.engineer(db)
    create_token(db, who)
    assert owner(db, secret, NOW) is None


def test_caller_for_token_refuses_the_hash_itself(db):
    who = factories.engineer(db)
    token, _ = create_token(db, who)
    assert owner(db, token.token_hash, NOW) is None


def test_a_revoked_token_stops_working_and_leaves_others_alone(db):
    who = factories.engineer(db)
    token, secret = create_token(db, who)
    _, other_secret = create_token(db, who)
    assert owner(db, secret, NOW) == who.id
    revoke_token(db, token, NOW)
    assert token.revoked_at == NOW
    assert owner(db, secret, NOW + dt.timedelta(hours=1)) is None
    assert last_use(db, token) == NOW  # not touched by the refused use
    assert owner(db, other_secret, NOW) == who.id
    # Revoking again keeps the first revocation time.
    revoke_token(db, token, NOW + dt.timedelta(days=1))
    assert token.revoked_at == NOW


def test_a_deactivated_owner_token_gives_none_and_no_use_is_recorded(db):
    who = factories.engineer(db)
    token, secret = create_token(db, who)
    set_active(db, who, False)
    assert owner(db, secret, NOW) is None
    assert last_use(db, token) is None
    set_active(db, who, True)
    assert owner(db, secret, NOW) == who.id


def test_a_token_is_write_and_never_expires_unless_told(db):
    token, _ = create_token(db, factories.engineer(db))
    assert (token.scope, token.expires_on) == ("write", None)


@pytest.mark.parametrize(
    ("kwargs", "errors"),
    [
        ({"scope": "admin"}, {"scope": "scope must be read or write"}),
        ({"scope": "READ"}, {"scope": "scope must be read or write"}),
        (
            {"expires_on": NOW.date() - dt.timedelta(days=1)},
            {"expires_on": "the expiry date must not be before today (2026-11-29)"},
        ),
        (
            {"expires_on": dt.date(2027, 11, 30)},
            {
                "expires_on": "the expiry date must be at most 365 days after today"
                " (2027-11-29); leave it out for a token that works until it is revoked"
            },
        ),
        (
            {"expires_on": dt.date(2062, 11, 29)},
            {
                "expires_on": "the expiry date must be at most 365 days after today"
                " (2027-11-29); leave it out for a token that works until it is revoked"
            },
        ),
    ],
)
def test_create_token_refuses_an_unknown_scope_or_a_past_expiry(db, kwargs, errors):
    who = factories.engineer(db)
    with pytest.raises(ValidationError) as refused:
        create_token(db, who, today=NOW.date(), **kwargs)
    assert refused.value.errors == errors
    assert db.scalars(select(ApiToken).where(ApiToken.engineer_id == who.id)).first() is None


def test_a_token_may_expire_on_the_last_day_of_its_longest_life(db):
    latest = NOW.date() + dt.timedelta(days=MAX_TOKEN_LIFETIME_DAYS)
    token, _ = create_token(db, factories.engineer(db), expires_on=latest, today=NOW.date())
    assert token.expires_on == latest == dt.date(2027, 11, 29)


def test_an_expiry_needs_today(db):
    with pytest.raises(TypeError):
        create_token(db, factories.engineer(db), expires_on=NOW.date())


def test_the_scope_is_checked_by_the_database_too(db):
    token, _ = create_token(db, factories.engineer(db))
    with pytest.raises(IntegrityError), db.begin_nested():
        db.execute(update(ApiToken).where(ApiToken.id == token.id).values(scope="admin"))


def test_a_token_works_through_its_expiry_day_and_not_after(db):
    who = factories.engineer(db)
    token, secret = create_token(db, who, expires_on=NOW.date(), today=NOW.date())
    assert not expired(token, NOW.date())
    assert caller_for_token(db, secret, NOW, NOW.date()) is not None
    later = NOW + dt.timedelta(days=1)
    assert expired(token, later.date())
    assert caller_for_token(db, secret, later, later.date()) is None
    assert last_use(db, token) == NOW  # not touched by the refused use


def test_the_caller_of_a_read_token_may_not_write(db):
    who = factories.engineer(db)
    _, secret = create_token(db, who, scope="read")
    caller = caller_for_token(db, secret, NOW, NOW.date())
    assert caller is not None and caller.id == who.id
    assert (caller.scope, caller.may_write) == ("read", False)


def test_scrypt_hash_from_production_verifies(db):
    # A password hashed in production (scrypt) still verifies under the suite's settings.
    who = factories.engineer(db)
    who.password_hash = generate_password_hash("produced by scrypt", method="scrypt")
    db.flush()
    assert authenticate(db, who.email, "produced by scrypt") is who


# --- names ------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["Ada\nLovelace", "Ada\r\nBcc: x@example.com", "Ada\tL", "Ada\u2028L"]
)
def test_a_name_is_one_line_for_people_and_teams(db, name):
    today = dt.date(2026, 11, 29)
    with pytest.raises(ValidationError) as refused:
        create_person(db, email="ada@example.com", name=name, today=today)
    assert refused.value.errors == {"name": ONE_LINE_RULE}
    person = factories.engineer(db, name="Ada Lovelace")
    with pytest.raises(ValidationError) as refused:
        set_identity(db, person, email=person.email, name=name)
    assert refused.value.errors == {"name": ONE_LINE_RULE}
    with pytest.raises(ValidationError) as refused:
        create_team(db, name, 8)
    assert refused.value.errors == {"name": ONE_LINE_RULE}
    # Spaces around a name are trimmed, not refused.
    assert create_person(db, email="eve@example.com", name=" Eve\n", today=today).name == "Eve"


# --- job roles ------------------------------------------------------------------------


def test_a_person_names_at_most_max_job_roles_codes_each_held_once(db):
    too_many = ["operations"] * (MAX_JOB_ROLES + 1)
    with pytest.raises(ValidationError) as refused:
        create_person(
            db, email="many@example.com", name="Many", today=NOW.date(), job_roles=too_many
        )
    assert refused.value.errors == {"job_roles": "job roles must name at most 20 codes"}
    assert find_engineer(db, "many@example.com") is None
    who = create_person(
        db,
        email="twice@example.com",
        name="Twice",
        today=NOW.date(),
        job_roles=["operations", "network", "operations"],
    )
    assert sorted(a.job_role.code for a in who.role_assignments) == ["network", "operations"]


def test_changing_job_roles_and_setting_them_keep_the_same_bound(db):
    who = factories.engineer(db)
    too_many = ["network"] * (MAX_JOB_ROLES + 1)
    with pytest.raises(ValidationError) as changed:
        update_engineer(db, who, None, NOW.date(), job_roles=too_many)
    with pytest.raises(ValidationError) as set_:
        set_job_roles(db, who, too_many, NOW.date())
    assert changed.value.errors == set_.value.errors == {"job_roles": JOB_ROLES_COUNT_RULE}
    assert fresh(db, who).job_role_codes == {"operations"}
