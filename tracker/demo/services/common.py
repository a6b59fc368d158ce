"""What the curated demo and the generator share: logins and the words they write."""

from __future__ import annotations

DEMO_PASSWORD = "tracker-demo"
DOMAIN = "example.com"
PROCTORING = "online, remotely proctored"
# The demo admin's authenticator secret (base32): admins sign in with a second step,
# and a demonstration needs a known one. Printed by `tracker demo`; any TOTP app or
# `python -c "import pyotp; print(pyotp.TOTP('...').now())"` gives the code.
DEMO_ADMIN_TOTP_SECRET = "TRACKERDEMOADMINTOTPSECRETKEY234"


def experience_text(months: int) -> str:
    """Return how an engineer's months of experience before joining read on the profile."""
    return f"{months} months running GPU clusters before joining" if months else ""
