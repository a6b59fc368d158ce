"""The API's refusals: `{"errors": {field: message}}` with a status, from whatever refused."""

from __future__ import annotations

from collections.abc import Mapping

import pydantic

from tracker.people.rules import READ_ONLY_TOKEN_RULE, WRITE_SCOPE
from tracker.schemas import Answer

# The house's wording of pydantic's refusals; `{name}` is filled from the error's context.
MESSAGES = {
    "missing": "this field is required",
    "extra_forbidden": "unknown field",
    "string_type": "must be a string",
    "string_too_short": "must not be empty",
    "string_too_long": "must be at most {max_length} characters",
    "int_type": "must be a whole number",
    "bool_type": "must be true or false",
    "dict_type": "must be an object",
    "list_type": "must be a list",
    "greater_than": "must be more than {gt}",
    "greater_than_equal": "must be {ge} or more",
    "less_than": "must be less than {lt}",
    "less_than_equal": "must be at most {le}",
    "decimal_max_places": "must have at most {decimal_places} decimals",
    "literal_error": "must be one of {expected}",
}


class ErrorsOut(Answer):
    """Every refusal: the fields (or `request`, `token`, ...) and what is wrong with each."""

    errors: dict[str, str]


class ApiError(Exception):
    """An answer other than success: a status and `{"errors": {field: message}}`."""

    def __init__(
        self, status: int, errors: Mapping[str, str], headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(f"{status}: {dict(errors)}")
        self.status = status
        self.errors = dict(errors)
        self.headers = dict(headers or {})

    def body(self) -> ErrorsOut:
        return ErrorsOut(errors=self.errors)


def refusals(exc: pydantic.ValidationError) -> dict[str, str]:
    """Return a pydantic refusal as the API's errors: one message per field, the first found."""
    errors: dict[str, str] = {}
    for error in exc.errors(include_url=False):
        field = ".".join(str(part) for part in error["loc"]) or "request"
        if field in errors:
            continue
        template = MESSAGES.get(error["type"])
        try:
            message = template.format(**error.get("ctx", {})) if template else error["msg"]
        except (KeyError, IndexError):
            message = error["msg"]
        errors[field] = message
    return errors


def rename(errors: Mapping[str, str], names: Mapping[str, str]) -> dict[str, str]:
    """Return a service's errors keyed by the API's field names."""
    return {names.get(key, key): message for key, message in errors.items()}


def invalid_token() -> ApiError:
    return ApiError(
        401,
        {
            "token": "the token is not valid: unknown, revoked, expired,"
            " or its account is deactivated"
        },
        {"WWW-Authenticate": 'Bearer realm="tracker", error="invalid_token"'},
    )


def missing_token() -> ApiError:
    return ApiError(
        401,
        {"token": "send an API token in the header Authorization: Bearer TOKEN"},
        {"WWW-Authenticate": 'Bearer realm="tracker"'},
    )


def read_only_token() -> ApiError:
    return ApiError(
        403,
        {"token": READ_ONLY_TOKEN_RULE},
        {
            "WWW-Authenticate": (
                f'Bearer realm="tracker", error="insufficient_scope", scope="{WRITE_SCOPE}"'
            )
        },
    )
