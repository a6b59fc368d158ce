"""/bonuses: the certification bonuses earned in a quarter, for the people one sees."""

from __future__ import annotations

import datetime as dt

from flask import Response

from tracker.api.auth import caller
from tracker.api.blueprint import bp
from tracker.api.errors import ApiError
from tracker.api.openapi import Operation
from tracker.api.pages import Key, page
from tracker.careers.schemas import BonusesOut, BonusOut, QuarterQuery
from tracker.careers.services.bonuses import Quarter, bonus_row, ledger_query
from tracker.clock import today
from tracker.errors import ValidationError
from tracker.people.services.access import visible_ids
from tracker.progress.models import Certification

BONUSES = Operation(answers={200: BonusesOut}, query_model=QuarterQuery)
# By the day each was passed, then the certification: keys that never change, unlike a name.
BONUSES_ORDER = (
    Key(Certification.earned_on, lambda row: row[0].earned_on, dt.date),
    Key(Certification.id, lambda row: row[0].id, int),
)


@bp.get("/bonuses")
@BONUSES
def bonuses() -> tuple[Response, int]:
    """The bonuses earned in ?quarter=YYYY-Qn (default this quarter) by the people one sees."""
    params = BONUSES.query()
    try:
        quarter = Quarter.of(today()) if params.quarter is None else Quarter.parse(params.quarter)
    except ValidationError as exc:
        raise ApiError(400, exc.errors) from None
    ids = None if caller().access_role == "admin" else visible_ids(caller())
    rows = ledger_query(quarter, ids)
    return BONUSES.answer(
        page(BonusesOut, rows, BONUSES_ORDER, params, lambda row: BonusOut.of(bonus_row(*row)))
    )
