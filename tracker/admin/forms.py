"""Admin forms: people, teams, the internal certification track and CSV imports.

Choices are filled by the views from the database; a value outside them is
refused with a message naming the rule, not WTForms' generic one.
"""

from __future__ import annotations

from flask_babel import gettext
from flask_babel import lazy_gettext as _l
from flask_babel.speaklater import LazyString
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import (
    BooleanField,
    HiddenField,
    PasswordField,
    SelectMultipleField,
    StringField,
    TextAreaField,
)
from wtforms.fields.choices import SelectChoice
from wtforms.validators import Email, Optional, ValidationError

from tracker.audit.rules import ACCOUNT_EVENT_KINDS, ACCOUNT_EVENT_METHODS, MAX_EVENT_EMAIL_LENGTH
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
from tracker.forms import (
    DataRequired,
    DayField,
    InputRequired,
    Length,
    ListedChoice,
    WholeField,
    WholeRange,
    choices,
    optional_id,
    stripped,
)
from tracker.people.forms import LANGUAGE_NAMES, NOT_A_LANGUAGE
from tracker.people.rules import (
    ACCESS_ROLE_RULE,
    ACCESS_ROLES,
    BROWSER_LOCALE,
    EMAIL_RULE,
    GPUS_RULE,
    LOCALES,
    MAX_EMAIL_LENGTH,
    MAX_EXPERIENCE_MONTHS,
    MAX_GPUS,
    MAX_NAME_LENGTH,
    MAX_PASSWORD_LENGTH,
    MAX_TEAM_NAME_LENGTH,
    MIN_PASSWORD_LENGTH,
)
from tracker.people.views import ACCESS_ROLE_LABELS
from tracker.reminders.rules import (
    MAX_OUTBOX_SEARCH_LENGTH,
    NOTIFICATION_KINDS,
    NOTIFICATION_STATUSES,
)
from tracker.web.language import localized

# The outbox's values named in the page's language.
NOTIFICATION_STATUS_NAMES = {
    "pending": _l("pending"),
    "sending": _l("sending"),
    "sent": _l("sent"),
    "failed": _l("failed"),
    "skipped": _l("skipped"),
}
NOTIFICATION_KIND_NAMES = {
    "reminder": _l("reminder"),
    "expired": _l("expired"),
    "escalation": _l("escalation"),
    "digest": _l("digest"),
    "copy": _l("copy"),
}


def rule(message: str) -> LazyString:
    """Return a domain rule's message, shown in the language of the page that shows it."""
    return LazyString(localized, message)


def _not_one(not_listed: object):
    """Return the refusal of values outside a multiple select's choices, naming them."""

    def message(count: int) -> str:
        # WTForms fills %(value)s with the refused values.
        return gettext("%(rule)s ('%(value)s' is not one)", rule=str(not_listed), value="%(value)s")

    return message


NOT_LISTED = _l("choose only listed options")


def ListedChoices(label, not_listed=NOT_LISTED, **kw) -> SelectMultipleField:
    """A multiple select whose values must all be among its choices."""
    return SelectMultipleField(
        label,
        invalid_value_message=not_listed,
        invalid_choice_message=_not_one(not_listed),
        **kw,
    )


def _access_role():
    return ListedChoice(
        _l("Access role"),
        choices=choices((r, ACCESS_ROLE_LABELS[r]) for r in ACCESS_ROLES),
        validators=[InputRequired(message=_l("an access role is required"))],
        not_listed=rule(ACCESS_ROLE_RULE),
        description=_l("engineer: own records; manager: also their reports; admin: everything."),
    )


def _job_roles():
    return ListedChoices(
        _l("Job roles"),
        choices=[],
        not_listed=_l("choose job roles from the list"),
        description=_l("Hold Ctrl (or Cmd) to choose several."),
    )


def _level():
    return ListedChoice(
        _l("Level"),
        coerce=optional_id,
        choices=[],
        validators=[InputRequired(message=_l("a level is required"))],
        not_listed=rule(LEVEL_RULE),
    )


def _team():
    return ListedChoice(
        _l("Team"), coerce=optional_id, choices=[], not_listed=_l("choose one of the listed teams")
    )


def _manager():
    return ListedChoice(
        _l("Manager"),
        coerce=optional_id,
        choices=[],
        not_listed=_l("choose one of the listed managers (managers and admins)"),
    )


def _hired_on():
    return DayField(_l("Hire date"), validators=[Optional()])


def _experience():
    return WholeField(
        _l("Experience before joining (months)"),
        default=0,
        validators=[
            InputRequired(message=_l("experience is required (0 or more months)")),
            WholeRange(
                min=0,
                max=MAX_EXPERIENCE_MONTHS,
                message=_l("experience must be from %(min)d to %(max)d months"),
            ),
        ],
    )


