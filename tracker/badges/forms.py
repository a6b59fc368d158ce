"""The badge forms: importing a badge, mapping a badge class to a catalog credential."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import StringField, TextAreaField
from wtforms.validators import Optional

from tracker.badges.rules import MAX_DOCUMENT_BYTES, MAX_URL_LENGTH
from tracker.forms import InputRequired, Length, ListedChoice


class BadgeForm(FlaskForm):
    """A badge to import: by its URL, as a baked image, or pasted."""

    # Not `engineer`: the credentials page shows this form beside one with that field.
    badge_engineer = ListedChoice(_l("Engineer"), coerce=int, validators=[InputRequired()])
    badge_url = StringField(
        _l("Badge URL"),
        validators=[Optional(), Length(max=MAX_URL_LENGTH)],
        description=_l("The address where the issuer hosts the badge (its assertion)."),
    )
    badge_image = FileField(
        _l("Baked badge image"),
        description=_l("A PNG or SVG image with the badge baked in."),
    )
    badge_json = TextAreaField(
        _l("Badge JSON"),
        validators=[Optional(), Length(max=MAX_DOCUMENT_BYTES)],
        description=_l(
            "The badge's assertion as JSON, or as its signed text (JWS) when its issuer"
            " signs it (or an Open Badges 3.0 credential)."
        ),
    )


class MappingForm(FlaskForm):
    """Which catalog credential a badge class is."""

    badge_class = StringField(
        _l("Badge class URL"),
        validators=[InputRequired(), Length(max=MAX_URL_LENGTH)],
        description=_l("The badge class's id, as its assertions name it."),
    )
    credential = ListedChoice(_l("Credential"), validators=[InputRequired()])


class RemoveForm(FlaskForm):
    """A button that removes one mapping."""
