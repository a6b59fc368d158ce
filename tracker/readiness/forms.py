"""Forms for readiness queries, plans and the ROI calculator."""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import FieldList, FormField, StringField
from wtforms.validators import Optional, ValidationError

from tracker.forms import (
    DayField,
    InputRequired,
    Length,
    ListedChoice,
    WholeField,
    WholeRange,
    choices,
)
from tracker.people.rules import MAX_GPUS, MAX_NAME_LENGTH, MAX_TEAM_NAME_LENGTH
from tracker.readiness.rules import (
    CALENDAR_RULE,
    FIRST_DAY,
    FLEET_GPUS_RULE,
    LAST_DAY,
    MAX_ROI_AMOUNT,
    MAX_ROI_LABEL_LENGTH,
    MAX_ROI_LINES,
    ROI_AMOUNT_RULE,
)
from tracker.readiness.services.organisation import DEFAULT_SORT, SORTS
from tracker.web.language import lazy_localized, localized

# The organisation table's columns, as its sort choices name them.
SORT_NAMES = {
    "team": _l("Team"),
    "manager": _l("Manager"),
    "band": _l("Fleet band"),
    "seats": _l("Seats filled"),
    "ready": _l("Ready"),
    "lapsing": _l("Lapsing soon"),
    "trend": _l("Trend"),
}
ORDERS = ("asc", "desc")


def within_calendar(form: FlaskForm, field: DayField) -> None:
    """Keep dates where a 12-month forecast from them still fits the calendar."""
    if field.data is not None and not FIRST_DAY <= field.data <= LAST_DAY:
        raise ValidationError(localized(CALENDAR_RULE))


class ReadinessQueryForm(FlaskForm):
    """A GET form: a fleet size and a date to judge readiness on."""

    class Meta:
        csrf = False

    gpus = WholeField(
        _l("Fleet size (GPUs)"),
        validators=[
            Optional(),
            WholeRange(min=0, max=MAX_GPUS, message=lazy_localized(FLEET_GPUS_RULE)),
        ],
    )
    on = DayField(_l("On date"), validators=[Optional(), within_calendar])


class PlanQueryForm(FlaskForm):
    """A GET form: the fleet to reach and by when."""

    class Meta:
        csrf = False

    gpus = WholeField(
        _l("Target fleet size (GPUs)"),
        validators=[
            InputRequired(message=_l("a target fleet size is required")),
            WholeRange(min=0, max=MAX_GPUS, message=lazy_localized(FLEET_GPUS_RULE)),
        ],
    )
    target = DayField(
        _l("Target date"),
        validators=[InputRequired(message=_l("a target date is required")), within_calendar],
    )


class RoiLineForm(FlaskForm):
    class Meta:
        csrf = False

    label = StringField(_l("Line"), validators=[InputRequired(), Length(max=MAX_ROI_LABEL_LENGTH)])
    amount = WholeField(
        _l("Amount (USD)"),
        validators=[
            InputRequired(message=_l("an amount is required")),
            WholeRange(min=0, max=MAX_ROI_AMOUNT, message=lazy_localized(ROI_AMOUNT_RULE)),
        ],
    )


class RoiForm(FlaskForm):
    investment = FieldList(
        FormField(RoiLineForm), _l("Investment"), min_entries=1, max_entries=MAX_ROI_LINES
    )
    returns = FieldList(
        FormField(RoiLineForm), _l("Returns"), min_entries=1, max_entries=MAX_ROI_LINES
    )


class OrganisationQueryForm(FlaskForm):
    """A GET form: which teams the organisation table shows, and in which order.

    The band's choices are the catalog's templates, set by the view.
    """

    class Meta:
        csrf = False

    name = StringField(
        _l("Team name contains"),
        validators=[
            Optional(),
            Length(max=MAX_TEAM_NAME_LENGTH, message=_l("search at most %(max)d characters")),
        ],
        render_kw={"type": "search"},
    )
    manager = StringField(
        _l("Manager's name contains"),
        validators=[
            Optional(),
            Length(max=MAX_NAME_LENGTH, message=_l("search at most %(max)d characters")),
        ],
        render_kw={"type": "search"},
    )
    band = ListedChoice(_l("Fleet band"), choices=[], default="")
    sort = ListedChoice(
        _l("Sort by"),
        choices=choices((key, SORT_NAMES[key]) for key in SORTS),
        default=DEFAULT_SORT,
        not_listed=_l("sort must be one of %(values)s", values=", ".join(SORTS)),
    )
    order = ListedChoice(
        _l("Order"),
        choices=choices([("asc", _l("ascending")), ("desc", _l("descending"))]),
        default="asc",
        not_listed=_l("order must be asc or desc"),
    )
