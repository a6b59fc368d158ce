"""Forms for readiness queries, plans and the ROI calculator."""

from __future__ import annotations

import datetime as dt

from flask_wtf import FlaskForm
from wtforms import DateField, FieldList, FormField, IntegerField, StringField
from wtforms.validators import InputRequired, Length, NumberRange, Optional, ValidationError

FIRST_DAY = dt.date(1970, 1, 1)
LAST_DAY = dt.date(2999, 12, 31)
MAX_ROI_LINES = 20


def within_calendar(form: FlaskForm, field: DateField) -> None:
    """Keep dates where a 12-month forecast from them still fits the calendar."""
    if field.data is not None and not FIRST_DAY <= field.data <= LAST_DAY:
        raise ValidationError(f"date must be from {FIRST_DAY} to {LAST_DAY}")


class ReadinessQueryForm(FlaskForm):
    """A GET form: a fleet size and a date to judge readiness on."""

    class Meta:
        csrf = False

    gpus = IntegerField(
        "Fleet size (GPUs)",
        validators=[
            Optional(),
            NumberRange(min=0, max=10_000_000, message="GPUs must be from 0 to 10,000,000"),
        ],
    )
    on = DateField("On date", validators=[Optional(), within_calendar])


class PlanQueryForm(FlaskForm):
    """A GET form: the fleet to reach and by when."""

    class Meta:
        csrf = False

    gpus = IntegerField(
        "Target fleet size (GPUs)",
        validators=[
            InputRequired(message="a target fleet size is required"),
            NumberRange(min=0, max=10_000_000, message="GPUs must be from 0 to 10,000,000"),
        ],
    )
    target = DateField(
        "Target date",
        validators=[InputRequired(message="a target date is required"), within_calendar],
    )


class RoiLineForm(FlaskForm):
    class Meta:
        csrf = False

    label = StringField("Line", validators=[InputRequired(), Length(max=200)])
    amount = IntegerField(
        "Amount (USD)",
        validators=[
            InputRequired(message="an amount is required"),
            NumberRange(
                min=0, max=10_000_000_000, message="amount must be from 0 to 10,000,000,000"
            ),
        ],
    )


class RoiForm(FlaskForm):
    investment = FieldList(FormField(RoiLineForm), min_entries=1, max_entries=MAX_ROI_LINES)
    returns = FieldList(FormField(RoiLineForm), min_entries=1, max_entries=MAX_ROI_LINES)
