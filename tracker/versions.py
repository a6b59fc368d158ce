"""A record's version: a weak ETag that is a hash of what the record says.

SCIM's resources, the API's records and the web's edit forms all tell one
version from another this way, so a client that read a record can say which
version it changes (If-Match) or already holds (If-None-Match).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

WEAK = "W/"


def version(said: Any) -> str:
    """Return the weak ETag of what a record says (JSON-ready data): a hash of it."""
    text = json.dumps(said, sort_keys=True, default=str)
    return f'{WEAK}"{hashlib.sha256(text.encode()).hexdigest()[:20]}"'


def names(header: str | None, current: str) -> bool:
    """Return whether an If-Match or If-None-Match header names `current` (`*` names any).

    Compared weakly (RFC 9110 §8.8.3.2): a version is a hash of what the record
    says, so the same tag with or without W/ is the same version.
    """
    if header is None:
        return False
    tags = {tag.strip().removeprefix(WEAK) for tag in header.split(",")}
    return "*" in tags or current.removeprefix(WEAK) in tags
