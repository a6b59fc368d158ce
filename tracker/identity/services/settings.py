"""The single sign-on settings, read once from the configuration and checked at start."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from tracker.identity.rules import MAX_ISSUER_LENGTH, OPENID_SCOPE, ROLE_RANK

LOOPBACK = ("127.0.0.1", "::1", "localhost")


@dataclass(frozen=True)
class OidcSettings:
    """Who the provider is, how the tracker is registered there, and how its answers map."""

    issuer: str
    client_id: str
    client_secret: str
    base_url: str
    scopes: tuple[str, ...] = (OPENID_SCOPE,)
    provider_name: str = ""
    role_claim: str = ""
    # Provider group (a value of the role claim) -> access role.
    role_map: Mapping[str, str] = field(default_factory=dict)
    create_users: bool = False
    # The provider's addresses count as verified even without email_verified.
    trust_email: bool = False

    @property
    def display_name(self) -> str:
        """Name the provider for people: its configured name, else its host."""
        return self.provider_name or urlsplit(self.issuer).hostname or self.issuer

    @property
    def discovery_url(self) -> str:
        return self.issuer.rstrip("/") + "/.well-known/openid-configuration"

    @property
    def redirect_uri(self) -> str:
        """Return where the provider sends people back (register it at the provider)."""
        return self.base_url.rstrip("/") + "/login/oidc/callback"

    @property
    def post_logout_redirect_uri(self) -> str:
        """Return where the provider sends people once signed out there (register it too)."""
        return self.base_url.rstrip("/") + "/login"

    @property
    def origin(self) -> str:
        """Return the provider's origin (scheme, host, port), where sign-out forms go."""
        parts = urlsplit(self.issuer)
        return f"{parts.scheme}://{parts.netloc}"


# Separates the role map's pairs instead of commas, which then belong to group names.
ROLE_MAP_SEPARATOR = ";"


def parse_role_map(text: str) -> dict[str, str]:
    """Read "group=role,group=role" (roles engineer, manager, admin); raise ValueError.

    Pairs are separated by commas, or by semicolons when the text holds one: an
    LDAP group's name holds commas (cn=gpu-admins,ou=groups,dc=example,dc=com).
    """
    mapping: dict[str, str] = {}
    for entry in text.split(ROLE_MAP_SEPARATOR if ROLE_MAP_SEPARATOR in text else ","):
        if not entry.strip():
            continue
        # A group name may hold "=" (an LDAP name); the role is after the last one.
        group, equals, role = entry.rpartition("=")
        group, role = group.strip(), role.strip().lower()
        if not equals or not group:
            raise ValueError(f"TRACKER_OIDC_ROLE_MAP: {entry.strip()!r} is not group=role")
        if role not in ROLE_RANK:
            raise ValueError(
                f"TRACKER_OIDC_ROLE_MAP: the role of {group!r} must be one of"
                f" {', '.join(ROLE_RANK)}, not {role!r}"
            )
        mapping[group] = role
    return mapping


def oidc_settings(config: Mapping[str, Any]) -> OidcSettings | None:
    """Return the single sign-on settings; None when no issuer is set. Raise ValueError."""
    issuer = str(config.get("OIDC_ISSUER") or "").strip()
    if not issuer:
        if not config.get("LOCAL_LOGIN", True):
            raise ValueError(
                "TRACKER_LOCAL_LOGIN=off needs single sign-on: set TRACKER_OIDC_ISSUER"
            )
        return None
    parts = urlsplit(issuer)
    # Plain http only to this machine (a provider under test): anywhere else it is readable.
    secure = parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in LOOPBACK)
    if not secure or not parts.hostname or parts.query or parts.fragment:
        raise ValueError(f"TRACKER_OIDC_ISSUER must be an https:// URL, not {issuer!r}")
    if len(issuer) > MAX_ISSUER_LENGTH:
        raise ValueError(f"TRACKER_OIDC_ISSUER must be at most {MAX_ISSUER_LENGTH} characters")
    client_id = str(config.get("OIDC_CLIENT_ID") or "").strip()
    if not client_id:
        raise ValueError("TRACKER_OIDC_ISSUER is set: TRACKER_OIDC_CLIENT_ID must be set too")
    scopes = tuple(dict.fromkeys(str(config.get("OIDC_SCOPES") or "").split()))
    if OPENID_SCOPE not in scopes:
        raise ValueError("TRACKER_OIDC_SCOPES must include openid")
    role_claim = str(config.get("OIDC_ROLE_CLAIM") or "").strip()
    role_map = parse_role_map(str(config.get("OIDC_ROLE_MAP") or ""))
    if role_map and not role_claim:
        raise ValueError("TRACKER_OIDC_ROLE_MAP needs TRACKER_OIDC_ROLE_CLAIM (the claim it reads)")
    return OidcSettings(
        issuer=issuer,
        client_id=client_id,
        client_secret=str(config.get("OIDC_CLIENT_SECRET") or ""),
        base_url=str(config.get("BASE_URL") or ""),
        scopes=scopes,
        provider_name=str(config.get("OIDC_PROVIDER_NAME") or "").strip(),
        role_claim=role_claim,
        role_map=role_map,
        create_users=bool(config.get("OIDC_CREATE_USERS")),
        trust_email=bool(config.get("OIDC_TRUST_EMAIL")),
    )