def _locale():
    """The person's interface language: one of LOCALES, or the browser's choice."""
    return ListedChoice(
        _l("Language"),
        not_listed=NOT_A_LANGUAGE,
        default=BROWSER_LOCALE,
        choices=[
            SelectChoice(value=BROWSER_LOCALE, label=_l("As their browser asks")),
            *(
                SelectChoice(value=code, label=LANGUAGE_NAMES[code], render_kw={"lang": code})
                for code in LOCALES
            ),
        ],
    )


def _name() -> StringField:
    return StringField(
        _l("Name"),
        validators=[
            DataRequired(message=_l("a name is required")),
            Length(max=MAX_NAME_LENGTH, message=_l("name must be at most %(max)d characters")),
        ],
    )


def _email() -> StringField:
    return StringField(
        _l("Email"),
        validators=[
            DataRequired(message=_l("an email is required")),
            Length(max=MAX_EMAIL_LENGTH, message=_l("email must be at most %(max)d characters")),
            Email(message=rule(EMAIL_RULE)),
        ],
        filters=[stripped],
        render_kw={"autocomplete": "off"},
    )


class PersonAddForm(FlaskForm):
    name = _name()
    email = _email()
    access_role = _access_role()
    job_roles = _job_roles()
    level = _level()
    team = _team()
    manager = _manager()
    hired_on = _hired_on()
    experience_months = _experience()
    locale = _locale()
    password = PasswordField(
        _l("Initial password"),
        validators=[
            DataRequired(message=_l("an initial password is required")),
            Length(
                min=MIN_PASSWORD_LENGTH,
                max=MAX_PASSWORD_LENGTH,
                message=_l("password must be %(min)d to %(max)d characters"),
            ),
        ],
        render_kw={"autocomplete": "new-password"},
    )


class PersonEditForm(FlaskForm):
    # Their sign-in: a typo made when adding them is fixed here (a provisioning
    # identity provider sends its own at its next sync).
    name = _name()
    email = _email()
    access_role = _access_role()
    job_roles = _job_roles()
    level = _level()
    team = _team()
    manager = _manager()
    hired_on = _hired_on()
    experience_months = _experience()
    locale = _locale()
    # The person as the page drew them (tracker.web.versioned).
    version = HiddenField()


class ConfirmForm(FlaskForm):
    """A button that posts with its CSRF token (deactivate, reactivate)."""


class TeamForm(FlaskForm):
    name = StringField(
        _l("Name"),
        validators=[
            DataRequired(message=_l("a name is required")),
            Length(max=MAX_TEAM_NAME_LENGTH, message=_l("name must be at most %(max)d characters")),
        ],
    )
    gpus = WholeField(
        _l("Fleet size (GPUs)"),
        validators=[
            InputRequired(message=_l("a fleet size is required (0 or more GPUs)")),
            WholeRange(min=0, max=MAX_GPUS, message=rule(GPUS_RULE)),
        ],
    )
    manager = _manager()


class TeamEditForm(TeamForm):
    # The team as the page drew it (tracker.web.versioned).
    version = HiddenField()


