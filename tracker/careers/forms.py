"""Forms for levels, evidence, proficiency, apprenticeships and bonuses.

Choices are filled by the views from the database; a value outside them is
refused with a message naming the rule (its limits from tracker.careers.rules);
the services check the rules again before anything is written.
"""

from __future__ import annotations

from decimal import Decimal

from flask_wtf import FlaskForm
from wtforms import BooleanField, DateField, DecimalField, IntegerField, StringField, TextAreaField
from wtforms.validators import (
    DataRequired,
    InputRequired,
    Length,
    NumberRange,
    Optional,
    Regexp,
)

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
from tracker.catalog.rules import DECIMAL_PLACES, HUNDREDTH, LEVEL_RULE
from tracker.forms import DecimalRange, ListedChoice, choices, optional_id

QUARTER_MESSAGE = "quarter must be written YYYY-Qn, Q1 to Q4 (e.g. 2026-Q4)"


class LevelForm(FlaskForm):
    level = ListedChoice(
        "New level",
        coerce=optional_id,
        choices=[],
        validators=[InputRequired(message="a level is required")],
        not_listed=LEVEL_RULE,
    )


class EvidenceForm(FlaskForm):
    kind = ListedChoice(
        "Kind",
        choices=choices((k, EVIDENCE_LABELS[k]) for k in EVIDENCE_KINDS),
        validators=[InputRequired(message="a kind is required")],
        not_listed="kind must be a patent, a publication or a deployment led",
    )
    title = StringField(
        "Title",
        validators=[
            DataRequired(message="a title is required"),
            Length(
                max=MAX_EVIDENCE_TITLE,
                message=f"title must be at most {MAX_EVIDENCE_TITLE} characters",
            ),
        ],
        description="The patent, the publication or the deployment (e.g. 2,048-GPU cluster).",
    )
    occurred_on = DateField("Date", validators=[InputRequired(message="a date is required")])
    note = TextAreaField(
        "Note",
        validators=[
            Optional(),
            Length(
                max=MAX_EVIDENCE_NOTE,
                message=f"note must be at most {MAX_EVIDENCE_NOTE} characters",
            ),
        ],
        description="A link, a patent number, the role you had.",
    )


class SkillForm(FlaskForm):
    speciality = ListedChoice(
        "Speciality",
        choices=[],
        validators=[InputRequired(message="a speciality is required")],
        not_listed="choose one of the listed specialities",
    )
    proficiency = ListedChoice(
        "Proficiency",
        coerce=optional_id,
        choices=choices((n, f"{n} · {label}") for n, label in PROFICIENCY_LABELS.items()),
        validators=[InputRequired(message="a proficiency is required")],
        not_listed=f"proficiency must be {PROFICIENCY_RANGE}",
    )


class ConfirmForm(FlaskForm):
    """A button that posts with its CSRF token."""


class ApprenticeshipForm(FlaskForm):
    junior = ListedChoice(
        "Junior",
        coerce=optional_id,
        choices=[],
        validators=[InputRequired(message="a junior is required")],
        not_listed="choose one of your people",
    )
    senior = ListedChoice(
        "Senior",
        coerce=optional_id,
        choices=[],
        validators=[InputRequired(message="a senior is required")],
        not_listed="choose one of your people (or yourself)",
    )
    path = ListedChoice(
        "Learning path",
        coerce=optional_id,
        choices=[],
        not_listed="choose one of the listed paths",
        description="Left empty: the junior's first unfinished path.",
    )
    starts_on = DateField("Starts on", validators=[InputRequired(message="a date is required")])
    months = IntegerField(
        "Months",
        default=DEFAULT_APPRENTICESHIP_MONTHS,
        validators=[
            InputRequired(message="a number of months is required"),
            NumberRange(
                min=MIN_APPRENTICESHIP_MONTHS,
                max=MAX_APPRENTICESHIP_MONTHS,
                message=f"months must be from {MIN_APPRENTICESHIP_MONTHS} "
                f"to {MAX_APPRENTICESHIP_MONTHS}",
            ),
        ],
        description=f"{USUAL_APPRENTICESHIP_MONTHS} months is usual.",
    )
    note = StringField(
        "Note",
        validators=[
            Optional(),
            Length(
                max=MAX_APPRENTICESHIP_NOTE_LENGTH,
                message=f"note must be at most {MAX_APPRENTICESHIP_NOTE_LENGTH} characters",
            ),
        ],
    )


class BonusForm(FlaskForm):
    credential = ListedChoice(
        "Certification",
        choices=[],
        validators=[InputRequired(message="a certification is required")],
        not_listed="choose one of the listed certifications",
    )
    amount = DecimalField(
        "Amount (USD)",
        places=None,
        validators=[
            InputRequired(message="an amount is required"),
            DecimalRange("amount", places=DECIMAL_PLACES, minimum=Decimal(0), maximum=MAX_BONUS),
        ],
        render_kw={"step": str(HUNDREDTH), "min": "0", "inputmode": "decimal"},
    )
    renewals_earn = BooleanField("A renewal earns the bonus too")
    effective_on = DateField(
        "Effective from",
        validators=[InputRequired(message="effective from is required (YYYY-MM-DD)")],
        description="Certifications passed from this day on earn this amount; those passed "
        "earlier keep the amount in effect then. Not after today.",
    )


class QuarterForm(FlaskForm):
    """A GET form: the quarter of the ledger."""

    class Meta:
        csrf = False

    quarter = StringField(
        "Quarter",
        validators=[
            Optional(),
            Regexp(f"^{QUARTER_PATTERN}$", message=QUARTER_MESSAGE),
        ],
        description="YYYY-Qn, e.g. 2026-Q4",
    )
