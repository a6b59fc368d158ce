"""Configuration read from TRACKER_* environment variables."""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent
INSTANCE_DIR = PROJECT_ROOT / "instance"


def default_database_url() -> str:
    """Return the embedded default: a SQLite file under instance/."""
    return f"sqlite:///{INSTANCE_DIR / 'tracker.db'}"


def database_url() -> str:
    """Return the database URL the whole process uses."""
    return os.environ.get("TRACKER_DATABASE_URL") or default_database_url()


def _secret_key() -> str:
    """Return the session secret, persisted under instance/ when not given."""
    key = os.environ.get("TRACKER_SECRET_KEY")
    if key:
        return key
    # A random key per start would sign every user out on restart and break
    # multi-worker servers, so the generated key is kept on disk.
    path = INSTANCE_DIR / "secret_key"
    if path.exists():
        return path.read_text().strip()
    INSTANCE_DIR.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(48)
    path.write_text(key)
    path.chmod(0o600)
    return key


def key_list(value: str) -> list[str]:
    """Return the comma-separated secret keys of `value`, in their order, blanks left out."""
    return [part.strip() for part in value.split(",") if part.strip()]


@dataclass(frozen=True)
class SecretKeys:
    """The deployment's secret key and the older ones that still open what they signed."""

    current: str
    fallbacks: tuple[str, ...] = ()

    def newest_first(self) -> tuple[str, ...]:
        """Return every key to try when reading, the current one first."""
        return (self.current, *self.fallbacks)

    def for_itsdangerous(self) -> list[str]:
        """Return the keys as an itsdangerous serializer takes them: it signs with the last."""
        return [*reversed(self.fallbacks), self.current]


def secret_keys(config: Mapping[str, object]) -> SecretKeys:
    """Return the secret keys an application's settings (SECRET_KEY and its fallbacks) name."""
    current = str(config["SECRET_KEY"])
    fallbacks = config.get("SECRET_KEY_FALLBACKS") or ()
    assert isinstance(fallbacks, list | tuple)
    return SecretKeys(current, tuple(str(key) for key in fallbacks if key != current))


# The words an on/off variable may hold; anything else stops the start with a message.
SWITCH_WORDS = {
    "1": True,
    "true": True,
    "yes": True,
    "on": True,
    "0": False,
    "false": False,
    "no": False,
    "off": False,
}


def whole_number(env: Mapping[str, str], name: str, default: int, at_least: int = 1) -> int:
    """Read a whole-number variable of at least `at_least`; unset means `default`."""
    value = env.get(name, "").strip()
    if not value:
        return default
    if not value.isdigit() or int(value) < at_least:
        raise ValueError(f"{name} must be a whole number of at least {at_least}, not {value!r}")
    return int(value)


def switch(name: str, default: bool) -> bool:
    """Read an on/off variable (on, off, true, false, yes, no, 1, 0); unset means `default`."""
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    if value not in SWITCH_WORDS:
        raise ValueError(f"{name} must be on or off, not {value!r}")
    return SWITCH_WORDS[value]


def address_list(value: str) -> frozenset[str]:
    """Return the comma-separated e-mail addresses of `value`, lower-cased."""
    return frozenset(part.strip().lower() for part in value.split(",") if part.strip())


def host_list(value: str) -> frozenset[str]:
    """Return the comma-separated hosts or addresses of `value`, lower-cased, IPv6 without []."""
    hosts = (part.strip().strip("[]").lower() for part in value.split(","))
    return frozenset(host for host in hosts if host)


