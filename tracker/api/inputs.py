"""What a request sends: its JSON body and query string, read through pydantic models.

Bodies are parsed here (fractions as Decimals, so 1.1 stays exactly 1.1, and
2.0 as the whole number 2; NaN and Infinity refused), unknown fields and text
that cannot be stored are refused before anything else, and the model then
reads every field, so one 400 names each problem.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any, TypeVar

import pydantic
from flask import Request, Response, request
from werkzeug.exceptions import RequestEntityTooLarge

from tracker import jsontext
from tracker.api.errors import ApiError, refusals
from tracker.i18n import N_, msg
from tracker.schemas import Answer, Query
from tracker.web.current import current_request
from tracker.web.security import UNSTORABLE_TEXT, storable

M = TypeVar("M", bound=pydantic.BaseModel)


@functools.cache
def field_names(model: type[pydantic.BaseModel]) -> tuple[str, ...]:
    """Return the names a client may send for `model`, sorted."""
    return tuple(sorted(info.alias or name for name, info in model.model_fields.items()))


class _NotJson(ValueError):
    """A body JSON refuses, with the reason in the reader's words."""

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


def _reject_constant(name: str) -> None:
    raise _NotJson(msg("%(name)s is not a JSON number", name=name))


# What Python's JSON parser says is wrong, in words a reader has in their language.
JSON_PROBLEMS = {
    "Expecting value": N_("a value was expected"),
    "Expecting property name enclosed in double quotes": N_(
        "a field name in double quotes was expected"
    ),
    "Expecting ':' delimiter": N_("a colon (:) was expected"),
    "Expecting ',' delimiter": N_("a comma (,) was expected"),
    "Extra data": N_("more follows the JSON value"),
    "Unterminated string starting at": N_("a string is not closed"),
    "Invalid control character at": N_("a string holds a control character"),
    "Invalid \\escape": N_("a string holds an invalid backslash escape"),
    "Invalid \\uXXXX escape": N_("a string holds an invalid \\u escape"),
}
UNEXPECTED_TEXT = N_("unexpected text")


def _json_problem(raw: bytes, exc: ValueError) -> str:
    """Return what is wrong with a body JSON refused, where it is known, in the reader's words."""
    if isinstance(exc, _NotJson):
        return exc.problem
    if isinstance(exc, jsontext.NestedTooDeep):
        return N_("it is nested too deeply")
    if isinstance(exc, UnicodeDecodeError):
        return N_("it is not UTF-8 text")
    if not raw.strip():
        return N_("the body is empty")
    if isinstance(exc, json.JSONDecodeError):
        # A problem a later Python names otherwise is still said without its English.
        return msg(
            "%(problem)s at line %(line)s, column %(column)s",
            problem=JSON_PROBLEMS.get(exc.msg, UNEXPECTED_TEXT),
            line=exc.lineno,
            column=exc.colno,
        )
    return UNEXPECTED_TEXT


# Python refuses to read a whole number of more digits than its limit (4,300 unless set
# otherwise, and never below 640): the API refuses it first, in its own words.
MAX_WHOLE_DIGITS = 500
TOO_MANY_DIGITS = msg("the body holds a number of more than %(most)s digits", most=MAX_WHOLE_DIGITS)


class _TooManyDigits(ValueError):
    """A whole number in a body longer than any the API reads."""


def _whole(text: str) -> int:
    """Return a JSON whole number, refusing one of more than MAX_WHOLE_DIGITS digits."""
    if len(text.lstrip("-")) > MAX_WHOLE_DIGITS:
        raise _TooManyDigits(text[:20])
    return int(text)


# Beyond any whole number a field takes; a larger one stays a Decimal (and is refused
# by its field's range) rather than being expanded digit by digit.
WHOLE_LIMIT = Decimal(2**63)


def _number(text: str) -> Decimal | int:
    """Return a JSON fraction as a Decimal, or as an int when it is whole (2.0, 1e2).

    JSON has one kind of number, and JSON Schema's "integer" is any number without a
    fraction: 2.0 is the whole number 2, as the OpenAPI document describes it.
    """
    number = Decimal(text)
    if abs(number) <= WHOLE_LIMIT and number == number.to_integral_value():
        return int(number)
    return number


def _refuse_unknown(names: Iterable[str], allowed: Sequence[str]) -> None:
    """Answer 400 naming each field of `names` the body may not hold, and the known ones."""
    unknown = sorted(set(names) - set(allowed))
    if unknown:
        known = ", ".join(allowed)
        raise ApiError(
            400, dict.fromkeys(unknown, msg("unknown field (known: %(known)s)", known=known))
        )


