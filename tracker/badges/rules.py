"""The badge rules' constants: what a fetch may read, lengths kept, how imports are made."""

from __future__ import annotations

from typing import Literal, get_args

from tracker.people.rules import MAX_EMAIL_LENGTH
from tracker.progress.rules import MAX_CREDENTIAL_NAME_LENGTH, MAX_ISSUER_LENGTH

# A fetch reads at most this much of a body, and gives up after this long in all
# (each connection and each read also wait at most FETCH_TIMEOUT_SECONDS).
MAX_FETCH_BYTES = 1024 * 1024
FETCH_TIMEOUT_SECONDS = 10.0
FETCH_DEADLINE_SECONDS = 20.0
# Redirects are followed by hand, each hop's address checked again, at most this many.
MAX_REDIRECTS = 5
FETCH_SCHEMES = frozenset({"http", "https"})
# What a fetch tells the issuer's server it reads.
FETCH_ACCEPT = "application/ld+json, application/json;q=0.9, */*;q=0.1"
# Who is asking, to the issuer's server (and its logs).
FETCH_USER_AGENT = "tracker-badge-verifier"

# A baked image or a pasted document is read up to this size too.
MAX_IMAGE_BYTES = MAX_FETCH_BYTES
MAX_DOCUMENT_BYTES = MAX_FETCH_BYTES

# How long the columns that keep a badge's ids and names are: a badge's name and
# issuer become a credential's outside the catalog, so they are cut to its lengths.
MAX_URL_LENGTH = 2000
MAX_BADGE_NAME_LENGTH = MAX_CREDENTIAL_NAME_LENGTH
MAX_ISSUER_NAME_LENGTH = MAX_ISSUER_LENGTH
MAX_RECIPIENT_LENGTH = MAX_EMAIL_LENGTH
MAX_REASON_LENGTH = 500

# How a badge reached the tracker: by its URL, a baked image, or pasted.
BadgeSource = Literal["url", "image", "json"]
SOURCES: tuple[BadgeSource, ...] = get_args(BadgeSource)
# Recipient hashes accepted. md5 too: its weakness is collisions, and matching a
# recipient would take a second preimage of a salted address, which md5 still resists;
# old Open Badges issuers hashed with it.
RECIPIENT_HASHES = ("sha256", "md5")

# The JSON-LD contexts that mark a Verifiable Credential (Open Badges 3.0).
VC_CONTEXTS = frozenset(
    {"https://www.w3.org/ns/credentials/v2", "https://www.w3.org/2018/credentials/v1"}
)
# Baked images: the PNG iTXt keyword and the SVG element of each format.
PNG_KEYWORD_OB2 = b"openbadges"
PNG_KEYWORD_OB3 = b"openbadgecredential"
SVG_NAMESPACE = "http://openbadges.org"
SVG_ELEMENT_OB2 = "assertion"
SVG_ELEMENT_OB3 = "credential"
