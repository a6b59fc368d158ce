"""SCIM's limits: token names, page sizes, what a deleted resource answers."""

from __future__ import annotations

from typing import Final

from tracker.people.rules import MAX_TOKEN_NAME_LENGTH as MAX_SCIM_TOKEN_NAME_LENGTH

__all__ = [
    "DEFAULT_COUNT",
    "MAX_COUNT",
    "MAX_EXTERNAL_ID_LENGTH",
    "MAX_SCIM_TOKEN_LENGTH",
    "MAX_SCIM_TOKEN_NAME_LENGTH",
    "SCIM_TOKEN_PREFIX",
    "VIA",
]

# A page of a list: `count` when the request leaves it out, and at most.
DEFAULT_COUNT: Final = 100
MAX_COUNT: Final = 500
# An identity provider's identifier for a person or a team (Entra and Okta send
# GUIDs and 20-character ids); a longer one is refused.
MAX_EXTERNAL_ID_LENGTH: Final = 255
# A bearer secret longer than this is not looked up.
MAX_SCIM_TOKEN_LENGTH: Final = 200
SCIM_TOKEN_PREFIX: Final = "scim_"
# The channel the account trail names for changes made through provisioning.
VIA: Final = "scim"
