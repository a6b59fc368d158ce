"""The issuer's rules: what it signs, how it is found, how long its words may be."""

from __future__ import annotations

from tracker.i18n import N_

# Only the internal track's exams: a vendor's certification is the vendor's to issue.
ISSUED_ORIGIN = "internal"
ISSUED_KIND = "exam"

# A bitstring status list holds this many entries (the specification's 16 KiB minimum);
# the tracker serves one list and refuses to issue past its end.
STATUS_LIST_BITS = 131_072
STATUS_PURPOSE = "revocation"
FULL_LIST = N_("the status list is full: no more credentials can be issued")

# The public page's address holds this many random bytes (base64url): unguessable.
PUBLIC_TOKEN_BYTES = 32
MAX_TOKEN_LENGTH = 64

# A key's id in the DID document is "#key-<n>"; the newest key signs.
KEY_PREFIX = "key-"

# The OB 3.0 baking keyword of a PNG's iTXt chunk.
PNG_KEYWORD = "openbadgecredential"

# What the public page shows of a credential: its holder's name only when they agree.
# The achievement, the issuer, the dates and the status are always shown.
PUBLIC_STATES = ("valid", "revoked", "expired")
NOT_ISSUABLE = N_("only certifications of the internal track can be issued as Open Badges")
ALREADY_ISSUED = N_("this certification already has an Open Badge")
# What a request that signs answers (503), and /health warns of, when neither the secret
# key nor a fallback opens the newest signing key (a secret key lost or replaced).
KEY_UNREADABLE = N_(
    "Open Badges cannot be signed until an admin runs `tracker issuer init-key --rotate`"
    " (or restores the secret key the signing key is stored under)."
)
