"""/certifications: the newest certification per credential of the people one may see."""

from __future__ import annotations

import datetime as dt

from flask import Response
from sqlalchemy import Date, func, literal, select
from sqlalchemy.orm import selectinload

from tracker.api.access import engineer_in_query
from tracker.api.auth import caller
from tracker.api.blueprint import bp
from tracker.api.openapi import Operation
from tracker.api.pages import Key, page
from tracker.clock import today
from tracker.people.services.access import visible_ids
from tracker.progress.models import Certification
from tracker.progress.schemas import CertificationOut, CertificationsOut, CertificationsQuery
from tracker.progress.services.validity import newest_of_its_credential, status_is

CERTIFICATIONS = Operation(
    answers={200: CertificationsOut},
    query_model=CertificationsQuery,
    refusals=(403, 404),
    gives={"engineer_id": "/items/0/engineer/id", "engineer": "/items/0/engineer/id"},
)
# The soonest expiry first, those that never expire last; then the oldest record.
NEVER = dt.date.max
CERTIFICATIONS_ORDER = (
    Key(
        func.coalesce(Certification.expires_on, literal(NEVER, Date)),
        lambda c: c.expires_on or NEVER,
        dt.date,
    ),
    Key(Certification.id, lambda c: c.id, int),
)


@bp.get("/certifications")
@CERTIFICATIONS
def certifications() -> tuple[Response, int]:
    """The newest certification per credential of each visible engineer, filtered, a page.

    ?engineer=ID for one person; ?status=valid|expiring|expired keeps those whose
    status is exactly that ("expiring": valid and expiring within
    ?expiring_within=DAYS, default 90; "valid": valid beyond that window).
    """
    params = CERTIFICATIONS.query()
    within = params.expiring_within
    on = today()
    certs = (
        select(Certification)
        .where(newest_of_its_credential())
        .options(selectinload(Certification.credential), selectinload(Certification.engineer))
    )
    if params.engineer is not None:
        engineer = engineer_in_query(params.engineer)
        certs = certs.where(Certification.engineer_id == engineer.id)
    elif caller().access_role != "admin":
        certs = certs.where(Certification.engineer_id.in_(visible_ids(caller())))
    if params.status is not None:
        certs = certs.where(status_is(params.status, on, within))
    return CERTIFICATIONS.answer(
        page(
            CertificationsOut,
            certs,
            CERTIFICATIONS_ORDER,
            params,
            lambda cert: CertificationOut.of(cert, on, within),
        )
    )
