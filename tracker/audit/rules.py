"""The account trail's vocabulary: what happened to an account, and by which method."""

from __future__ import annotations

from typing import Final

from tracker.i18n import N_

# What happened, as stored; the label is what the admin page and the CSV show.
ACCOUNT_EVENT_KINDS: Final[dict[str, str]] = {
    "sign_in": N_("Signed in"),
    "sign_in_failed": N_("Sign-in refused"),
    "sign_out": N_("Signed out"),
    "totp_enrolled": N_("Two-step sign-in set up"),
    "totp_reset": N_("Two-step sign-in reset"),
    "provisioned": N_("Account created"),
    "updated": N_("Account changed"),
    "deactivated": N_("Account deactivated"),
    "reactivated": N_("Account reactivated"),
    "role_changed": N_("Access role changed"),
    "level_changed": N_("Level changed"),
    "identity_unlinked": N_("Identity provider account unlinked"),
    "data_exported": N_("Personal data downloaded"),
    "erased": N_("Personal data erased"),
}

# How: the sign-in method, or the channel a change came through.
ACCOUNT_EVENT_METHODS: Final[dict[str, str]] = {
    "password": N_("Password"),
    "totp": N_("Authenticator code"),
    "recovery": N_("Recovery code"),
    "oidc": N_("Identity provider"),
    "scim": N_("SCIM provisioning"),
    "web": N_("Web page"),
    "api": N_("API"),
    "cli": N_("Command line"),
    "import": N_("CSV import"),
    # The one-click link every weekly digest carries: no sign-in, its signed token.
    "unsubscribe": N_("Unsubscribe link"),
}

# Whom an audit event is about: a person's own record (the table of people, by its
# id), or a record that names its person in the snapshot's `engineer_id`.
PERSON_ENTITY: Final = "engineers"
PERSON_KEY: Final = "engineer_id"

MAX_EVENT_EMAIL_LENGTH: Final = 254
MAX_EVENT_ADDRESS_LENGTH: Final = 64

# Why a sign-in was refused, as a refused event's detail "reason" stores it.
SIGN_IN_REFUSALS: Final[dict[str, str]] = {
    "wrong_password": N_("wrong email or password"),
    "rate_limited": N_("too many failed attempts"),
    "wrong_code": N_("wrong authenticator code"),
    "replayed_code": N_("authenticator code used before"),
    "wrong_recovery_code": N_("unknown or used recovery code"),
    "unreadable_secret": N_("authenticator secret unreadable with this secret key"),
}
