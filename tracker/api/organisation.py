"""/organisation: the organisation table (every team's readiness today) a page at a time."""

from __future__ import annotations

import datetime as dt
from operator import attrgetter

from flask import Response

from tracker.api.auth import caller
from tracker.api.blueprint import bp
from tracker.api.errors import ApiError
from tracker.api.openapi import Operation
from tracker.api.pages import Key, Whole, page
from tracker.catalog.services.snapshot import catalog_snapshot
from tracker.clock import today
from tracker.extensions import db_session, session_factory
from tracker.i18n import N_, msg
from tracker.readiness.models import OrganisationSnapshot
from tracker.readiness.schemas import (
    HistoryQuery,
    OrganisationHistoryOut,
    OrganisationOut,
    OrganisationPointOut,
    OrganisationQuery,
    OrganisationRowOut,
)
from tracker.readiness.services.current import up_to_date
from tracker.readiness.services.history import (
    history_since,
    organisation_history_statement,
    point,
)
from tracker.readiness.services.organisation import (
    SummaryFilters,
    SummaryRow,
    order_keys,
    summary_statement,
)

ORGANISATION = Operation(
    answers={200: OrganisationOut}, query_model=OrganisationQuery, refusals=(403,)
)
ORGANISATION_HISTORY = Operation(
    answers={200: OrganisationHistoryOut}, query_model=HistoryQuery, refusals=(403,)
)
HISTORY_ORDER = (Key(OrganisationSnapshot.day, lambda row: row.day, dt.date),)
ADMINS_ONLY = N_("the organisation's readiness is for admins")
KINDS: dict[str, type[int] | type[Whole] | type[str]] = {"id": int, "whole": Whole, "text": str}


def admins_only() -> None:
    if caller().access_role != "admin":
        raise ApiError(403, {"engineer": ADMINS_ONLY})


@bp.get("/organisation")
@ORGANISATION
def organisation() -> tuple[Response, int]:
    """Every team's readiness today, as the organisation page's table: filtered, sorted, a page.

    The rows, their order and their filters are the organisation page's
    (?sort= a column, then team name; ?order=asc or desc); read from the stored
    readiness, brought up to date first.
    """
    admins_only()
    params = ORGANISATION.query()
    session = db_session()
    # First: the check reads the catalog's stamp, which the catalog read then reuses.
    up_to_date(session, session_factory(), today())
    templates = catalog_snapshot(session).templates
    codes = {t.id: t.code for t in templates}
    band = None
    if params.band is not None:
        band = next((t.id for t in templates if t.code == params.band.lower()), None)
        if band is None:
            known = ", ".join(codes.values())
            raise ApiError(400, {"band": msg("must be one of %(codes)s", codes=known)})
    filters = SummaryFilters(band=band, manager=params.manager or "", name=params.name or "")
    keys = [
        Key(k.column, attrgetter(k.field), KINDS[k.kind], k.descending)
        for k in order_keys(params.sort, params.order == "desc")
    ]

    def out(row) -> OrganisationRowOut:
        found = SummaryRow.of(row)
        return OrganisationRowOut.of(found, codes.get(found.template_id, ""))

    return ORGANISATION.answer(page(OrganisationOut, summary_statement(filters), keys, params, out))


@bp.get("/organisation/history")
@ORGANISATION_HISTORY
def organisation_history() -> tuple[Response, int]:
    """The organisation's daily snapshots of the last ?months=12 months, oldest first, a page.

    Each day's sum over its teams: teams, seats filled of total, percent,
    certifications lapsing within 90 days; today's is brought up to date first.
    """
    admins_only()
    params = ORGANISATION_HISTORY.query()
    session = db_session()
    day = today()
    up_to_date(session, session_factory(), day)
    statement = organisation_history_statement(history_since(day, params.months), day)
    return ORGANISATION_HISTORY.answer(
        page(
            OrganisationHistoryOut,
            statement,
            HISTORY_ORDER,
            params,
            lambda r: OrganisationPointOut.of(point(r)),
        )
    )
