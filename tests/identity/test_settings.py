"""The single sign-on settings: read from TRACKER_* variables, refused at start when wrong."""

from __future__ import annotations

import pytest

from tracker import create_app
from tracker.config import Config
from tracker.identity.services.settings import oidc_settings, parse_role_map
from tracker.people.models import Engineer
from tracker.people.services.accounts import password_allowed

ISSUER = "https://login.example.com/realms/gpu"


def settings(**config: object):
    return oidc_settings(
        {"OIDC_ISSUER": ISSUER, "OIDC_CLIENT_ID": "tracker", "OIDC_SCOPES": "openid", **config}
    )


def test_the_variables_fill_the_configuration(monkeypatch):
    monkeypatch.setenv("TRACKER_OIDC_ISSUER", ISSUER)
    monkeypatch.setenv("TRACKER_OIDC_CLIENT_ID", "tracker")
    monkeypatch.setenv("TRACKER_OIDC_CLIENT_SECRET", "s3cret")
    monkeypatch.setenv("TRACKER_OIDC_ROLE_CLAIM", "groups")
    monkeypatch.setenv("TRACKER_OIDC_ROLE_MAP", "gpu-admins=admin, gpu-managers = manager")
    monkeypatch.setenv("TRACKER_OIDC_CREATE_USERS", "on")
    monkeypatch.setenv("TRACKER_OIDC_TRUST_EMAIL", "yes")
    monkeypatch.setenv("TRACKER_OIDC_PROVIDER_NAME", "Keycloak")
    monkeypatch.setenv("TRACKER_LOCAL_LOGIN", "off")
    monkeypatch.setenv("TRACKER_BREAK_GLASS_ADMINS", "Root@Example.com, ops@example.com")
    monkeypatch.setenv("TRACKER_BASE_URL", "https://tracker.example.com")
    config = Config(SECRET_KEY="x").as_dict()
    assert config["LOCAL_LOGIN"] is False
    assert config["BREAK_GLASS_ADMINS"] == {"root@example.com", "ops@example.com"}
    read = oidc_settings(config)
    assert read is not None
    assert (read.issuer, read.client_id, read.client_secret) == (ISSUER, "tracker", "s3cret")
    assert read.scopes == ("openid", "email", "profile")
    assert read.role_map == {"gpu-admins": "admin", "gpu-managers": "manager"}
    assert read.create_users is True and read.trust_email is True
    assert read.display_name == "Keycloak"
    assert read.redirect_uri == "https://tracker.example.com/login/oidc/callback"
    assert read.post_logout_redirect_uri == "https://tracker.example.com/login"
    assert read.discovery_url == f"{ISSUER}/.well-known/openid-configuration"
    assert read.origin == "https://login.example.com"


def test_no_issuer_means_no_single_sign_on_and_no_routes():
    assert oidc_settings(Config(SECRET_KEY="x").as_dict()) is None
    app = create_app({"DATABASE_URL": "sqlite://", "SECRET_KEY": "x"})
    app.extensions["tracker.engine"].dispose()
    assert "identity.login" not in app.view_functions


def test_the_provider_is_named_by_its_host_when_no_name_is_set():
    assert settings().display_name == "login.example.com"


@pytest.mark.parametrize(
    ("config", "problem"),
    [
        ({"OIDC_ISSUER": "http://login.example.com"}, "https:// URL"),
        ({"OIDC_ISSUER": "login.example.com"}, "https:// URL"),
        ({"OIDC_ISSUER": f"{ISSUER}?x=1"}, "https:// URL"),
        ({"OIDC_ISSUER": "https://example.com/" + "x" * 300}, "at most 255"),
        ({"OIDC_CLIENT_ID": ""}, "TRACKER_OIDC_CLIENT_ID"),
        ({"OIDC_SCOPES": "email profile"}, "must include openid"),
        ({"OIDC_ROLE_MAP": "gpu-admins=admin"}, "needs TRACKER_OIDC_ROLE_CLAIM"),
        ({"OIDC_ROLE_CLAIM": "groups", "OIDC_ROLE_MAP": "gpu-admins=root"}, "must be one of"),
        ({"OIDC_ROLE_CLAIM": "groups", "OIDC_ROLE_MAP": "gpu-admins"}, "is not group=role"),
        ({"OIDC_ISSUER": "", "LOCAL_LOGIN": False}, "TRACKER_LOCAL_LOGIN=off needs"),
    ],
)
def test_a_wrong_setting_stops_the_start_with_a_message(config, problem):
    with pytest.raises(ValueError, match=problem):
        settings(**config)


def test_a_wrong_setting_stops_the_app_factory():
    with pytest.raises(ValueError, match="TRACKER_LOCAL_LOGIN=off needs"):
        create_app({"DATABASE_URL": "sqlite://", "SECRET_KEY": "x", "LOCAL_LOGIN": False})


def test_plain_http_is_allowed_to_this_machine_only():
    assert settings(OIDC_ISSUER="http://127.0.0.1:8080").issuer == "http://127.0.0.1:8080"
    assert settings(OIDC_ISSUER="http://localhost:8080/realms/x").origin == "http://localhost:8080"


def test_a_group_name_may_hold_equals_signs():
    assert parse_role_map("cn=ops=admin, ,cn=eng=engineer") == {
        "cn=ops": "admin",
        "cn=eng": "engineer",
    }


def test_semicolons_separate_pairs_whose_group_names_hold_commas():
    """LDAP distinguished names as groups: commas are theirs, semicolons separate pairs."""
    text = "cn=gpu-admins,ou=groups,dc=example=admin; cn=gpu-leads,ou=groups,dc=example=manager;"
    assert parse_role_map(text) == {
        "cn=gpu-admins,ou=groups,dc=example": "admin",
        "cn=gpu-leads,ou=groups,dc=example": "manager",
    }
    with pytest.raises(ValueError, match="must be one of"):
        parse_role_map("cn=a,dc=x=admin;cn=b,dc=x=boss")


@pytest.mark.parametrize("word", ["maybe", "2", "enabled"])
def test_an_on_off_variable_holding_another_word_stops_the_start(monkeypatch, word):
    monkeypatch.setenv("TRACKER_LOCAL_LOGIN", word)
    with pytest.raises(ValueError, match="TRACKER_LOCAL_LOGIN must be on or off"):
        Config(SECRET_KEY="x")


def test_passwords_are_allowed_to_all_with_local_sign_in_on_and_to_listed_admins_without():
    admin = Engineer(email="root@example.com", access_role="admin")
    engineer = Engineer(email="root@example.com", access_role="engineer")
    assert password_allowed("anyone@example.com", local_login=True, break_glass=frozenset())
    listed = frozenset({"root@example.com"})
    assert not password_allowed("anyone@example.com", local_login=False, break_glass=listed)
    assert password_allowed(" ROOT@example.com", local_login=False, break_glass=listed)
    assert password_allowed(
        "root@example.com", local_login=False, break_glass=listed, engineer=admin
    )
    assert not password_allowed(
        "root@example.com", local_login=False, break_glass=listed, engineer=engineer
    )
