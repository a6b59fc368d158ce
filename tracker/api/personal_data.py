"""/me/data and /engineers/ID/data: a person's data (GDPR articles 15 and 20), as on the web;
/engineers/ID/erase: a departed person's erasure (article 17), as on their person page.

The same document as `/profile/data.json` (the caller's own) and
`/admin/people/<id>/data.json` (anyone's, for admins), from the same service, and
each download noted in the account trail the same way (`data_exported`, through the API).
"""

from __future__ import annotations

from flask import Response

from tracker.api.access import engineer_in_url
from tracker.api.auth import caller
from tracker.api.blueprint import bp
from tracker.api.errors import ApiError
from tracker.api.inputs import NoQuery
from tracker.api.openapi import Operation
from tracker.clock import utcnow
from tracker.extensions import db_session
from tracker.i18n import N_
from tracker.people.models import Engineer
from tracker.people.signin import address
from tracker.privacy.rules import CONFIRM_RULE
from tracker.privacy.schemas import EraseBody, ErasedOut, PersonalDataOut
from tracker.privacy.services.erasure import erase_person
from tracker.privacy.services.export import personal_data, record_export
from tracker.privacy.services.values import moment

OWN_DATA = Operation(answers={200: PersonalDataOut}, query_model=NoQuery)
PERSON_DATA = Operation(answers={200: PersonalDataOut}, query_model=NoQuery, refusals=(403, 404))
ADMINS_ONLY = N_(
    "only an admin may download another person's data; your own is GET /api/v1/me/data"
)
ERASE = Operation(answers={200: ErasedOut}, body_model=EraseBody, refusals=(403, 404))
ADMINS_ERASE = N_("only an admin may erase a person's personal data")


def _download(operation: Operation[NoQuery], person: Engineer) -> tuple[Response, int]:
    """Answer `person`'s data, noting in the account trail who downloaded it."""
    operation.query()
    session = db_session()
    document = personal_data(session, person, utcnow())
    record_export(session, person, caller(), via="api", address=address())
    return operation.answer(PersonalDataOut.model_validate(document))


@bp.get("/me/data", endpoint="own_data")
@OWN_DATA
def own_data() -> tuple[Response, int]:
    """Everything the tracker holds about the caller, as their profile's download gives it."""
    return _download(OWN_DATA, caller())


@bp.get("/engineers/<int:engineer_id>/data", endpoint="person_data")
@PERSON_DATA
def person_data(engineer_id: int) -> tuple[Response, int]:
    """Everything the tracker holds about a person (admins), as their person page's download."""
    if caller().access_role != "admin":
        raise ApiError(403, {"engineer": ADMINS_ONLY})
    return _download(PERSON_DATA, engineer_in_url(engineer_id))


@bp.post("/engineers/<int:engineer_id>/erase", endpoint="erase_person")
@ERASE
def erase(engineer_id: int) -> tuple[Response, int]:
    """Erase a deactivated person's personal data for good (admins); again: nothing more."""
    if caller().access_role != "admin":
        raise ApiError(403, {"engineer": ADMINS_ERASE})
    person = engineer_in_url(engineer_id)
    typed = ERASE.body().email.strip().lower()
    if person.erased_at is None:
        if typed != person.email.lower():
            raise ApiError(400, {"email": CONFIRM_RULE})
        erase_person(db_session(), person, caller(), utcnow(), via="api")
    erased_at = moment(person.erased_at)
    assert erased_at is not None, "erased just now or before"
    return ERASE.answer(
        ErasedOut(id=person.id, name=person.name, email=person.email, erased_at=erased_at)
    )
