"""The personal-data rules: the file's format, name and secrets; what erasing a person clears."""

from __future__ import annotations

from typing import Final

from tracker.i18n import N_

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

# The account trail's kind for the erasure of someone's personal data (GDPR art. 17).
ERASE_EVENT: Final = "erased"

# An erased person's address: `.invalid` (RFC 6761) is never delivered, and the id keeps
# it unique. Their name is people's PSEUDONYM (pages and mail show it too).
ERASED_EMAIL: Final = "erased-{id}@invalid"

# What an erased text that must not be empty says instead (a certification without an
# exam attempt keeps that it had evidence, an evidence row that it had a title).
ERASED_TEXT: Final = "[erased]"

# Erasure comes after departure: an active person is deactivated first (their sign-in ends).
DEACTIVATE_FIRST_RULE: Final = N_(
    "only a deactivated person's personal data can be erased; deactivate them first"
)
# The confirmation an admin types: the person's address, so that the wrong person is never erased.
CONFIRM_RULE: Final = N_("type the person's e-mail address exactly to confirm the erasure")

# The keys of an audit snapshot, an event's detail or a webhook's payload that hold what a
# person is called or wrote; erasure empties them. Amounts, dates, codes and ids stay.
PERSONAL_FIELDS: Final = frozenset(
    {
        "name",
        "email",
        "note",
        "title",
        "evidence",
        "experience_text",
        "recipient",
        "document",
        "voucher_code",
        "external_id",
        "subject",
        "address",
    }
)
