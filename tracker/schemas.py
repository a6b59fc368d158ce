"""Build the pydantic shapes every feature's schemas share: JSON fields in, JSON answers out.

Request bodies arrive parsed by the API (fractions as Decimals, so 1.1 stays
exactly 1.1); the field types here accept only what JSON itself would give
for them (a boolean is not a number, "80" is not a whole number) and refuse
anything else with a message in the house's words. `null` counts as absent.
Answers write Decimals as JSON numbers (1.50 -> 1.5, 8.00 -> 8) and dates as
ISO strings.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, Generic, TypeVar

from annotated_types import GroupedMetadata
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    PlainSerializer,
    StringConstraints,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, InitErrorDetails, PydanticCustomError

from tracker.db import MAX_ID
from tracker.i18n import N_, msg

DATE_PATTERN = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")

DATE_RULE = N_("must be a date written YYYY-MM-DD")
ID_RULE = N_("must be a whole number (an id)")
NUMBER_RULE = N_("must be a number")


def refusal(message: str) -> PydanticCustomError:
    """Return a validation error whose message is `message`, word for word."""
    return PydanticCustomError("refused", "{message}", {"message": message})


# --- request fields -------------------------------------------------------------------


def read_date(value: Any) -> dt.date | None:
    """Return a YYYY-MM-DD string as a date, or None for anything else."""
    if not isinstance(value, str) or not DATE_PATTERN.fullmatch(value):
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        return None


def _date(value: Any) -> dt.date:
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value
    parsed = read_date(value)
    if parsed is None:
        raise refusal(DATE_RULE)
    return parsed


def read_id(value: Any) -> int | None:
    """Return `value` as a record id, or None when it is not a whole number from 1 up."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_ID:
        return None
    return value


def _id(value: Any) -> int:
    parsed = read_id(value)
    if parsed is None:
        raise refusal(ID_RULE)
    return parsed


def _json_number(value: Any) -> Decimal:
    """Return a JSON number as a Decimal; booleans, strings and the rest are refused."""
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise refusal(NUMBER_RULE)
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        raise refusal(NUMBER_RULE) from None
    if not number.is_finite():
        raise refusal(NUMBER_RULE)
    return number


class _NumberOnly:
    """Describe a Decimal field as the JSON number it is read from (not also a string)."""

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        schema = handler(core_schema)
        for branch in schema.get("anyOf", ()):
            if branch.get("type") == "number":
                return dict(branch)
        return schema


RANGE_ERRORS = ("greater_than", "greater_than_equal", "less_than", "less_than_equal")


