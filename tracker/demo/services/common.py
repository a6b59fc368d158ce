"""What the curated demo and the generator share: logins and the words they write."""

from __future__ import annotations

DEMO_PASSWORD = "tracker-demo"
DOMAIN = "example.com"
PROCTORING = "online, remotely proctored"


def experience_text(months: int) -> str:
    """Return how an engineer's months of experience before joining read on the profile."""
    return f"{months} months running GPU clusters before joining" if months else ""
