"""Forms for hours, exam attempts, credentials and exam plans."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from decimal import Decimal
from typing import Any, Self

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import (
    BooleanField,
    Field,
    HiddenField,
    StringField,
    TextAreaField,
)
from wtforms.validators import Optional, StopValidation

from tracker.catalog.rules import DECIMAL_PLACES
from tracker.errors import ValidationError
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
    show_errors,
)
from tracker.progress.rules import (
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
from tracker.progress.services.hours_checks import date_problem
from tracker.web.language import localized

# Hours on a day: the error of a day that cannot hold them, or None (the service's check).
DayRoom = Callable[[dt.date, Decimal], ValidationError | None]


class HoursForm(FlaskForm):
    course = ListedChoice(_l("Course"), coerce=int, validators=[InputRequired()])
    logged_on = DayField(_l("Date"), validators=[InputRequired(message=_l("a date is required"))])
    hours = LocalDecimalField(
        _l("Hours"),
        places=None,
        example=Decimal("1.5"),
        validators=[
            InputRequired(message=_l("hours are required")),
            DecimalRange(places=DECIMAL_PLACES, above=Decimal(0), maximum=HOURS_PER_DAY),
        ],
    )
    note = StringField(_l("Note"), validators=[Optional(), Length(max=MAX_NOTE_LENGTH)])

    # The day the date is judged by, the engineer's hire date and the day's room
    # (judged_by): the service's rules, checked with the form's own, so one round
    # shows them all.
    _today: dt.date | None = None
    _hired_on: dt.date | None = None
    _day_room: DayRoom | None = None

    def judged_by(
        self, today: dt.date, hired_on: dt.date | None, day_room: DayRoom | None = None
    ) -> Self:
        """Check as the service will: the date by `today` and `hired_on`, the day by `day_room`."""
        self._today, self._hired_on, self._day_room = today, hired_on, day_room
        return self

    def validate(self, extra_validators: Mapping[str, Sequence[Any]] | None = None) -> bool:
        if super().validate(extra_validators):
            # Alone, a full day is the service's to refuse: the form reads no total.
            return True
        # The day's total with the other errors, once its hours and date are sound.
        sound = not self.hours.errors and not self.logged_on.errors
        if self._day_room is not None and sound and isinstance(self.logged_on.data, dt.date):
            overfilled = self._day_room(self.logged_on.data, self.hours.data)
            if overfilled is not None:
                show_errors(self, overfilled)
        return False

    def validate_logged_on(self, field: Field) -> None:
        if self._today is None or not isinstance(field.data, dt.date):
            return
        problem = date_problem(self._hired_on, field.data, self._today)
        if problem is not None:
            raise StopValidation(localized(problem))


class HoursEditForm(HoursForm):
    # The entry as the page drew it (tracker.web.versioned).
    version = HiddenField()


class AttemptForm(FlaskForm):
    engineer = ListedChoice(_l("Engineer"), coerce=int, validators=[InputRequired()])
    exam = ListedChoice(_l("Exam"), coerce=int, validators=[InputRequired()])
    attempted_on = DayField(
        _l("Date"), validators=[InputRequired(message=_l("a date is required"))]
    )
    score = WholeField(
        _l("Score (%)"),
        validators=[
            InputRequired(message=_l("a score is required")),
            WholeRange(
                min=MIN_SCORE,
                max=MAX_SCORE,
                message=_l("score must be from %(min)s to %(max)s"),
            ),
        ],
    )
    passed = BooleanField(_l("Passed"))
    cost = LocalDecimalField(
        _l("Cost (USD)"),
        places=None,
        validators=[
            Optional(),
            DecimalRange(places=DECIMAL_PLACES, minimum=Decimal(0), maximum=MAX_ATTEMPT_COST),
        ],
    )
    voucher_code = StringField(
        _l("Voucher code"), validators=[Optional(), Length(max=MAX_VOUCHER_CODE_LENGTH)]
    )
    proctoring = StringField(
        _l("Proctoring"),
        validators=[Optional(), Length(max=MAX_PROCTORING_LENGTH)],
        description=_l("e.g. online, remotely proctored; test centre and city"),
    )
    note = StringField(_l("Note"), validators=[Optional(), Length(max=MAX_NOTE_LENGTH)])


class CredentialForm(FlaskForm):
    engineer = ListedChoice(_l("Engineer"), coerce=int, validators=[InputRequired()])
    credential = ListedChoice(
        _l("Credential"),
        coerce=int,
        validators=[InputRequired()],
        description=_l("Choose “Other” and fill in name and issuer for one the catalog lacks."),
    )
    name = StringField(
        _l("Name (other credential)"),
        validators=[Optional(), Length(max=MAX_CREDENTIAL_NAME_LENGTH)],
    )
    issuer = StringField(
        _l("Issuer (other credential)"), validators=[Optional(), Length(max=MAX_ISSUER_LENGTH)]
    )
    issued_on = DayField(
        _l("Issued on"), validators=[InputRequired(message=_l("a date is required"))]
    )
    expires_on = DayField(_l("Valid through"), validators=[Optional()])
    evidence = TextAreaField(
        _l("Evidence"),
        validators=[
            DataRequired(message=_l("evidence is required")),
            Length(max=MAX_EVIDENCE_LENGTH),
        ],
        description=_l("A certificate number, a verification link or a note."),
    )


class PlanForm(FlaskForm):
    exam = ListedChoice(_l("Exam"), coerce=int, validators=[InputRequired()])
    planned_on = DayField(
        _l("Planned date"), validators=[InputRequired(message=_l("a date is required"))]
    )
