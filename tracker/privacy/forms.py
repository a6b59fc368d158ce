"""The privacy forms: the confirmation of an erasure, by typing the person's address."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import StringField
from wtforms.validators import DataRequired

from tracker.people.rules import MAX_EMAIL_LENGTH
from tracker.privacy.rules import CONFIRM_RULE


class EraseForm(FlaskForm):
    """The person's address, typed again: what an irreversible erasure asks."""

    email = StringField(
        _l("The person's e-mail address"),
        validators=[DataRequired(message=_l(CONFIRM_RULE))],
        render_kw={"autocomplete": "off", "maxlength": MAX_EMAIL_LENGTH},
    )
