"""Sign-in, profile and language forms."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import HiddenField, PasswordField, StringField, TextAreaField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import Optional

from tracker.forms import (
    DataRequired,
    InputRequired,
    Length,
    ListedChoice,
    WholeField,
    WholeRange,
    choices,
)
from tracker.people.rules import (
    BROWSER_LOCALE,
    LOCALES,
    MAX_EMAIL_LENGTH,
    MAX_EXPERIENCE_MONTHS,
    MAX_EXPERIENCE_TEXT_LENGTH,
    MAX_PASSWORD_LENGTH,
    MAX_SIGN_IN_CODE_LENGTH,
    MIN_PASSWORD_LENGTH,
)

# Each language named in itself, so a reader finds their own whatever the page's language.
LANGUAGE_NAMES = {"en": "English", "es": "Español"}
NOT_A_LANGUAGE = _l("choose one of the listed languages")


class LoginForm(FlaskForm):
    email = StringField(
        _l("Email"),
        validators=[DataRequired(), Length(max=MAX_EMAIL_LENGTH)],
        render_kw={"autocomplete": "username", "autofocus": True},
    )
    password = PasswordField(
        _l("Password"),
        validators=[DataRequired(), Length(max=MAX_PASSWORD_LENGTH)],
        render_kw={"autocomplete": "current-password"},
    )


class ProfileForm(FlaskForm):
    experience_months = WholeField(
        _l("Documented experience before joining (months)"),
        validators=[
            InputRequired(message=_l("experience is required (0 or more months)")),
            WholeRange(
                min=0,
                max=MAX_EXPERIENCE_MONTHS,
                message=_l("months must be from %(min)d to %(max)d"),
            ),
        ],
    )
    experience_text = TextAreaField(
        _l("Evidence of hands-on GPU-infrastructure experience"),
        validators=[Optional(), Length(max=MAX_EXPERIENCE_TEXT_LENGTH)],
        description=_l(
            "Where and what: clusters run, GPUs, tools."
            " It backs the NCP-AII experience prerequisite."
        ),
    )


class LocaleForm(FlaskForm):
    """The person's interface language."""

    locale = ListedChoice(
        _l("Language"),
        not_listed=NOT_A_LANGUAGE,
        choices=[
            SelectChoice(value=BROWSER_LOCALE, label=_l("As my browser asks")),
            *(
                SelectChoice(value=code, label=LANGUAGE_NAMES[code], render_kw={"lang": code})
                for code in LOCALES
            ),
        ],
    )


class LanguageForm(FlaskForm):
    """A visitor's choice of language before signing in (kept in the session cookie)."""

    locale = ListedChoice(
        _l("Language"),
        not_listed=NOT_A_LANGUAGE,
        choices=choices((code, LANGUAGE_NAMES[code]) for code in LOCALES),
    )
    next = HiddenField()


class PasswordForm(FlaskForm):
    current = PasswordField(
        _l("Current password"),
        validators=[DataRequired()],
        render_kw={"autocomplete": "current-password"},
    )
    new = PasswordField(
        _l("New password"),
        validators=[
            DataRequired(),
            Length(min=MIN_PASSWORD_LENGTH, max=MAX_PASSWORD_LENGTH),
        ],
        render_kw={"autocomplete": "new-password"},
    )


# A one-time code: no browser should offer to remember it, nor correct its letters.
_CODE_FIELD = {
    "autocomplete": "one-time-code",
    "autocapitalize": "none",
    "spellcheck": "false",
}


class CodeForm(FlaskForm):
    """The second step of signing in: an authenticator code or a recovery code."""

    code = StringField(
        _l("Code"),
        validators=[
            DataRequired(message=_l("enter the code your app shows, or a recovery code")),
            Length(max=MAX_SIGN_IN_CODE_LENGTH),
        ],
        description=_l("Six digits from your authenticator app, or one of your recovery codes."),
        render_kw={**_CODE_FIELD, "autofocus": True},
    )


class TotpSetupForm(FlaskForm):
    """The first code of an authenticator app being set up."""

    code = StringField(
        _l("Code the app shows"),
        validators=[
            DataRequired(message=_l("enter the six digits the app shows")),
            Length(max=MAX_SIGN_IN_CODE_LENGTH),
        ],
        # Not focused at once: the page's instructions and the QR code come first.
        render_kw={**_CODE_FIELD, "inputmode": "numeric"},
    )


class TotpOffForm(FlaskForm):
    """Turning two-step sign-in off: a current code from the app proves the phone is at hand."""

    code = StringField(
        _l("Code from your app"),
        validators=[
            DataRequired(message=_l("enter the six digits the app shows")),
            Length(max=MAX_SIGN_IN_CODE_LENGTH),
        ],
        render_kw={**_CODE_FIELD, "inputmode": "numeric"},
    )


class ConfirmCodesForm(FlaskForm):
    """A button that replaces the recovery codes (its CSRF token alone)."""
