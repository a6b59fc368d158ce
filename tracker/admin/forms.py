"""Admin forms: people, teams, the internal certification track and CSV imports.

Choices are filled by the views from the database; a value outside them is
refused with a message naming the rule, not WTForms' generic one.
"""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import (
    DateField,
    IntegerField,
    PasswordField,
    SelectMultipleField,
    StringField,
    TextAreaField,
)
from wtforms.validators import DataRequired, Email, InputRequired, Length, NumberRange, Optional

from tracker.catalog.rules import (
    DEFAULT_RETAKE_WAIT_DAYS,
    DEFAULT_TARGET_MONTHS,
    DEFAULT_TRACK_VALIDITY_MONTHS,
    LEVEL_RULE,
    MAX_CODE_LENGTH,
    MAX_REQUIRED_EXPERIENCE_MONTHS,
    MAX_RETAKE_WAIT_DAYS,
    MAX_TARGET_MONTHS,
    MAX_TITLE_LENGTH,
    MAX_VALIDITY_MONTHS,
    MIN_TARGET_MONTHS,
    MIN_VALIDITY_MONTHS,
)
from tracker.forms import ListedChoice, choices, optional_id
from tracker.people.rules import (
    ACCESS_ROLES,
    GPUS_RULE,
    MAX_EMAIL_LENGTH,
    MAX_EXPERIENCE_MONTHS,
    MAX_GPUS,
    MAX_NAME_LENGTH,
    MAX_PASSWORD_LENGTH,
    MAX_TEAM_NAME_LENGTH,
    MIN_PASSWORD_LENGTH,
)
from tracker.reminders.rules import (
    MAX_OUTBOX_SEARCH_LENGTH,
    NOTIFICATION_KINDS,
    NOTIFICATION_STATUSES,
)


def ListedChoices(label, not_listed="choose only listed options", **kw) -> SelectMultipleField:
    """A multiple select whose values must all be among its choices."""
    return SelectMultipleField(
        label,
        invalid_value_message=not_listed,
        invalid_choice_message=not_listed + " ('%(value)s' is not one)",
        **kw,
    )


def _access_role():
    return ListedChoice(
        "Access role",
        choices=choices((r, r) for r in ACCESS_ROLES),
        validators=[InputRequired(message="an access role is required")],
        not_listed=f"role must be one of {', '.join(ACCESS_ROLES)}",
        description="engineer: own records; manager: also their reports; admin: everything.",
    )


def _job_roles():
    return ListedChoices(
        "Job roles",
        choices=[],
        not_listed="choose job roles from the list",
        description="Hold Ctrl (or Cmd) to choose several.",
    )


def _level():
    return ListedChoice(
        "Level",
        coerce=optional_id,
        choices=[],
        validators=[InputRequired(message="a level is required")],
        not_listed=LEVEL_RULE,
    )


def _team():
    return ListedChoice(
        "Team", coerce=optional_id, choices=[], not_listed="choose one of the listed teams"
    )


def _manager():
    return ListedChoice(
        "Manager",
        coerce=optional_id,
        choices=[],
        not_listed="choose one of the listed managers (managers and admins)",
    )


def _hired_on():
    return DateField("Hire date", validators=[Optional()])


def _experience():
    return IntegerField(
        "Experience before joining (months)",
        default=0,
        validators=[
            InputRequired(message="experience is required (0 or more months)"),
            NumberRange(
                min=0,
                max=MAX_EXPERIENCE_MONTHS,
                message=f"experience must be from 0 to {MAX_EXPERIENCE_MONTHS} months",
            ),
        ],
    )


class PersonAddForm(FlaskForm):
    name = StringField(
        "Name",
        validators=[
            DataRequired(message="a name is required"),
            Length(
                max=MAX_NAME_LENGTH, message=f"name must be at most {MAX_NAME_LENGTH} characters"
            ),
        ],
    )
    email = StringField(
        "Email",
        validators=[
            DataRequired(message="an email is required"),
            Length(
                max=MAX_EMAIL_LENGTH,
                message=f"email must be at most {MAX_EMAIL_LENGTH} characters",
            ),
            Email(message="not a valid email address (name@example.com)"),
        ],
        render_kw={"autocomplete": "off"},
    )
    access_role = _access_role()
    job_roles = _job_roles()
    level = _level()
    team = _team()
    manager = _manager()
    hired_on = _hired_on()
    experience_months = _experience()
    password = PasswordField(
        "Initial password",
        validators=[
            DataRequired(message="an initial password is required"),
            Length(
                min=MIN_PASSWORD_LENGTH,
                max=MAX_PASSWORD_LENGTH,
                message=(
                    f"password must be {MIN_PASSWORD_LENGTH} to {MAX_PASSWORD_LENGTH} characters"
                ),
            ),
        ],
        render_kw={"autocomplete": "new-password"},
    )


class PersonEditForm(FlaskForm):
    access_role = _access_role()
    job_roles = _job_roles()
    level = _level()
    team = _team()
    manager = _manager()
    hired_on = _hired_on()
    experience_months = _experience()


class ConfirmForm(FlaskForm):
    """A button that posts with its CSRF token (deactivate, reactivate)."""


