"""/bonuses: the certification bonuses earned in a quarter, for the people one sees."""

from __future__ import annotations

from flask import Response

from tracker.api.auth import caller
from tracker.api.blueprint import bp
from tracker.api.errors import ApiError
from tracker.api.openapi import Operation
from tracker.careers.schemas import LedgerOut, QuarterQuery
from tracker.careers.services.bonuses import Quarter, ledger
from tracker.clock import today
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.people.services.access import visible_engineers

BONUSES = Operation(answers={200: LedgerOut}, query_model=QuarterQuery)


@bp.get("/bonuses")
@BONUSES
def bonuses() -> tuple[Response, int]:
    """The bonuses earned in ?quarter=YYYY-Qn (default this quarter), for the people one sees."""
    params = BONUSES.query()
    try:
        quarter = Quarter.of(today()) if params.quarter is None else Quarter.parse(params.quarter)
    except ValidationError as exc:
        raise ApiError(400, exc.errors) from None
    session = db_session()
    ids = None
    if caller().access_role != "admin":
        ids = [e.id for e in visible_engineers(session, caller())]
    return BONUSES.answer(LedgerOut.of(quarter, ledger(session, quarter, ids)))