def worded(message: str, *error_types: str) -> WrapValidator:
    """Answer the field's refusals of `error_types` (its range by default) with `message`.

    Pydantic names one bound at a time; the house's rule names the whole range.
    """
    types = error_types or RANGE_ERRORS

    def wrap(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        try:
            return handler(value)
        except ValidationError as exc:
            if all(not e["loc"] and e["type"] in types for e in exc.errors()):
                raise refusal(message) from None
            raise

    return WrapValidator(wrap)


def query_int(message: str) -> BeforeValidator:
    """Read a query-string whole number (digits only), refusing anything else with `message`."""

    def read(value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        parsed = read_query_int(value) if isinstance(value, str) else None
        if parsed is None:
            raise refusal(message)
        return parsed

    return BeforeValidator(read)


def read_query_int(text: str) -> int | None:
    """Return a query-string whole number, or None when it is not digits."""
    text = text.strip()
    if not text.isascii() or not text.isdigit() or len(text) > 20:
        return None
    return int(text)


def date_worded(message: str) -> BeforeValidator:
    """Read a YYYY-MM-DD date, refusing anything else with `message`."""

    def read(value: Any) -> dt.date:
        if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
            return value
        parsed = read_date(value)
        if parsed is None:
            raise refusal(message)
        return parsed

    return BeforeValidator(read)


# Each constraint precedes the validator that reads the JSON value, so that the
# JSON schema shows it (and the validator's message answers a wrong type).
Id = Annotated[int, Field(ge=1, le=MAX_ID), BeforeValidator(_id)]
Date = Annotated[dt.date, BeforeValidator(_date)]
# What a certification's `expires_on` is, as mail, pages and feeds word it too.
VALID_THROUGH = "the last day the certification is valid: it is valid through this date"
JSON_NUMBER = BeforeValidator(_json_number)
NUMBER_ONLY = _NumberOnly()
Number = Annotated[Decimal, JSON_NUMBER, NUMBER_ONLY]
WholeNumber = Annotated[int, Field(strict=True)]
TrueFalse = Annotated[bool, Field(strict=True)]


# A JSON Schema pattern of text without NUL, which no text column stores (the API refuses
# it in any string of a body, tracker.api.inputs).
WITHOUT_NUL = "^[^\\u0000]*$"


EMPTY_RULE = N_("must not be empty")


def _stripped(value: str) -> str:
    return value.strip()


def _not_blank(value: str) -> str:
    if not value:
        raise refusal(EMPTY_RULE)
    return value


@dataclass(frozen=True)
class TextRule(GroupedMetadata):
    """A text field's constraints: at most `max_length` characters as sent, then trimmed.

    The length is the sent text's, spaces included, as the JSON Schema's maxLength
    says; a required text must hold more than spaces.
    """

    max_length: int
    required: bool = False

    def __iter__(self) -> Iterator[object]:
        yield StringConstraints(
            strict=True, min_length=1 if self.required else None, max_length=self.max_length
        )
        yield AfterValidator(_stripped)
        if self.required:
            yield AfterValidator(_not_blank)


def text(max_length: int, required: bool = False) -> TextRule:
    """Return the constraints of a text field: at most `max_length` characters, trimmed."""
    return TextRule(max_length, required)


class Body(BaseModel):
    """A JSON request body: unknown fields are refused, and null is the same as absent.

    Rules that involve several fields (cross_errors) are checked with the fields'
    own, so that one refusal names every problem.
    """

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="wrap")
    @classmethod
    def _every_refusal(cls, data: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        if isinstance(data, dict) and None in data.values():
            data = {key: value for key, value in data.items() if value is not None}
        crossed = cls.cross_errors(data) if isinstance(data, dict) else {}
        try:
            model = handler(data)
        except ValidationError as exc:
            if not crossed:
                raise
            raise _with(cls.__name__, crossed, data, exc) from None
        if crossed:
            raise _with(cls.__name__, crossed, data)
        return model

    @classmethod
    def cross_errors(cls, data: dict[str, Any]) -> dict[str, str]:
        """Return the refusals of rules over several fields, by field (`data` holds no nulls)."""
        return {}

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        """Describe the body as read: a field that may be left out may be null too."""
        schema = handler(core_schema)
        target = handler.resolve_ref_schema(schema)
        required = set(target.get("required", ()))
        properties = target.get("properties", {})
        for name, prop in properties.items():
            if name not in required:
                properties[name] = _or_null(prop)
        return schema


# What a JSON Schema says about its field rather than about its values.
ANNOTATIONS = ("title", "description", "default", "examples")


def _or_null(schema: dict[str, Any]) -> dict[str, Any]:
    """Return a field's JSON Schema with null admitted (unless it is already)."""
    branches = schema.get("anyOf", [schema])
    if {"type": "null"} in branches or schema.get("type") == "null":
        return schema
    notes = {k: v for k, v in schema.items() if k in ANNOTATIONS}
    value = {k: v for k, v in schema.items() if k not in ANNOTATIONS}
    if "anyOf" in value and len(value) == 1:
        return {"anyOf": [*value["anyOf"], {"type": "null"}], **notes}
    return {"anyOf": [value, {"type": "null"}], **notes}


class Query(BaseModel):
    """A query string: unknown parameters are refused, and an empty value is absent.

    Empty, not blank: `?on=` is no date (OpenAPI's allowEmptyValue), `?on=%20` a
    wrong one. A model with no fields is a request that takes no parameters.
    """

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _empty_is_absent(cls, data: Any) -> Any:
        if isinstance(data, dict):
            return {key: value for key, value in data.items() if value != ""}
        return data


# --- pages of a list -------------------------------------------------------------------

# Every list of the API answers a page at a time.
DEFAULT_LIMIT = 50
MAX_LIMIT = 500
LIMIT_RULE = msg("must be a whole number from 1 to %(max)s", max=MAX_LIMIT)
# A cursor is what a page answered as `next`: URL-safe characters, short enough for a
# URL yet long enough for any key a list sorts by (a team's name of 120 characters
# beyond Unicode's first plane, JSON-escaped, base64-encoded: under 2,000).
MAX_CURSOR_LENGTH = 2048
CURSOR_PATTERN = r"^[A-Za-z0-9_.-]*$"
# A cursor is signed for its list: the same path, filters and order; only `limit` may change.
CURSOR_RULE = N_(
    "must be the `next` of a page of this list, unchanged, sent with the same filters and order"
)
CURSOR_REFUSALS = ("string_type", "string_too_long", "string_pattern_mismatch")


class PageQuery(Query):
    """?limit=N rows a page (default 50, at most 500) and ?cursor= the previous page's `next`."""

    limit: Annotated[
        int,
        Field(ge=1, le=MAX_LIMIT, description=f"rows a page, 1 to {MAX_LIMIT}"),
        query_int(LIMIT_RULE),
        worded(LIMIT_RULE),
    ] = DEFAULT_LIMIT
    cursor: (
        Annotated[
            str,
            Field(
                max_length=MAX_CURSOR_LENGTH,
                pattern=CURSOR_PATTERN,
                description=(
                    "the `next` of the previous page, sent with the same filters and order"
                    " (`limit` may change); absent (or empty) for the first"
                ),
            ),
            worded(CURSOR_RULE, *CURSOR_REFUSALS),
        ]
        | None
    ) = None


def _with(
    title: str, crossed: dict[str, str], data: Any, exc: ValidationError | None = None
) -> ValidationError:
    """Return a ValidationError of the rules over several fields, then the fields' own."""
    errors: list[InitErrorDetails] = [
        {"type": refusal(message), "loc": (name,), "input": data.get(name)}
        for name, message in crossed.items()
    ]
    for error in exc.errors() if exc is not None else ():
        if error["type"] == "refused":
            # The context's message, not the rendered text: it stays marked for translation.
            kind: str | PydanticCustomError = refusal(error["ctx"]["message"])
        else:
            kind = error["type"]
        detail: InitErrorDetails = {"type": kind, "loc": error["loc"], "input": error["input"]}
        if "ctx" in error:
            detail["ctx"] = error["ctx"]
        errors.append(detail)
    return ValidationError.from_exception_data(title, errors)


# --- answers ----------------------------------------------------------------------------


def json_number(value: Decimal | int | None) -> int | float | None:
    """Return a Decimal as a JSON number: whole values as integers, others as floats."""
    if value is None:
        return None
    value = Decimal(value)
    return int(value) if value == value.to_integral_value() else float(value)


def _iso(value: dt.datetime) -> str:
    return value.isoformat()


# Decimals answer as JSON numbers, datetimes as Python writes them (no "Z").
Amount = Annotated[Decimal, PlainSerializer(json_number, return_type=int | float)]
Timestamp = Annotated[dt.datetime, PlainSerializer(_iso, return_type=str)]


class Answer(BaseModel):
    """A JSON answer: built from the domain's objects, written with dump()."""

    model_config = ConfigDict(populate_by_name=True)

    def dump(self) -> dict[str, Any]:
        """Return the answer as JSON-ready data, fields under their public names."""
        return self.model_dump(mode="json", by_alias=True)

    def dump_json(self) -> str:
        """Return the answer as JSON text: dump()'s data, written by pydantic itself."""
        return self.model_dump_json(by_alias=True)


Item = TypeVar("Item", bound=Answer)


class Page(Answer, Generic[Item]):
    """A page of a list: its rows in the list's order, and the cursor of the page after."""

    items: list[Item]
    next: str | None = Field(
        description="send it as ?cursor= for the next page; null on the last page"
    )
