"""/certifications: the newest certification per credential of the people one may see."""

from __future__ import annotations

from flask import Response
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from tracker.api.access import engineer_in_query
from tracker.api.auth import caller
from tracker.api.blueprint import bp
from tracker.api.openapi import Operation
from tracker.clock import today
from tracker.extensions import db_session
from tracker.people.services.access import visible_engineers
from tracker.progress.models import Certification
from tracker.progress.schemas import CertificationOut, CertificationsOut, CertificationsQuery
from tracker.progress.services.validity import newest_per_credential

CERTIFICATIONS = Operation(
    answers={200: CertificationsOut}, query_model=CertificationsQuery, refusals=(403, 404)
)


@bp.get("/certifications")
@CERTIFICATIONS
def certifications() -> tuple[Response, int]:
    """The newest certification per credential of each visible engineer, filtered.

    ?engineer=ID for one person; ?status=valid|expiring|expired keeps those whose
    status is exactly that ("expiring": valid and expiring within
    ?expiring_within=DAYS, default 90; "valid": valid beyond that window).
    """
    params = CERTIFICATIONS.query()
    within = params.expiring_within
    session = db_session()
    on = today()
    select_certs = select(Certification).options(
        selectinload(Certification.credential), selectinload(Certification.engineer)
    )
    if params.engineer is not None:
        engineer = engineer_in_query(params.engineer)
        select_certs = select_certs.where(Certification.engineer_id == engineer.id)
    elif caller().access_role != "admin":
        ids = [e.id for e in visible_engineers(session, caller())]
        select_certs = select_certs.where(Certification.engineer_id.in_(ids))
    by_engineer: dict[int, list[Certification]] = {}
    for cert in session.scalars(select_certs):
        by_engineer.setdefault(cert.engineer_id, []).append(cert)
    newest = [
        cert for certs in by_engineer.values() for cert in newest_per_credential(certs).values()
    ]
    items = [
        CertificationOut.of(cert, on, within)
        for cert in sorted(
            newest,
            key=lambda c: (c.expires_on is None, c.expires_on, c.engineer.name, c.credential.code),
        )
    ]
    if params.status is not None:
        items = [item for item in items if item.status == params.status]
    return CERTIFICATIONS.answer(
        CertificationsOut(on=on, expiring_within=within, certifications=items)
    )
