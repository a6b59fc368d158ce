"""People rules: access roles, limits of names, emails, passwords, experience and fleets.

A person's level is a rung of the catalog's ladder: its range is the catalog's
(tracker.catalog.rules MIN_LEVEL, MAX_LEVEL).
"""

from __future__ import annotations

import datetime as dt
import unicodedata

from tracker.i18n import LOCALES, N_, day, msg

__all__ = ["LOCALES"]

ACCESS_ROLES = ("engineer", "manager", "admin")
# The access roles that may manage a team or a person.
MANAGER_ROLES = ("manager", "admin")
# A marked text is a literal: a test holds it to ACCESS_ROLES.
ACCESS_ROLE_RULE = N_("role must be one of engineer, manager, admin")
# Without an active admin nobody can manage people or the catalog on the web or the API.
LAST_ADMIN_RULE = N_(
    "the tracker must keep at least one active admin; make someone else an admin first"
)

# An erased person's record is pseudonymous for good (tracker/privacy/services/erasure.py):
# bringing the account back, or giving it a name or address again, would undo the erasure.
ERASED_RULE = N_(
    "this person's personal data was erased; the account cannot be reactivated or changed"
)

# What an erased person is called (tracker/privacy/services/erasure.py stores it): stored
# in English, shown in the reader's language on every page, CSV file and notice.
PSEUDONYM = N_("Former member #%(id)s")


def shown_name(person_id: int, name: str) -> str:
    """Return a person's name marked for the reader: an erased person's pseudonym to translate."""
    # Erasure stores the English pseudonym and refuses any later name, so the stored name
    # says it alone: plain rows (readiness's members, the account trail's) carry no erasure date.
    if name == PSEUDONYM % {"id": person_id}:
        return msg(PSEUDONYM, id=person_id)
    return name


MAX_NAME_LENGTH = 120
MAX_TEAM_NAME_LENGTH = 120
# A person's or a team's name is one line: mail subjects name people (an escalation
# names the engineer), and a header cannot hold a line break; pages, CSV cells and
# calendar summaries show a name on one line too.
ONE_LINE_RULE = N_("a name must be one line, without line breaks or control characters")
# Control characters (tab and line feed among them) and the line and paragraph separators.
LINE_BREAKING_CATEGORIES = frozenset({"Cc", "Zl", "Zp"})


def is_one_line(text: str) -> bool:
    """Return whether `text` holds no line break nor any other control character."""
    return not any(unicodedata.category(char) in LINE_BREAKING_CATEGORIES for char in text)


# The domain gives a person one or more job roles and no ceiling: the web form ticks
# each of the catalog's at most once. A list (the API, the command line, a CSV import)
# names at most this many codes, generously; a code named twice is held once.
MAX_JOB_ROLES = 20
JOB_ROLES_COUNT_RULE = msg("job roles must name at most %(max)s codes", max=MAX_JOB_ROLES)

MAX_EMAIL_LENGTH = 254
EMAIL_RULE = N_("not a valid email address (name@example.com)")
MIN_PASSWORD_LENGTH = 10
MAX_PASSWORD_LENGTH = 200
PASSWORD_LENGTH_RULE = msg("password must be at least %(min)s characters", min=MIN_PASSWORD_LENGTH)
MAX_TOKEN_NAME_LENGTH = 120

# An API token's scope: a read token may only read (GET, HEAD, OPTIONS); a
# write token may also write (POST, PUT, PATCH, DELETE), as its owner's role allows.
READ_SCOPE = "read"
WRITE_SCOPE = "write"
TOKEN_SCOPES = (READ_SCOPE, WRITE_SCOPE)
MAX_TOKEN_SCOPE_LENGTH = 5
TOKEN_SCOPE_RULE = N_("scope must be read or write")
READ_ONLY_TOKEN_RULE = N_("a read-only token cannot write")
# A token with an expiry date works through that day (in TRACKER_TIMEZONE) and
# stops the day after, like a certification valid on its expiry day.
TOKEN_EXPIRY_RULE = N_("the expiry date must not be before today")
# An expiring token lasts at most this many days from the day it is made: a date
# further off is likelier a slip (2062 for 2026) than a plan, and a token meant to
# last is made without an expiry and revoked when it is done with.
MAX_TOKEN_LIFETIME_DAYS = 365

