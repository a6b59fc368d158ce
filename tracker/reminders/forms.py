"""Forms of the calendar feeds: buttons that post with their CSRF token."""

from __future__ import annotations

from flask_wtf import FlaskForm


class FeedTokenForm(FlaskForm):
    """Create, replace or remove a feed's secret URL (a button; CSRF-protected)."""
