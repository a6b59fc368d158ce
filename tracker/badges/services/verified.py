"""What verifying a badge yields, shared by the Open Badges 2.0 and 3.0 verifiers."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Literal

BadgeFormat = Literal["ob2", "ob3"]

# Why a badge is refused. A re-check records "revoked" and "expired"; "unreachable"
# leaves an imported badge as it was, since the issuer may only be down.
RefusalKind = Literal["invalid", "recipient", "revoked", "expired", "unreachable", "unsafe"]

# GET a URL safely and return its body; raises BadgeRefused ("unsafe" or "unreachable").
Fetch = Callable[[str], bytes]


class BadgeRefused(Exception):
    """A badge failed a check; `reason` says which, in words a person reads."""

    def __init__(self, reason: str, kind: RefusalKind = "invalid") -> None:
        super().__init__(reason)
        self.reason = reason
        self.kind = kind


@dataclass(frozen=True)
class VerifiedBadge:
    """A badge that passed every check: who issued what to whom, and when."""

    format: BadgeFormat
    assertion_id: str
    badge_class_id: str
    badge_name: str
    issuer_id: str
    issuer_name: str
    recipient: str
    issued_on: dt.date
    expires_on: dt.date | None
    document: str


Verify = Callable[[str, Collection[str], dt.date, Fetch], VerifiedBadge]
