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

from tracker.forms import DecimalRange
from tracker.progress.services import MAX_NOTE_LENGTH


class HoursForm(FlaskForm):
    course = SelectField("Course", coerce=int, validators=[InputRequired()])
    logged_on = DateField("Date", validators=[InputRequired(message="a date is required")])
    hours = DecimalField(
        "Hours",
        places=None,
        validators=[
            InputRequired(message="hours are required"),
            DecimalRange("hours", above=Decimal(0), maximum=Decimal(24)),
        ],
        render_kw={"step": "0.25", "min": "0.25", "max": "24", "inputmode": "decimal"},
    )
    note = StringField("Note", validators=[Optional(), Length(max=MAX_NOTE_LENGTH)])


class AttemptForm(FlaskForm):
    engineer = SelectField("Engineer", coerce=int, validators=[InputRequired()])
    exam = SelectField("Exam", coerce=int, validators=[InputRequired()])
    attempted_on = DateField("Date", validators=[InputRequired(message="a date is required")])
    score = IntegerField(
        "Score (%)",
        validators=[
            InputRequired(message="a score is required"),
            NumberRange(min=0, max=100, message="score must be from 0 to 100"),
        ],
    )
    passed = BooleanField("Passed")
    cost = DecimalField(
        "Cost (USD)",
        places=None,
        validators=[
            Optional(),
            DecimalRange("cost", minimum=Decimal(0), maximum=Decimal(1_000_000)),
        ],
    )
    voucher_code = StringField("Voucher code", validators=[Optional(), Length(max=80)])
    proctoring = StringField(
        "Proctoring",
        validators=[Optional(), Length(max=200)],
        description="e.g. online, remotely proctored; test centre and city",
    )
    note = StringField("Note", validators=[Optional(), Length(max=MAX_NOTE_LENGTH)])


class CredentialForm(FlaskForm):
    engineer = SelectField("Engineer", coerce=int, validators=[InputRequired()])
    credential = SelectField(
        "Credential",
        coerce=int,
        validators=[InputRequired()],
        description="Choose “Other” and fill in name and issuer for one the catalog lacks.",
    )
    name = StringField("Name (other credential)", validators=[Optional(), Length(max=200)])
    issuer = StringField("Issuer (other credential)", validators=[Optional(), Length(max=120)])
    issued_on = DateField("Issued on", validators=[InputRequired(message="a date is required")])
    expires_on = DateField("Expires on", validators=[Optional()])
    evidence = TextAreaField(
        "Evidence",
        validators=[DataRequired(message="evidence is required"), Length(max=2000)],
        description="A certificate number, a verification link or a note.",
    )


class PlanForm(FlaskForm):
    exam = SelectField("Exam", coerce=int, validators=[InputRequired()])
    planned_on = DateField("Planned date", validators=[InputRequired(message="a date is required")])
