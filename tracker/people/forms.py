"""Sign-in and profile forms."""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import IntegerField, PasswordField, StringField, TextAreaField
from wtforms.validators import DataRequired, InputRequired, Length, NumberRange, Optional

from tracker.people.rules import (
    MAX_EMAIL_LENGTH,
    MAX_EXPERIENCE_MONTHS,
    MAX_EXPERIENCE_TEXT_LENGTH,
    MAX_PASSWORD_LENGTH,
    MIN_PASSWORD_LENGTH,
)


class LoginForm(FlaskForm):
    email = StringField(
        "Email",
        validators=[DataRequired(), Length(max=MAX_EMAIL_LENGTH)],
        render_kw={"autocomplete": "username", "autofocus": True},
    )
    password = PasswordField(
        "Password",
        validators=[DataRequired(), Length(max=MAX_PASSWORD_LENGTH)],
        render_kw={"autocomplete": "current-password"},
    )


class ProfileForm(FlaskForm):
    experience_months = IntegerField(
        "Documented experience before joining (months)",
        validators=[
            InputRequired(message="experience is required (0 or more months)"),
            NumberRange(
                min=0,
                max=MAX_EXPERIENCE_MONTHS,
                message=f"months must be from 0 to {MAX_EXPERIENCE_MONTHS}",
            ),
        ],
    )
    experience_text = TextAreaField(
        "Evidence of hands-on GPU-infrastructure experience",
        validators=[Optional(), Length(max=MAX_EXPERIENCE_TEXT_LENGTH)],
        description=(
            "Where and what: clusters run, GPUs, tools."
            " It backs the NCP-AII experience prerequisite."
        ),
    )


class PasswordForm(FlaskForm):
    current = PasswordField(
        "Current password",
        validators=[DataRequired()],
        render_kw={"autocomplete": "current-password"},
    )
    new = PasswordField(
        "New password",
        validators=[
            DataRequired(),
            Length(min=MIN_PASSWORD_LENGTH, max=MAX_PASSWORD_LENGTH),
        ],
        render_kw={"autocomplete": "new-password"},
    )
