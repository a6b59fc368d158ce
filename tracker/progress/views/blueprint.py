"""The progress blueprint and what its pages share: rows chosen, whom results go to, messages."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import TypeVar

from flask import Blueprint, abort
from flask_babel import gettext as _
from flask_login import current_user

from tracker.db import Base
from tracker.extensions import db_session
from tracker.i18n import amount, day
from tracker.people.models import Engineer
from tracker.people.services.access import can_record_results, visible_engineers
from tracker.people.views import person_name
from tracker.progress.services.validity import STATUS_LABELS, Status
from tracker.web.database import record_or_404
from tracker.web.language import localized

bp = Blueprint("progress", __name__)
_Row = TypeVar("_Row", bound=Base)


def flashed_day(on: dt.date) -> str:
    """Return a date for a flashed message: ISO in the English text, the locale's otherwise."""
    return localized(day(on))


def flashed_hours(value: Decimal) -> str:
    """Return hours for a flashed message: 7.5 in the English text, the locale's otherwise."""
    return localized(amount(value))


@bp.app_template_filter("status_label")
def status_label(status: str) -> str:
    """Name a certification's status in the page's language."""
    return localized(STATUS_LABELS[Status(status)])


def row_or_404(model: type[_Row], row_id: int) -> _Row:
    """Return the row a form chose; one deleted since the form was shown is not found."""
    row = db_session().get(model, row_id)
    if row is None:
        abort(404)
    return row


def person_for_results(person_id: int) -> Engineer:
    """Return the person a sent form records results for, held until it commits; else 403."""
    # Held: what the write checks of them (their hire date...) is what commits with it.
    person = record_or_404(Engineer, person_id)
    if not can_record_results(current_user, person):
        abort(403)
    return person


def people_for_results(session) -> list[Engineer]:
    """Return the active people whose results the signed-in person may record."""
    return [e for e in visible_engineers(session, current_user) if e.active]


def for_whom(person: Engineer, said: str) -> str:
    """Return a result's message, naming whose it is when it is not the reader's own."""
    # Someone recording for another person sees whom it went to, not only what.
    if person.id == current_user.id:
        return said
    return _("For %(name)s: %(said)s", name=person_name(person), said=said)
