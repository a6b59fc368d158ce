"""The API's refusals: `{"errors": {field: message}}` with a status, from whatever refused."""

from __future__ import annotations

from collections.abc import Mapping

import pydantic
from pydantic_core import ErrorDetails

from tracker.i18n import N_, msg
from tracker.people.rules import READ_ONLY_TOKEN_RULE, WRITE_SCOPE
from tracker.schemas import Answer
from tracker.web.language import localized_errors

# The house's wording of pydantic's refusals; `{name}` is filled from the error's context.
# pydantic's refusals in the API's words, with the constraint's figures from its context.
MESSAGES = {
    "missing": N_("this field is required"),
    "extra_forbidden": N_("unknown field"),
    "string_type": N_("must be a string"),
    "string_too_short": N_("must not be empty"),
    "string_too_long": N_("must be at most %(max_length)s characters"),
    "int_type": N_("must be a whole number"),
    "bool_type": N_("must be true or false"),
    "dict_type": N_("must be an object"),
    "list_type": N_("must be a list"),
    "greater_than": N_("must be more than %(gt)s"),
    "greater_than_equal": N_("must be %(ge)s or more"),
    "less_than": N_("must be less than %(lt)s"),
    "less_than_equal": N_("must be at most %(le)s"),
    "decimal_max_places": N_("must have at most %(decimal_places)s decimals"),
    "literal_error": N_("must be one of %(expected)s"),
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
        """Return the answer's body, each message in the request's language."""
        return ErrorsOut(errors=localized_errors(self.errors))


def refusals(exc: pydantic.ValidationError) -> dict[str, str]:
    """Return a pydantic refusal as the API's errors: one message per field, the first found."""
    errors: dict[str, str] = {}
    for error in exc.errors(include_url=False):
        field = ".".join(str(part) for part in error["loc"]) or "request"
        if field in errors:
            continue
        errors[field] = _message(error)
    return errors


def _message(error: ErrorDetails) -> str:
    """Return one pydantic refusal's message, marked for translation where the API has words."""
    context = error.get("ctx", {})
    # A rule of the tracker's own (tracker.schemas.refusal) carries its message as it is.
    if isinstance(context.get("message"), str):
        return context["message"]
    template = MESSAGES.get(error["type"])
    if template is None:
        return error["msg"]
    try:
        return msg(template, **context)
    except (KeyError, ValueError, TypeError):
        return error["msg"]


def rename(errors: Mapping[str, str], names: Mapping[str, str]) -> dict[str, str]:
    """Return a service's errors keyed by the API's field names."""
    return {names.get(key, key): message for key, message in errors.items()}


INVALID_TOKEN = N_(
    "the token is not valid: unknown, revoked, expired, or its account is deactivated"
)
MISSING_TOKEN = N_("send an API token in the header Authorization: Bearer TOKEN")


def invalid_token() -> ApiError:
    return ApiError(
        401,
        {"token": INVALID_TOKEN},
        {"WWW-Authenticate": 'Bearer realm="tracker", error="invalid_token"'},
    )


def missing_token() -> ApiError:
    return ApiError(
        401,
        {"token": MISSING_TOKEN},
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
