"""/credentials: recording a credential earned elsewhere, from the catalog or by name."""

from __future__ import annotations

from flask import Response

from tracker.api.access import engineer_in_body
from tracker.api.auth import caller
from tracker.api.blueprint import bp
from tracker.api.errors import ApiError, rename
from tracker.api.openapi import Operation
from tracker.clock import today
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.people.services.access import can_record_results
from tracker.progress.schemas import CertificationOut, CredentialBody
from tracker.progress.services.certifications import credential_for_entry, record_credential

RECORD_CREDENTIAL = Operation(
    answers={201: CertificationOut}, body_model=CredentialBody, refusals=(403,)
)


@bp.post("/credentials", endpoint="record_credential")
@RECORD_CREDENTIAL
def post_credential() -> tuple[Response, int]:
    """Record a credential earned elsewhere: a catalog `code`, or `name` and `issuer`."""
    data = RECORD_CREDENTIAL.json_body()
    engineer = engineer_in_body(data, can_record_results, "record credentials")
    body = RECORD_CREDENTIAL.validated(data)
    session = db_session()
    on = today()
    try:
        credential = credential_for_entry(
            session, code=body.code, name=body.name, issuer=body.issuer
        )
        cert = record_credential(
            session,
            engineer,
            credential,
            body.issued_on,
            on,
            evidence=body.evidence,
            expires_on=body.expires_on,
            recorded_by=caller(),
        )
    except ValidationError as exc:
        # Nothing is committed on a 400: a credential row made for a name is dropped too.
        raise ApiError(400, rename(exc.errors, {"credential": "code"})) from None
    return RECORD_CREDENTIAL.answer(CertificationOut.of(cert, on), 201)