def parse_json_object(raw: bytes, allowed: Iterable[str]) -> dict[str, Any]:
    """Return the JSON object in `raw`; 400 when it is not JSON, not an object or has extras."""
    try:
        data = jsontext.loads(
            raw, parse_float=_number, parse_int=_whole, parse_constant=_reject_constant
        )
    except _TooManyDigits:
        raise ApiError(400, {"request": TOO_MANY_DIGITS}) from None
    except ValueError as exc:
        problem = _json_problem(raw, exc)
        raise ApiError(
            400, {"request": msg("the body is not valid JSON: %(error)s", error=problem)}
        ) from None
    if not isinstance(data, dict):
        raise ApiError(400, {"request": N_("the body must be a JSON object")})
    _refuse_unknown(data.keys(), sorted(allowed))
    unstorable = sorted(name for name, value in data.items() if not storable(value))
    if unstorable:
        raise ApiError(400, dict.fromkeys(unstorable, UNSTORABLE_TEXT))
    return data


def _sends_body(current: Request) -> bool:
    """Return whether the request carries a body, without reading it."""
    if current.content_length is not None:
        return current.content_length > 0
    return "chunked" in current.headers.get("Transfer-Encoding", "").lower()


def json_body(model: type[pydantic.BaseModel], required: bool = True) -> dict[str, Any]:
    """Return the request's JSON object for `model`, refusing other content types and fields.

    The fields are not read yet (validated() does): some refusals come first. A body
    that is not `required` may be left out (`{}`), but one that is sent is JSON.
    """
    current = current_request()
    # Decided on the headers: a form body may already have been read off the stream.
    if not required and not _sends_body(current):
        return {}
    if not current.is_json:
        raise ApiError(
            415, {"request": N_("send the body as JSON with Content-Type: application/json")}
        )
    # Werkzeug answers 413 when Content-Length passes MAX_CONTENT_LENGTH; a
    # chunked body (no Content-Length) is instead cut at the limit, so a body
    # that fills it is refused here rather than parsed truncated.
    raw = current.get_data(cache=False)
    limit = current.max_content_length
    if current.content_length is None and limit is not None and len(raw) >= limit:
        raise RequestEntityTooLarge()
    if not required and not raw.strip():
        return {}
    return parse_json_object(raw, field_names(model))


# A form field's text that is a whole number is read as one (an id); the rest stays text.
_WHOLE = re.compile(r"[0-9]{1,10}")


def form_body(model: type[M]) -> M:
    """Return the request's multipart/form-data fields and files read with `model`.

    Files are read as bytes (within MAX_CONTENT_LENGTH, which Werkzeug enforces),
    text fields as text, whole numbers as numbers; unknown names are refused.
    """
    allowed = field_names(model)
    names = set(request.form) | set(request.files)
    _refuse_unknown(names, allowed)
    data: dict[str, Any] = {
        name: int(value) if _WHOLE.fullmatch(value) else value
        for name, value in request.form.items()
    }
    for name, upload in request.files.items():
        data[name] = upload.read()
    return validated(model, data)


def validated(model: type[M], data: dict[str, Any]) -> M:
    """Read `data` with `model`; a 400 naming every bad field."""
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        raise ApiError(400, refusals(exc)) from None


def body(model: type[M]) -> M:
    """Return the request's JSON body read with `model`."""
    return validated(model, json_body(model))


NO_PARAMETERS = N_("this URL takes no parameters")


def query(model: type[M]) -> M:
    """Return the query string read with `model`; unknown parameters are a 400."""
    allowed = field_names(model)
    unknown = sorted(set(request.args) - set(allowed))
    if unknown:
        if allowed:
            problem = msg("unknown parameter (known: %(known)s)", known=", ".join(allowed))
        else:
            problem = NO_PARAMETERS
        raise ApiError(400, dict.fromkeys(unknown, problem))
    return validated(model, request.args.to_dict())


class NoQuery(Query):
    """No query parameters."""


def answer(result: Answer, status: int = 200, location: str | None = None) -> tuple[Response, int]:
    """Return `result` as the JSON answer, with its status (and Location when created)."""
    # Written straight to JSON: building the data and encoding it apart costs more.
    response = Response(result.dump_json(), mimetype="application/json")
    if location:
        response.headers["Location"] = location
    return response, status


def no_content() -> tuple[Response, int]:
    """Return the empty answer 204: no body, so no Content-Type either (RFC 9110, 15.3.5)."""
    response = Response(status=204)
    del response.headers["Content-Type"]
    return response, 204
