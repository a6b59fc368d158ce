"""Sign-in and profile forms."""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import IntegerField, PasswordField, StringField, TextAreaField
from wtforms.validators import DataRequired, InputRequired, Length, NumberRange, Optional


class LoginForm(FlaskForm):
    email = StringField(
        "Email",
        validators=[DataRequired(), Length(max=254)],
        render_kw={"autocomplete": "username", "autofocus": True},
    )
    password = PasswordField(
        "Password",
        validators=[DataRequired(), Length(max=200)],
        render_kw={"autocomplete": "current-password"},
    )


class ProfileForm(FlaskForm):
    experience_months = IntegerField(
        "Documented experience before joining (months)",
        validators=[
            InputRequired(message="experience is required (0 or more months)"),
            NumberRange(min=0, max=600, message="months must be from 0 to 600"),
        ],
    )
    experience_text = TextAreaField(
        "Evidence of hands-on GPU-infrastructure experience",
        validators=[Optional(), Length(max=4000)],
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
        validators=[DataRequired(), Length(min=10, max=200)],
        render_kw={"autocomplete": "new-password"},
    )
