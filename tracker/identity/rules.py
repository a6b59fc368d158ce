"""Single sign-on rules: what the tracker accepts from an OpenID provider, and its refusals."""

from __future__ import annotations

import datetime as dt
from typing import Final

from tracker.i18n import N_
from tracker.people.rules import ACCESS_ROLES

# The scope every sign-in asks for at least, and the default set (TRACKER_OIDC_SCOPES).
OPENID_SCOPE: Final = "openid"
DEFAULT_SCOPES: Final = "openid email profile"

# Access roles from lowest to highest: a person in several mapped groups gets the highest.
ROLE_RANK: Final = {role: rank for rank, role in enumerate(ACCESS_ROLES)}

# A sign-in started here must come back from the provider within this time, once.
SIGN_IN_LIFETIME: Final = dt.timedelta(minutes=10)
# Clock skew allowed between the provider and the tracker when judging exp and iat.
CLOCK_LEEWAY_SECONDS: Final = 60
# Signature algorithms an ID token may use: asymmetric only (never "none", never a shared secret).
SIGNING_ALGORITHMS: Final = (
    "RS256",
    "RS384",
    "RS512",
    "PS256",
    "PS384",
    "PS512",
    "ES256",
    "ES384",
    "ES512",
    # RFC 9864's name; the older "EdDSA" is deprecated by it.
    "Ed25519",
)
# How long the provider's discovery document and keys are kept before they are asked again
# (an ID token signed with an unknown key asks for the keys at once).
METADATA_TTL: Final = dt.timedelta(hours=1)
# Each call to the provider (discovery, keys, token, user info) waits at most this long.
HTTP_TIMEOUT_SECONDS: Final = 10.0
# The largest ID token kept in the session cookie to name the person at sign-out.
MAX_KEPT_ID_TOKEN_LENGTH: Final = 2500

MAX_ISSUER_LENGTH: Final = 255
MAX_SUBJECT_LENGTH: Final = 255
MAX_STATE_LENGTH: Final = 64
MAX_NEXT_LENGTH: Final = 2000

# Why a sign-in through the provider was refused: the reason kept in the account trail,
# and what the sign-in page says (%(provider)s is the provider's display name).
ANSWER_NOT_VERIFIED = N_(
    "The answer from %(provider)s could not be verified, so you are not signed in."
    " Sign in again; if this happens again, tell an admin."
)
REFUSALS: Final = {
    "state": N_("This sign-in was already finished, or it took too long. Sign in again."),
    "provider_error": N_("%(provider)s did not sign you in (%(error)s)."),
    "unreachable": N_("%(provider)s cannot be reached right now. Try again in a minute."),
    "token": ANSWER_NOT_VERIFIED,
    "inactive": N_("Your tracker account is deactivated. Ask an admin to reactivate it."),
    "no_email": N_(
        "%(provider)s sent no e-mail address, so no tracker account could be found for you."
        " Ask an admin."
    ),
    "unverified_email": N_(
        "%(provider)s has not verified your address %(email)s, so it cannot be matched to a"
        " tracker account. Ask an admin."
    ),
    "no_account": N_("No tracker account has the address %(email)s. Ask an admin to add you."),
    "linked_elsewhere": N_(
        "The tracker account of %(email)s is linked to another %(provider)s account. Ask an admin."
    ),
    "role": N_("Your access role from %(provider)s cannot be applied: %(rule)s."),
    "account": N_("Your tracker account could not be created: %(rule)s."),
}
