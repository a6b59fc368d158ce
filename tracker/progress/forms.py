"""Forms for hours, exam attempts, credentials and exam plans."""

from __future__ import annotations

from decimal import Decimal

from flask_wtf import FlaskForm
from wtforms import (
    BooleanField,
    DateField,
    DecimalField,
    IntegerField,
    SelectField,
    StringField,
    TextAreaField,
)
from wtforms.validators import (
    DataRequired,
    InputRequired,
    Length,
    NumberRange,
    Optional,
)

from tracker.catalog.rules import DECIMAL_PLACES
from tracker.forms import ChosenSelect, DecimalRange
from tracker.progress.rules import (
    HOURS_FORM_STEP,
    HOURS_PER_DAY,
    MAX_ATTEMPT_COST,
    MAX_CREDENTIAL_NAME_LENGTH,
    MAX_EVIDENCE_LENGTH,
    MAX_ISSUER_LENGTH,
    MAX_NOTE_LENGTH,
    MAX_PROCTORING_LENGTH,
    MAX_SCORE,
    MAX_VOUCHER_CODE_LENGTH,
    MIN_SCORE,
)


class HoursForm(FlaskForm):
    course = SelectField("Course", coerce=int, validators=[InputRequired()], widget=ChosenSelect())
    logged_on = DateField("Date", validators=[InputRequired(message="a date is required")])
    hours = DecimalField(
        "Hours",
        places=None,
        validators=[
            InputRequired(message="hours are required"),
            DecimalRange("hours", places=DECIMAL_PLACES, above=Decimal(0), maximum=HOURS_PER_DAY),
        ],
        render_kw={
            "step": str(HOURS_FORM_STEP),
            "min": str(HOURS_FORM_STEP),
            "max": str(HOURS_PER_DAY),
            "inputmode": "decimal",
        },
    )
    note = StringField("Note", validators=[Optional(), Length(max=MAX_NOTE_LENGTH)])


class AttemptForm(FlaskForm):
    engineer = SelectField(
        "Engineer", coerce=int, validators=[InputRequired()], widget=ChosenSelect()
    )
    exam = SelectField("Exam", coerce=int, validators=[InputRequired()], widget=ChosenSelect())
    attempted_on = DateField("Date", validators=[InputRequired(message="a date is required")])
    score = IntegerField(
        "Score (%)",
        validators=[
            InputRequired(message="a score is required"),
            NumberRange(
                min=MIN_SCORE,
                max=MAX_SCORE,
                message=f"score must be from {MIN_SCORE} to {MAX_SCORE}",
            ),
        ],
    )
    passed = BooleanField("Passed")
    cost = DecimalField(
        "Cost (USD)",
        places=None,
        validators=[
            Optional(),
            DecimalRange(
                "cost", places=DECIMAL_PLACES, minimum=Decimal(0), maximum=MAX_ATTEMPT_COST
            ),
        ],
    )
    voucher_code = StringField(
        "Voucher code", validators=[Optional(), Length(max=MAX_VOUCHER_CODE_LENGTH)]
    )
    proctoring = StringField(
        "Proctoring",
        validators=[Optional(), Length(max=MAX_PROCTORING_LENGTH)],
        description="e.g. online, remotely proctored; test centre and city",
    )
    note = StringField("Note", validators=[Optional(), Length(max=MAX_NOTE_LENGTH)])


class CredentialForm(FlaskForm):
    engineer = SelectField(
        "Engineer", coerce=int, validators=[InputRequired()], widget=ChosenSelect()
    )
    credential = SelectField(
        "Credential",
        coerce=int,
        validators=[InputRequired()],
        widget=ChosenSelect(),
        description="Choose “Other” and fill in name and issuer for one the catalog lacks.",
    )
    name = StringField(
        "Name (other credential)",
        validators=[Optional(), Length(max=MAX_CREDENTIAL_NAME_LENGTH)],
    )
    issuer = StringField(
        "Issuer (other credential)", validators=[Optional(), Length(max=MAX_ISSUER_LENGTH)]
    )
    issued_on = DateField("Issued on", validators=[InputRequired(message="a date is required")])
    expires_on = DateField("Expires on", validators=[Optional()])
    evidence = TextAreaField(
        "Evidence",
        validators=[
            DataRequired(message="evidence is required"),
            Length(max=MAX_EVIDENCE_LENGTH),
        ],
        description="A certificate number, a verification link or a note.",
    )


class PlanForm(FlaskForm):
    exam = SelectField("Exam", coerce=int, validators=[InputRequired()], widget=ChosenSelect())
    planned_on = DateField("Planned date", validators=[InputRequired(message="a date is required")])
