"""The profile's button that unlinks an identity provider account."""

from __future__ import annotations

from flask_wtf import FlaskForm


class UnlinkForm(FlaskForm):
    """A button that unlinks one provider account (its CSRF token alone)."""