# No record of a person is dated before this day: their hire date, and the career
# records (tracker.careers.rules) and hours dated from it.
EARLIEST_DATE = dt.date(1970, 1, 1)
# A hire date is from EARLIEST_DATE to today, whoever sets it (the web, the API, a CSV
# import): a person is added once hired, so their experience counts from a real day.
HIRED_TOO_EARLY = msg("hire date must not be before %(earliest)s", earliest=day(EARLIEST_DATE))
HIRED_IN_FUTURE = N_("hire date must not be in the future")

# Documented experience before joining, in whole months.
MAX_EXPERIENCE_MONTHS = 600
EXPERIENCE_RULE = msg(
    "experience must be a whole number of months from 0 to %(max)s", max=MAX_EXPERIENCE_MONTHS
)
MAX_EXPERIENCE_TEXT_LENGTH = 4000

# A team's fleet, in GPUs; readiness questions and plans ask about no larger one.
MAX_GPUS = 10_000_000
# The figure is written out (a marked text is a literal); a test holds it to MAX_GPUS.
GPUS_RULE = N_("fleet size must be a whole number of GPUs from 0 to 10,000,000")

# A person's language setting is one of the interface's LOCALES (tracker.i18n), or BROWSER_LOCALE:
# no preference, the browser's Accept-Language decides.
BROWSER_LOCALE = ""
LOCALE_RULE = N_("language must be one of en, es (or empty for the browser's choice)")

# Two-step sign-in with a time-based one-time password (TOTP, RFC 6238): six digits
# every 30 seconds from an HMAC-SHA1 of a shared secret, as authenticator apps expect.
TOTP_DIGITS = 6
TOTP_INTERVAL_SECONDS = 30
# The code of the step before or after the server's is accepted too (a phone's clock
# drifts); a step that signed in once never signs in again.
TOTP_VALID_WINDOW = 1
# Base32 characters: 160 bits, the key size RFC 4226 recommends.
TOTP_SECRET_LENGTH = 32
# Stored encrypted (Fernet, under a key derived by HKDF-SHA256 from the deployment's
# secret key with this purpose), so that a database dump alone gives no codes. The
# token of a TOTP_SECRET_LENGTH-character secret is 140 characters; the column has room.
TOTP_ENCRYPTION_INFO = b"tracker: TOTP secrets at rest, v1"
TOTP_STORED_LENGTH = 160
# The name an authenticator app shows beside the account.
TOTP_ISSUER = "Tracker"
# Who must pass the second step after a password; anyone else may choose to.
TOTP_REQUIRED_ROLES = ("admin",)
# Between a right password and the second step: long enough to install an app.
PENDING_SIGN_IN_SECONDS = 15 * 60
# Shown once at set-up, stored hashed, each good for one sign-in without the app:
# two groups of five characters of lower-case base32 (50 bits), e.g. "k3v7q-m2zpa".
RECOVERY_CODE_COUNT = 10
RECOVERY_CODE_GROUP = 5
RECOVERY_CODE_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"
# What the code field takes: six digits or a recovery code, spaces and dashes allowed.
MAX_SIGN_IN_CODE_LENGTH = 32
TOTP_CODE_RULE = N_("the code is wrong or was already used: enter the one the app shows now")
# A secret that neither the secret key nor a fallback decrypts (changed with no fallback kept).
TOTP_UNREADABLE_RULE = N_(
    "two-step sign-in of this account cannot be checked: ask an admin to reset it"
)
RECOVERY_CODE_RULE = N_("this recovery code is unknown or was already used")
