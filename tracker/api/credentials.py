"""/credentials: recording a credential earned elsewhere, from the catalog, by name or by badge."""

from __future__ import annotations

import datetime as dt
from typing import Any

from flask import Response, current_app

from tracker.api.access import engineer_in_body
from tracker.api.auth import caller
from tracker.api.blueprint import bp
from tracker.api.errors import ApiError, rename
from tracker.api.openapi import Operation
from tracker.badges.schemas import BadgeUpload, CredentialOrBadgeBody
from tracker.badges.services.fetching import make_fetch
from tracker.badges.services.imports import RecordedBadge, Source, check_badge, record_badge
from tracker.clock import today
from tracker.db import release
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.i18n import N_
from tracker.people.models import Engineer
from tracker.people.services.access import can_record_results
from tracker.progress.schemas import CertificationOut
from tracker.progress.services.certifications import credential_for_entry, record_credential

RECORD_CREDENTIAL = Operation(
    answers={200: CertificationOut, 201: CertificationOut},
    body_model=CredentialOrBadgeBody,
    upload_model=BadgeUpload,
    refusals=(403,),
)
ACTION = N_("record credentials")


@bp.post("/credentials", endpoint="record_credential")
@RECORD_CREDENTIAL
def post_credential() -> tuple[Response, int]:
    """Record a credential earned elsewhere: a catalog `code`, `name` and `issuer`, or a badge.

    A badge is verified with its issuer before anything is stored: `badge_url` (where
    the issuer hosts it), `badge_json` (the assertion), or a baked PNG or SVG image sent
    as multipart/form-data in `badge_image`. It must be issued to the engineer's e-mail
    address, not revoked and not expired; the answer is the certification, `verified`:
    201 when the badge recorded it, 200 when it verified one entered by hand before for
    the same credential and issue date (nothing is added). A refused badge is a 400
    naming why; a badge already recorded is refused too.
    """
    on = today()
    if RECORD_CREDENTIAL.uploading():
        upload = RECORD_CREDENTIAL.upload()
        assert isinstance(upload, BadgeUpload)
        data = {"engineer": upload.engineer}
        engineer = engineer_in_body(data, can_record_results, ACTION)
        return _imported(_import(data, engineer, "image", upload.badge_image), on)
    data = RECORD_CREDENTIAL.json_body()
    engineer = engineer_in_body(data, can_record_results, ACTION)
    body = RECORD_CREDENTIAL.validated(data)
    badge = body.badge()
    if badge is not None:
        return _imported(_import(data, engineer, *badge), on)
    # Required without a badge (cross_errors).
    assert body.issued_on is not None and body.evidence is not None
    session = db_session()
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


def _imported(recorded: RecordedBadge, on: dt.date) -> tuple[Response, int]:
    status = 200 if recorded.existing else 201
    return RECORD_CREDENTIAL.answer(CertificationOut.of(recorded.certification, on), status)


def _import(data: dict[str, Any], engineer: Engineer, source: Source, given: Any) -> RecordedBadge:
    fetch = make_fetch(current_app.config.get("BADGE_ALLOW_HOSTS", frozenset()))
    session = db_session()
    try:
        email = engineer.email
        release(session)  # nothing held while the issuer answers
        checked = check_badge(source, given, email, today(), fetch)
        # Held afresh, and allowed still: the fetch may have taken seconds.
        engineer = engineer_in_body(data, can_record_results, ACTION)
        return record_badge(session, engineer, checked, today(), recorded_by=caller())
    except ValidationError as exc:
        raise ApiError(400, exc.errors) from None
