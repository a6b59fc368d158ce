"""What the curated demo and the generator share: logins and the words they write."""

from __future__ import annotations

from tracker.i18n import DEFAULT_LOCALE, gettext

DEMO_PASSWORD = "tracker-demo"
DOMAIN = "example.com"
# The demo admin's authenticator secret (base32): admins sign in with a second step,
# and a demonstration needs a known one. Printed by `tracker demo`; any TOTP app or
# `python -c "import pyotp; print(pyotp.TOTP('...').now())"` gives the code.
DEMO_ADMIN_TOTP_SECRET = "TRACKERDEMOADMINTOTPSECRETKEY234"

# The demo's people write their notes in the language they read the tracker in
# (their browser's, "", reads as the default): a Spanish reader's hour log is
# in Spanish, as a real one would be.


def _written(locale: str) -> str:
    return locale or DEFAULT_LOCALE


def experience_text(months: int, locale: str) -> str:
    """Return how an engineer's months of experience before joining read on the profile."""
    if not months:
        return ""
    return gettext(
        "%(months)s months running GPU clusters before joining", _written(locale), months=months
    )


def study_note(locale: str) -> str:
    """Return the note of a demo engineer's everyday hour log."""
    return gettext("demo study session", _written(locale))


def corrected_study_note(locale: str) -> str:
    """Return the note of a demo hour log its engineer corrected afterwards."""
    return gettext(
        "demo study session, the InfiniBand troubleshooting labs redone", _written(locale)
    )


def bootcamp_note(locale: str) -> str:
    """Return the note of a long day's hour log (a bootcamp)."""
    return gettext("bootcamp day", _written(locale))


def proctoring(locale: str) -> str:
    """Return how a demo engineer's exams were taken, as they recorded it."""
    return gettext("online, remotely proctored", _written(locale))


def evidence(code: str, engineer_id: int, locale: str) -> str:
    """Return the evidence a demo engineer gives for a credential earned elsewhere."""
    return gettext(
        "certificate %(code)s-%(number)s",
        _written(locale),
        code=code,
        number=f"{engineer_id:04d}",
    )