class TrackForm(FlaskForm):
    exam_code = StringField(
        _l("Exam code"),
        validators=[
            DataRequired(message=_l("an exam code is required")),
            Length(max=MAX_CODE_LENGTH),
        ],
        description=_l("New to the whole catalog, e.g. ACME-GPU-OPS."),
    )
    exam_name = StringField(
        _l("Exam name"),
        validators=[
            DataRequired(message=_l("an exam name is required")),
            Length(max=MAX_TITLE_LENGTH),
        ],
    )
    exam_name_es = StringField(
        _l("Exam name in Spanish"),
        validators=[Optional(), Length(max=MAX_TITLE_LENGTH)],
        description=_l("Optional: without it, Spanish readers see the exam name above."),
    )
    validity_months = WholeField(
        _l("Validity (months)"),
        default=DEFAULT_TRACK_VALIDITY_MONTHS,
        validators=[
            InputRequired(message=_l("a validity is required")),
            WholeRange(
                min=MIN_VALIDITY_MONTHS,
                max=MAX_VALIDITY_MONTHS,
                message=_l("validity must be from %(min)d to %(max)d months"),
            ),
        ],
    )
    prerequisites = ListedChoices(
        _l("Prerequisites"),
        choices=[],
        not_listed=_l("choose prerequisites among the catalog's credentials"),
        description=_l("Credentials that must be valid on the attempt date. Ctrl/Cmd for several."),
    )
    experience_months = WholeField(
        _l("Documented experience required (months)"),
        default=0,
        validators=[
            InputRequired(message=_l("experience is required (0 or more months)")),
            WholeRange(
                min=0,
                max=MAX_REQUIRED_EXPERIENCE_MONTHS,
                message=_l("experience must be from %(min)d to %(max)d months"),
            ),
        ],
    )
    retake_wait_days = WholeField(
        _l("Retake wait (days)"),
        default=DEFAULT_RETAKE_WAIT_DAYS,
        validators=[
            InputRequired(message=_l("a retake wait is required (0 or more days)")),
            WholeRange(
                min=0,
                max=MAX_RETAKE_WAIT_DAYS,
                message=_l("retake wait must be from %(min)d to %(max)d days"),
            ),
        ],
    )
    courses = TextAreaField(
        _l("Courses"),
        validators=[DataRequired(message=_l("list at least one course"))],
        description=_l(
            "One per line, in path order: CODE | Title | hours, optionally followed by"
            " | Spanish title"
        ),
        render_kw={"rows": 5, "placeholder": "ACME-101 | Our cluster runbook | 6"},
    )
    path_code = StringField(
        _l("Learning path code"),
        validators=[
            DataRequired(message=_l("a path code is required")),
            Length(max=MAX_CODE_LENGTH),
        ],
    )
    path_name = StringField(
        _l("Learning path name"),
        validators=[
            DataRequired(message=_l("a path name is required")),
            Length(max=MAX_TITLE_LENGTH),
        ],
    )
    path_name_es = StringField(
        _l("Learning path name in Spanish"),
        validators=[Optional(), Length(max=MAX_TITLE_LENGTH)],
        description=_l("Optional: without it, Spanish readers see the path name above."),
    )
    target_months = WholeField(
        _l("Target duration (months)"),
        default=DEFAULT_TARGET_MONTHS,
        validators=[
            InputRequired(message=_l("a target duration is required")),
            WholeRange(
                min=MIN_TARGET_MONTHS,
                max=MAX_TARGET_MONTHS,
                message=_l("target duration must be from %(min)d to %(max)d months"),
            ),
        ],
    )


class ImportForm(FlaskForm):
    kind = ListedChoice(
        _l("What the file holds"),
        choices=[],
        validators=[InputRequired(message=_l("choose what the file holds"))],
        not_listed=_l("choose one of the listed kinds of file"),
    )
    file = FileField(
        _l("CSV file (UTF-8)"),
        validators=[FileRequired(message=_l("choose a CSV file to import"))],
        render_kw={"accept": ".csv,text/csv"},
    )
    check_only = BooleanField(_l("Check only: every row as an import checks it, nothing saved"))


class OutboxFilterForm(FlaskForm):
    """A GET form: which outbox rows to list."""

    class Meta:
        csrf = False

    status = ListedChoice(
        _l("Status"),
        choices=choices(
            [
                ("", _l("any status")),
                *((s, NOTIFICATION_STATUS_NAMES[s]) for s in NOTIFICATION_STATUSES),
            ]
        ),
        default="",
        not_listed=_l("status must be one of %(values)s", values=", ".join(NOTIFICATION_STATUSES)),
    )
    kind = ListedChoice(
        _l("Kind"),
        choices=choices(
            [("", _l("any kind")), *((k, NOTIFICATION_KIND_NAMES[k]) for k in NOTIFICATION_KINDS)]
        ),
        default="",
        not_listed=_l("kind must be one of %(values)s", values=", ".join(NOTIFICATION_KINDS)),
    )
    q = StringField(
        _l("Recipient or subject contains"),
        validators=[
            Optional(),
            Length(
                max=MAX_OUTBOX_SEARCH_LENGTH,
                message=_l("search at most %(max)d characters"),
            ),
        ],
        render_kw={"type": "search"},
    )


class AccountTrailFilterForm(FlaskForm):
    """A GET form: which events of the account trail to list (and download)."""

    class Meta:
        csrf = False

    q = StringField(
        _l("Person or email contains"),
        validators=[
            Optional(),
            Length(max=MAX_EVENT_EMAIL_LENGTH, message=_l("search at most %(max)d characters")),
        ],
        render_kw={"type": "search"},
    )
    kind = ListedChoice(
        _l("What happened"),
        choices=choices(
            [("", _l("anything")), *((k, rule(v)) for k, v in ACCOUNT_EVENT_KINDS.items())]
        ),
        default="",
        not_listed=_l("choose one of the listed events"),
    )
    method = ListedChoice(
        _l("How"),
        choices=choices(
            [("", _l("any way")), *((k, rule(v)) for k, v in ACCOUNT_EVENT_METHODS.items())]
        ),
        default="",
        not_listed=_l("choose one of the listed ways"),
    )
    since = DayField(_l("From (UTC day)"), validators=[Optional()])
    until = DayField(_l("To (UTC day)"), validators=[Optional()])

    def validate_until(self, field: DayField) -> None:
        if field.data and self.since.data and field.data < self.since.data:
            raise ValidationError(gettext("the last day must not be before the first"))