class Config:
    """Settings for one application instance."""

    def __init__(self, **overrides: object) -> None:
        env = os.environ
        self.SECRET_KEY = env.get("TRACKER_SECRET_KEY") or None
        # Keys replaced by TRACKER_SECRET_KEY: what they signed or encrypted still opens,
        # nothing new is signed with them (Flask's session cookie reads the same setting).
        self.SECRET_KEY_FALLBACKS = key_list(env.get("TRACKER_SECRET_KEY_FALLBACKS", ""))
        self.DATABASE_URL = database_url()
        self.SEED_PATH = env.get("TRACKER_SEED_PATH") or str(PROJECT_ROOT / "seed" / "catalog.toml")
        self.BASE_URL = env.get("TRACKER_BASE_URL", "http://127.0.0.1:5000")
        self.TIMEZONE = env.get("TRACKER_TIMEZONE", "UTC")
        self.REMINDER_TIME = env.get("TRACKER_REMINDER_TIME", "07:00")
        # Empty means the reminders' own default windows (reminders.rules.DEFAULT_WINDOWS).
        self.REMINDER_WINDOWS = env.get("TRACKER_REMINDER_WINDOWS", "")
        self.SMTP_HOST = env.get("TRACKER_SMTP_HOST", "127.0.0.1")
        self.SMTP_PORT = whole_number(env, "TRACKER_SMTP_PORT", 25)
        self.SMTP_USERNAME = env.get("TRACKER_SMTP_USERNAME", "")
        self.SMTP_PASSWORD = env.get("TRACKER_SMTP_PASSWORD", "")
        self.SMTP_STARTTLS = env.get("TRACKER_SMTP_STARTTLS", "").lower() in ("1", "true", "yes")
        self.SMTP_TIMEOUT = float(env.get("TRACKER_SMTP_TIMEOUT", "10"))
        self.MAIL_FROM = env.get("TRACKER_MAIL_FROM", "tracker@localhost")
        # The organisation's name on the Open Badges the tracker issues (empty: its URL).
        self.ISSUER_NAME = env.get("TRACKER_ISSUER_NAME", "").strip()
        # The interface language when neither the person nor the browser names one.
        self.DEFAULT_LOCALE = env.get("TRACKER_DEFAULT_LOCALE", "en")
        self.SESSION_COOKIE_HTTPONLY = True
        self.SESSION_COOKIE_SAMESITE = "Lax"
        self.MAX_CONTENT_LENGTH = 2 * 1024 * 1024
        # How long a SQLite writer waits for the write lock before answering 503.
        self.SQLITE_BUSY_TIMEOUT_MS = whole_number(env, "TRACKER_SQLITE_BUSY_TIMEOUT_MS", 15000, 0)
        # Database connections each process keeps open: at least its threads (`tracker serve`'s
        # --threads), or a request opens one of its own and closes it after.
        self.DATABASE_POOL_SIZE = whole_number(env, "TRACKER_DATABASE_POOL_SIZE", 8)
        self.RATELIMIT_STORAGE_URL = env.get("TRACKER_RATELIMIT_STORAGE_URL", "memory://")
        self.SIGNIN_LIMIT_PER_ACCOUNT = "5/15minutes"
        self.SIGNIN_LIMIT_PER_ADDRESS = "30/15minutes"
        # Single sign-on with an OpenID provider (tracker.identity); off while the issuer is empty.
        self.OIDC_ISSUER = env.get("TRACKER_OIDC_ISSUER", "").strip()
        self.OIDC_CLIENT_ID = env.get("TRACKER_OIDC_CLIENT_ID", "").strip()
        self.OIDC_CLIENT_SECRET = env.get("TRACKER_OIDC_CLIENT_SECRET", "")
        self.OIDC_SCOPES = env.get("TRACKER_OIDC_SCOPES", "openid email profile")
        self.OIDC_PROVIDER_NAME = env.get("TRACKER_OIDC_PROVIDER_NAME", "").strip()
        self.OIDC_ROLE_CLAIM = env.get("TRACKER_OIDC_ROLE_CLAIM", "").strip()
        self.OIDC_ROLE_MAP = env.get("TRACKER_OIDC_ROLE_MAP", "")
        self.OIDC_CREATE_USERS = switch("TRACKER_OIDC_CREATE_USERS", False)
        # On: the provider's address counts as verified without email_verified (a provider
        # whose directory owns every address, as a single Entra ID tenant does).
        self.OIDC_TRUST_EMAIL = switch("TRACKER_OIDC_TRUST_EMAIL", False)
        # Off: only the break-glass admins may still sign in with a password.
        self.LOCAL_LOGIN = switch("TRACKER_LOCAL_LOGIN", True)
        self.BREAK_GLASS_ADMINS = address_list(env.get("TRACKER_BREAK_GLASS_ADMINS", ""))
        # Hosts in private, loopback or link-local ranges a badge may still be fetched from.
        self.BADGE_ALLOW_HOSTS = host_list(env.get("TRACKER_BADGE_ALLOW_HOSTS", ""))
        # Hosts in private, loopback or link-local ranges a webhook may still be sent to.
        self.WEBHOOK_ALLOW_HOSTS = host_list(env.get("TRACKER_WEBHOOK_ALLOW_HOSTS", ""))
        self.REMEMBER_COOKIE_HTTPONLY = True
        self.REMEMBER_COOKIE_SAMESITE = "Lax"
        # A form's token lasts as long as the sign-in that drew it: with Flask-WTF's
        # hour, an hour entry typed into a page left open since the morning was refused
        # on sending, and what was typed lost.
        self.WTF_CSRF_TIME_LIMIT = None
        self.TESTING = False
        for key, value in overrides.items():
            setattr(self, key, value)
        if isinstance(self.SECRET_KEY_FALLBACKS, str):
            self.SECRET_KEY_FALLBACKS = key_list(self.SECRET_KEY_FALLBACKS)
        if isinstance(self.BREAK_GLASS_ADMINS, str):
            self.BREAK_GLASS_ADMINS = address_list(self.BREAK_GLASS_ADMINS)
        if isinstance(self.BADGE_ALLOW_HOSTS, str):
            self.BADGE_ALLOW_HOSTS = host_list(self.BADGE_ALLOW_HOSTS)
        if isinstance(self.WEBHOOK_ALLOW_HOSTS, str):
            self.WEBHOOK_ALLOW_HOSTS = host_list(self.WEBHOOK_ALLOW_HOSTS)
        if not hasattr(self, "SESSION_COOKIE_SECURE"):
            self.SESSION_COOKIE_SECURE = str(self.BASE_URL).startswith("https://")
        if not self.SECRET_KEY:
            self.SECRET_KEY = _secret_key()

    def as_dict(self) -> dict[str, object]:
        """Return the settings as a mapping for Flask's config."""
        return {k: v for k, v in vars(self).items() if k.isupper()}
