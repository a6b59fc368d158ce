"""Forms of the reminders' pages: the calendar feeds' buttons, the weekly digest's choice."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import BooleanField, HiddenField

from tracker.reminders.rules import ONE_CLICK_FIELD, ONE_CLICK_VALUE


class FeedTokenForm(FlaskForm):
    """Create, replace or remove a feed's secret URL (a button; CSRF-protected)."""


class DigestForm(FlaskForm):
    """The person's choice of getting the weekly digest (on their profile; CSRF-protected)."""

    weekly_digest = BooleanField(_l("Send me the weekly digest"))


class OneClickForm(FlaskForm):
    """The unsubscribe page's button: the very POST a mail client's one click sends (RFC 8058).

    No CSRF token: the signed link is the credential, and RFC 8058 has the client
    send nothing else (no cookie, no token).
    """

    class Meta:
        csrf = False

    one_click = HiddenField(name=ONE_CLICK_FIELD, default=ONE_CLICK_VALUE)
