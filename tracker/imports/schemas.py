"""The rows of the CSV files, as pydantic models: each cell's shape and its rule.

The cells arrive as stripped text ("" when empty). A file is data in one fixed
format whatever the reader's language (1200.5, 2026-03-31, yes): a refused
cell's message names its column and the format wanted, and quotes the file's
text (what it holds, what to write) one way, 'like this'. References
to stored rows (a person's email, a course code) are checked by the services.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, PlainValidator, ValidationInfo
from pydantic import ValidationError as PydanticValidationError
from pydantic_core import PydanticCustomError

from tracker.badges.rules import MAX_URL_LENGTH
from tracker.catalog.rules import (
    HUNDREDTH,
    LEVEL_NUMBER_RULE,
    MAX_LEVEL,
    MIN_LEVEL,
)
from tracker.catalog.services.internal_track import parse_decimal
from tracker.i18n import N_, msg
from tracker.imports.rules import FALSE_WORDS, JOB_ROLE_SEPARATOR, TRUE_WORDS
from tracker.people.rules import ACCESS_ROLE_RULE, ACCESS_ROLES
from tracker.people.services.checks import experience_error, locale_error
from tracker.progress.rules import (
    MAX_ATTEMPT_COST,
    MAX_EVIDENCE_LENGTH,
    MAX_PROCTORING_LENGTH,
    MAX_SCORE,
    MAX_VOUCHER_CODE_LENGTH,
    MIN_SCORE,
    SCORE_TEXT,
)

Row = dict[str, str]

# The figures are written out (a marked text is a literal); a test holds them to the rules.
COST_RULE = N_("cost must be from 0 to 1,000,000, with at most 2 decimals")


def _refuse(message: str) -> PydanticCustomError:
    # The message goes in the context: a cell's text may hold braces.
    return PydanticCustomError("cell", "{message}", {"message": message})


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _required(value: Any, info: ValidationInfo) -> str:
    text = _text(value)
    if not text:
        raise _refuse(msg("%(column)s is required", column=info.field_name))
    return text


def _optional(default: Any) -> Callable[[Callable[[str, str], Any]], Callable[..., Any]]:
    """Wrap a cell parser so that an empty cell gives `default`."""

    def wrap(parse: Callable[[str, str], Any]) -> Callable[..., Any]:
        def cell(value: Any, info: ValidationInfo) -> Any:
            text = _text(value)
            return parse(text, str(info.field_name)) if text else default

        return cell

    return wrap


def _needed(parse: Callable[[str, str], Any]) -> Callable[..., Any]:
    """Wrap a cell parser so that an empty cell is refused."""

    def cell(value: Any, info: ValidationInfo) -> Any:
        return parse(_required(value, info), str(info.field_name))

    return cell


def _as_text(text: str, column: str) -> str:
    return text


def _as_date(text: str, column: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise _refuse(
            msg(
                "%(column)s must be a date written YYYY-MM-DD, e.g. 2026-03-31; not %(text)r",
                column=column,
                text=text,
            )
        ) from None


def _as_int(text: str, column: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise _refuse(
            msg(
                "%(column)s must be a whole number written in digits alone, e.g. 1200;"
                " not %(text)r",
                column=column,
                text=text,
            )
        ) from None


def _as_number(text: str, column: str) -> Decimal:
    value = parse_decimal(text)
    if value is None:
        raise _refuse(
            msg(
                "%(column)s must be a number written with a decimal point and no thousands"
                " separator, e.g. 1200.5; not %(text)r",
                column=column,
                text=text,
            )
        )
    return value


def _as_yes_no(text: str, column: str) -> bool:
    word = text.lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise _refuse(msg("%(column)s must be 'yes' or 'no'; not %(text)r", column=column, text=text))


def _at_most(limit: int) -> Callable[[str, ValidationInfo], str]:
    def check(value: str, info: ValidationInfo) -> str:
        if len(value) > limit:
            raise _refuse(
                msg(
                    "%(column)s must be at most %(max)s characters",
                    column=info.field_name,
                    max=limit,
                )
            )
        return value

    return check


def split_codes(text: str) -> list[str]:
    """Return the job-role codes a job_roles cell lists."""
    return [c.strip() for c in text.split(JOB_ROLE_SEPARATOR) if c.strip()]


def _role(value: str) -> str:
    if value not in ACCESS_ROLES:
        raise _refuse(ACCESS_ROLE_RULE)
    return value


def _level(value: int) -> int:
    if not MIN_LEVEL <= value <= MAX_LEVEL:
        raise _refuse(LEVEL_NUMBER_RULE)
    return value


def _experience(value: int) -> int:
    if problem := experience_error(value):
        raise _refuse(problem)
    return value


def _score(value: int) -> int:
    if not MIN_SCORE <= value <= MAX_SCORE:
        raise _refuse(SCORE_TEXT)
    return value


def _cost(value: Decimal | None) -> Decimal | None:
    if value is not None and (
        not 0 <= value <= MAX_ATTEMPT_COST or value != value.quantize(HUNDREDTH)
    ):
        raise _refuse(COST_RULE)
    return value


def _locale(value: str) -> str:
    if problem := locale_error(value):
        raise _refuse(problem)
    return value


Text = Annotated[str, PlainValidator(_needed(_as_text))]
OptionalText = Annotated[str, PlainValidator(_optional("")(_as_text))]
MaybeText = Annotated[str | None, PlainValidator(_optional(None)(_as_text))]
Date = Annotated[dt.date, PlainValidator(_needed(_as_date))]
OptionalDate = Annotated[dt.date | None, PlainValidator(_optional(None)(_as_date))]
Whole = Annotated[int, PlainValidator(_needed(_as_int))]
Number = Annotated[Decimal, PlainValidator(_needed(_as_number))]
YesNo = Annotated[bool, PlainValidator(_needed(_as_yes_no))]


class _CsvRow(BaseModel):
    model_config = ConfigDict(frozen=True)


class PersonRow(_CsvRow):
    """A line of a people file."""

    email: Text
    name: Text
    role: Annotated[str, PlainValidator(_optional("engineer")(_as_text)), AfterValidator(_role)]
    job_roles: Annotated[list[str], PlainValidator(lambda value: split_codes(_text(value)))]
    level: Annotated[int, PlainValidator(_optional(MIN_LEVEL)(_as_int)), AfterValidator(_level)]
    team: MaybeText
    manager_email: MaybeText
    hired_on: OptionalDate
    experience_months: Annotated[
        int, PlainValidator(_optional(0)(_as_int)), AfterValidator(_experience)
    ]
    # The password as written, spaces kept; None when the cell is empty.
    password: Annotated[str | None, PlainValidator(lambda value: _text(value) or None)]
    # The person's language; empty (or no column): the browser's choice.
    locale: Annotated[str, PlainValidator(_optional("")(_as_text)), AfterValidator(_locale)]
    # Whether they get the weekly digest; empty (or no column): on, as for anyone added.
    weekly_digest: Annotated[bool, PlainValidator(_optional(True)(_as_yes_no))]


class HoursRow(_CsvRow):
    """A line of an hour-log file."""

    email: Text
    course: Text
    date: Date
    hours: Number
    note: OptionalText


class AttemptRow(_CsvRow):
    """A line of an exam-attempt file."""

    email: Text
    exam: Text
    date: Date
    score: Annotated[int, PlainValidator(_needed(_as_int)), AfterValidator(_score)]
    passed: YesNo
    cost: Annotated[
        Decimal | None, PlainValidator(_optional(None)(_as_number)), AfterValidator(_cost)
    ]
    voucher_code: Annotated[
        str,
        PlainValidator(_optional("")(_as_text)),
        AfterValidator(_at_most(MAX_VOUCHER_CODE_LENGTH)),
    ]
    proctoring: Annotated[
        str,
        PlainValidator(_optional("")(_as_text)),
        AfterValidator(_at_most(MAX_PROCTORING_LENGTH)),
    ]


class CredentialRow(_CsvRow):
    """A line of an external-credential file."""

    email: Text
    credential: Text
    issued_on: Date
    expires_on: OptionalDate
    # Left empty, record_credential says what evidence is.
    evidence: Annotated[
        str, PlainValidator(_optional("")(_as_text)), AfterValidator(_at_most(MAX_EVIDENCE_LENGTH))
    ]


class BadgeRow(_CsvRow):
    """A line of a badges file: whose badge, and where its issuer hosts it."""

    email: Text
    badge_url: Annotated[
        str, PlainValidator(_needed(_as_text)), AfterValidator(_at_most(MAX_URL_LENGTH))
    ]


RowModel = TypeVar("RowModel", bound=_CsvRow)


def read_row(
    schema: type[RowModel], row: Row, problems: dict[str, str], **cells: str
) -> RowModel | None:
    """Return the row read by `schema`, or None with each bad cell's rule put in `problems`.

    `cells` give a column's text other than the row's (the password as written).
    """
    data = {name: cells.get(name, row.get(name, "")) for name in schema.model_fields}
    try:
        return schema.model_validate(data)
    except PydanticValidationError as exc:
        for error in exc.errors():
            # A cell's own refusal keeps its marked message, to be shown in the reader's language.
            refused = error.get("ctx", {}).get("message")
            problems.setdefault(
                str(error["loc"][0]), refused if isinstance(refused, str) else error["msg"]
            )
        return None
