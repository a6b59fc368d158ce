"""Forms of the Open Badges pages: issue, choose what the public page shows, revoke."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import BooleanField


class ShareForm(FlaskForm):
    """Issue a credential, or change what its public page shows."""

    show_name = BooleanField(_l("Show my name on the public page"))


class RevokeForm(FlaskForm):
    """Revoke a credential (nothing to fill in but the token)."""
