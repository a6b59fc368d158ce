"""The personal-data file's rules: its format and version, its name, what never goes in it."""

from __future__ import annotations

from typing import Final

# The file says what it is, so that a program reading it years later knows its shape;
# the version moves when a key is renamed or removed (added keys keep it).
FORMAT: Final = "tracker-personal-data"
VERSION: Final = 1

# The download's name; the day is the tracker's today (its time zone).
FILENAME: Final = "tracker-data-{day}.json"

# The account trail's kind for a download of someone's data (tracker/audit/rules.py).
EXPORT_EVENT: Final = "data_exported"

# Columns that open an account or prove a request: never written into the file, also
# not from an audit snapshot or an event's detail, whoever downloads it. The session
# epoch and the last TOTP step only say how to replay or time a sign-in.
SECRET_FIELDS: Final = frozenset(
    {
        "password_hash",
        "totp_secret",
        "totp_last_step",
        "session_epoch",
        "calendar_token",
        "token_hash",
        "code_hash",
        "secret",
        "previous_secret",
        "private_key",
        # The unguessable address of an Open Badge's public page, which only its holder
        # hands out: an admin's download for someone must not hand it out for them.
        "public_token",
    }
)