class TeamForm(FlaskForm):
    name = StringField(
        "Name",
        validators=[
            DataRequired(message="a name is required"),
            Length(
                max=MAX_TEAM_NAME_LENGTH,
                message=f"name must be at most {MAX_TEAM_NAME_LENGTH} characters",
            ),
        ],
    )
    gpus = IntegerField(
        "Fleet size (GPUs)",
        validators=[
            InputRequired(message="a fleet size is required (0 or more GPUs)"),
            NumberRange(
                min=0,
                max=MAX_GPUS,
                message=GPUS_RULE,
            ),
        ],
    )
    manager = _manager()


class TrackForm(FlaskForm):
    exam_code = StringField(
        "Exam code",
        validators=[
            DataRequired(message="an exam code is required"),
            Length(max=MAX_CODE_LENGTH),
        ],
        description="New to the whole catalog, e.g. ACME-GPU-OPS.",
    )
    exam_name = StringField(
        "Exam name",
        validators=[
            DataRequired(message="an exam name is required"),
            Length(max=MAX_TITLE_LENGTH),
        ],
    )
    exam_name_es = StringField(
        _l("Exam name in Spanish"),
        validators=[Optional(), Length(max=MAX_TITLE_LENGTH)],
        description=_l("Optional: without it, Spanish readers see the exam name above."),
    )
    validity_months = IntegerField(
        "Validity (months)",
        default=DEFAULT_TRACK_VALIDITY_MONTHS,
        validators=[
            InputRequired(message="a validity is required"),
            NumberRange(
                min=MIN_VALIDITY_MONTHS,
                max=MAX_VALIDITY_MONTHS,
                message=(
                    f"validity must be from {MIN_VALIDITY_MONTHS} to {MAX_VALIDITY_MONTHS} months"
                ),
            ),
        ],
    )
    prerequisites = ListedChoices(
        "Prerequisites",
        choices=[],
        not_listed="choose prerequisites among the catalog's credentials",
        description="Credentials that must be valid on the attempt date. Ctrl/Cmd for several.",
    )
    experience_months = IntegerField(
        "Documented experience required (months)",
        default=0,
        validators=[
            InputRequired(message="experience is required (0 or more months)"),
            NumberRange(
                min=0,
                max=MAX_REQUIRED_EXPERIENCE_MONTHS,
                message=f"experience must be from 0 to {MAX_REQUIRED_EXPERIENCE_MONTHS} months",
            ),
        ],
    )
    retake_wait_days = IntegerField(
        "Retake wait (days)",
        default=DEFAULT_RETAKE_WAIT_DAYS,
        validators=[
            InputRequired(message="a retake wait is required (0 or more days)"),
            NumberRange(
                min=0,
                max=MAX_RETAKE_WAIT_DAYS,
                message=f"retake wait must be from 0 to {MAX_RETAKE_WAIT_DAYS} days",
            ),
        ],
    )
    courses = TextAreaField(
        "Courses",
        validators=[DataRequired(message="list at least one course")],
        description=_l(
            "One per line, in path order: CODE | Title | hours, optionally followed by"
            " | Spanish title"
        ),
        render_kw={"rows": 5, "placeholder": "ACME-101 | Our cluster runbook | 6"},
    )
    path_code = StringField(
        "Learning path code",
        validators=[
            DataRequired(message="a path code is required"),
            Length(max=MAX_CODE_LENGTH),
        ],
    )
    path_name = StringField(
        "Learning path name",
        validators=[
            DataRequired(message="a path name is required"),
            Length(max=MAX_TITLE_LENGTH),
        ],
    )
    path_name_es = StringField(
        _l("Learning path name in Spanish"),
        validators=[Optional(), Length(max=MAX_TITLE_LENGTH)],
        description=_l("Optional: without it, Spanish readers see the path name above."),
    )
    target_months = IntegerField(
        "Target duration (months)",
        default=DEFAULT_TARGET_MONTHS,
        validators=[
            InputRequired(message="a target duration is required"),
            NumberRange(
                min=MIN_TARGET_MONTHS,
                max=MAX_TARGET_MONTHS,
                message=(
                    f"target duration must be from {MIN_TARGET_MONTHS} to {MAX_TARGET_MONTHS} "
                    "months"
                ),
            ),
        ],
    )


class ImportForm(FlaskForm):
    kind = ListedChoice(
        "What the file holds",
        choices=[],
        validators=[InputRequired(message="choose what the file holds")],
        not_listed="choose one of the listed kinds of file",
    )
    file = FileField(
        "CSV file (UTF-8)",
        validators=[FileRequired(message="choose a CSV file to import")],
        render_kw={"accept": ".csv,text/csv"},
    )


class OutboxFilterForm(FlaskForm):
    """A GET form: which outbox rows to list."""

    class Meta:
        csrf = False

    status = ListedChoice(
        "Status",
        choices=choices([("", "any status"), *((s, s) for s in NOTIFICATION_STATUSES)]),
        default="",
        not_listed=f"status must be one of {', '.join(NOTIFICATION_STATUSES)}",
    )
    kind = ListedChoice(
        "Kind",
        choices=choices([("", "any kind"), *((k, k) for k in NOTIFICATION_KINDS)]),
        default="",
        not_listed=f"kind must be one of {', '.join(NOTIFICATION_KINDS)}",
    )
    q = StringField(
        "Recipient or subject contains",
        validators=[
            Optional(),
            Length(
                max=MAX_OUTBOX_SEARCH_LENGTH,
                message=f"search at most {MAX_OUTBOX_SEARCH_LENGTH} characters",
            ),
        ],
        render_kw={"type": "search"},
    )
