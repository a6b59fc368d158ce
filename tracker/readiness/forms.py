"""Forms for readiness queries, plans and the ROI calculator."""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import DateField, FieldList, FormField, IntegerField, StringField
from wtforms.validators import InputRequired, Length, NumberRange, Optional


class ReadinessQueryForm(FlaskForm):
    """A GET form: a fleet size and a date to judge readiness on."""

    class Meta:
        csrf = False

    gpus = IntegerField(
        "Fleet size (GPUs)",
        validators=[
            Optional(),
            NumberRange(min=0, max=10_000_000, message="GPUs must be 0 or more"),
        ],
    )
    on = DateField("On date", validators=[Optional()])


class PlanQueryForm(FlaskForm):
    """A GET form: the fleet to reach and by when."""

    class Meta:
        csrf = False

    gpus = IntegerField(
        "Target fleet size (GPUs)",
        validators=[
            InputRequired(message="a target fleet size is required"),
            NumberRange(min=0, max=10_000_000, message="GPUs must be 0 or more"),
        ],
    )
    target = DateField(
        "Target date", validators=[InputRequired(message="a target date is required")]
    )


class RoiLineForm(FlaskForm):
    class Meta:
        csrf = False

    label = StringField("Line", validators=[InputRequired(), Length(max=200)])
    amount = IntegerField(
        "Amount (USD)",
        validators=[
            InputRequired(message="an amount is required"),
            NumberRange(min=0, max=10_000_000_000, message="amount must be 0 or more"),
        ],
    )


class RoiForm(FlaskForm):
    investment = FieldList(FormField(RoiLineForm), min_entries=1, max_entries=20)
    returns = FieldList(FormField(RoiLineForm), min_entries=1, max_entries=20)
