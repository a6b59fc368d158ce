"""Forms for levels, evidence, proficiency, apprenticeships and bonuses.

Choices are filled by the views from the database; a value outside them is
refused with a message naming the rule (its limits from tracker.careers.rules);
the services check the rules again before anything is written.
"""

from __future__ import annotations

from decimal import Decimal

from flask_babel import lazy_gettext as _l
from flask_babel.speaklater import LazyString
from flask_wtf import FlaskForm
from wtforms import BooleanField, StringField, TextAreaField
from wtforms.validators import Optional, Regexp

from tracker.careers.rules import (
    DEFAULT_APPRENTICESHIP_MONTHS,
    EVIDENCE_KINDS,
    EVIDENCE_LABELS,
    MAX_APPRENTICESHIP_MONTHS,
    MAX_APPRENTICESHIP_NOTE_LENGTH,
    MAX_BONUS,
    MAX_EVIDENCE_NOTE,
    MAX_EVIDENCE_TITLE,
    MIN_APPRENTICESHIP_MONTHS,
    PROFICIENCY_LABELS,
    PROFICIENCY_RANGE,
    QUARTER_PATTERN,
    USUAL_APPRENTICESHIP_MONTHS,
)
from tracker.catalog.rules import DECIMAL_PLACES, LEVEL_RULE
from tracker.forms import (
    DataRequired,
    DayField,
    DecimalRange,
    InputRequired,
    Length,
    ListedChoice,
    LocalDecimalField,
    WholeField,
    WholeRange,
    choices,
    optional_id,
)
from tracker.i18n import msg
from tracker.web.language import lazy_localized, localized

QUARTER_MESSAGE = _l("quarter must be written YYYY-Qn, Q1 to Q4 (e.g. 2026-Q4)")


def _numbered(number: int, label: str) -> LazyString:
    """Label a choice "2 · working", its words in the page's language."""
    return LazyString(lambda: f"{number} · {localized(label)}")


class LevelForm(FlaskForm):
    level = ListedChoice(
        _l("New level"),
        coerce=optional_id,
        choices=[],
        validators=[InputRequired(message=_l("a level is required"))],
        not_listed=lazy_localized(LEVEL_RULE),
    )


class EvidenceForm(FlaskForm):
    kind = ListedChoice(
        _l("Kind"),
        choices=choices((k, lazy_localized(EVIDENCE_LABELS[k])) for k in EVIDENCE_KINDS),
        validators=[InputRequired(message=_l("a kind is required"))],
        not_listed=_l("kind must be a patent, a publication or a deployment led"),
    )
    title = StringField(
        _l("Title"),
        validators=[
            DataRequired(message=_l("a title is required")),
            Length(
                max=MAX_EVIDENCE_TITLE,
                message=_l("title must be at most %(max)s characters"),
            ),
        ],
        description=_l("The patent, the publication or the deployment (e.g. 2,048-GPU cluster)."),
    )
    occurred_on = DayField(_l("Date"), validators=[InputRequired(message=_l("a date is required"))])
    note = TextAreaField(
        _l("Note"),
        validators=[
            Optional(),
            Length(
                max=MAX_EVIDENCE_NOTE,
                message=_l("note must be at most %(max)s characters"),
            ),
        ],
        description=_l("A link, a patent number, the role you had."),
    )


class SkillForm(FlaskForm):
    speciality = ListedChoice(
        _l("Speciality"),
        choices=[],
        validators=[InputRequired(message=_l("a speciality is required"))],
        not_listed=_l("choose one of the listed specialities"),
    )
    proficiency = ListedChoice(
        _l("Proficiency"),
        coerce=optional_id,
        choices=choices((n, _numbered(n, label)) for n, label in PROFICIENCY_LABELS.items()),
        validators=[InputRequired(message=_l("a proficiency is required"))],
        not_listed=lazy_localized(msg("proficiency must be %(range)s", range=PROFICIENCY_RANGE)),
    )


class ConfirmForm(FlaskForm):
    """A button that posts with its CSRF token."""


class ApprenticeshipForm(FlaskForm):
    junior = ListedChoice(
        _l("Junior"),
        coerce=optional_id,
        choices=[],
        validators=[InputRequired(message=_l("a junior is required"))],
        not_listed=_l("choose one of your people"),
    )
    senior = ListedChoice(
        _l("Senior"),
        coerce=optional_id,
        choices=[],
        validators=[InputRequired(message=_l("a senior is required"))],
        not_listed=_l("choose one of your people (or yourself)"),
    )
    path = ListedChoice(
        _l("Learning path"),
        coerce=optional_id,
        choices=[],
        not_listed=_l("choose one of the listed paths"),
        description=_l("Left empty: the junior's first unfinished path."),
    )
    starts_on = DayField(
        _l("Starts on"), validators=[InputRequired(message=_l("a date is required"))]
    )
    months = WholeField(
        _l("Months"),
        default=DEFAULT_APPRENTICESHIP_MONTHS,
        validators=[
            InputRequired(message=_l("a number of months is required")),
            WholeRange(
                min=MIN_APPRENTICESHIP_MONTHS,
                max=MAX_APPRENTICESHIP_MONTHS,
                message=_l("months must be from %(min)d to %(max)d"),
            ),
        ],
        description=_l("%(months)s months is usual.", months=USUAL_APPRENTICESHIP_MONTHS),
    )
    note = StringField(
        _l("Note"),
        validators=[
            Optional(),
            Length(
                max=MAX_APPRENTICESHIP_NOTE_LENGTH,
                message=_l("note must be at most %(max)s characters"),
            ),
        ],
    )


class BonusForm(FlaskForm):
    credential = ListedChoice(
        _l("Certification"),
        choices=[],
        validators=[InputRequired(message=_l("a certification is required"))],
        not_listed=_l("choose one of the listed certifications"),
    )
    amount = LocalDecimalField(
        _l("Amount (USD)"),
        places=None,
        validators=[
            InputRequired(message=_l("an amount is required")),
            DecimalRange(places=DECIMAL_PLACES, minimum=Decimal(0), maximum=MAX_BONUS),
        ],
    )
    renewals_earn = BooleanField(_l("A renewal earns the bonus too"))
    verified_only = BooleanField(
        _l("Only a verified credential earns it (proved by its issuer's badge)")
    )
    effective_on = DayField(
        _l("Effective from"),
        validators=[InputRequired(message=_l("effective from is required (YYYY-MM-DD)"))],
        description=_l(
            "Certifications passed from this day on earn this amount; those passed "
            "earlier keep the amount in effect then. Not after today."
        ),
    )


class QuarterForm(FlaskForm):
    """A GET form: the quarter of the ledger."""

    class Meta:
        csrf = False

    quarter = StringField(
        _l("Quarter"),
        validators=[
            Optional(),
            Regexp(f"^{QUARTER_PATTERN}$", message=QUARTER_MESSAGE),
        ],
        description=_l("YYYY-Qn, e.g. 2026-Q4"),
    )
