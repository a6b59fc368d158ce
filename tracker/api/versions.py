"""Versions of the API's records: an ETag on answers, If-Match on writes, If-None-Match on reads.

A record's version is a weak ETag, the hash of the JSON its answer says
(tracker.versions, as SCIM's resources): GET answers it, a PUT, PATCH or DELETE
sent with `If-Match` changes the record only while it still is that version
(412 otherwise, nothing written; so does a POST that changes the record its URL
names, such as a webhook's rotate-secret), and a GET sent with `If-None-Match` naming
it answers 304 without a body. Without the headers, a request is unconditional.
"""

from __future__ import annotations

from flask import Response, request

from tracker.api.errors import ApiError
from tracker.api.inputs import answer
from tracker.i18n import N_
from tracker.schemas import Answer
from tracker.versions import names, version

CHANGED = N_(
    "the record changed since that version was read: nothing was written;"
    " read it again (GET) and send its new ETag"
)
# What the OpenAPI document says of the headers and answers versions add.
ETAG = "the record's version (a weak ETag): send it as If-Match to change the record"
IF_MATCH = "change the record only while it is this version (its ETag); 412 otherwise"
IF_NONE_MATCH = "answer 304 without a body while the record is this version (its ETag)"
NOT_MODIFIED = N_("The record is the version If-None-Match names: no body.")
PRECONDITION_FAILED = N_("The record is no longer the version If-Match names; nothing was written.")


def etag(result: Answer) -> str:
    """Return the version of what `result` says."""
    return version(result.dump())


def unchanged_since_read(current: Answer) -> None:
    """Refuse a write whose If-Match names another version than `current`'s with 412.

    An If-Match left empty names no version: the write is unconditional, as without one.
    """
    wanted = request.headers.get("If-Match", "").strip()
    if wanted and not names(wanted, etag(current)):
        raise ApiError(412, {"If-Match": CHANGED})


def versioned(
    result: Answer, status: int, location: str | None, record: Answer | None = None
) -> tuple[Response, int]:
    """Return `result` with the ETag of `record` (itself when None); to a GET naming it, 304.

    A write that answers more or other than its record says (a secret just made, the
    row just written) still answers the record's version, the one its next write sends.
    """
    tag = etag(result if record is None else record)
    if request.method == "GET" and names(request.headers.get("If-None-Match"), tag):
        response = Response(status=304)
        del response.headers["Content-Type"]
        response.headers["ETag"] = tag
        return response, 304
    response, status = answer(result, status, location)
    response.headers["ETag"] = tag
    return response, status
