"""What an import is made of: kinds of file, their rows' problems and the result."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from sqlalchemy.orm import Session

from tracker.badges.services.imports import CheckedBadge
from tracker.errors import ValidationError
from tracker.i18n import N_, join, msg
from tracker.imports.schemas import Row
from tracker.people.models import Engineer

Handler = Callable[[Session, Row, dt.date, "Engineer | None"], object]
# What a badges file's rows were checked as, before its import began: each badge
# verified with its issuer (or refused), by the row's e-mail address and badge URL.
BadgeChecks = Mapping[tuple[str, str], "CheckedBadge | ValidationError"]
# A kind whose rows fetch (badges from their issuers) makes its handler with their checks.
FetchingHandler = Callable[[BadgeChecks], Handler]


@dataclass(frozen=True)
class RowError:
    """A bad row: its line in the file (the header is line 1), the column and the rule."""

    line: int
    column: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}, {self.column}: {self.message}"


class ImportRefused(Exception):
    """Some rows broke a rule; nothing was imported."""

    def __init__(self, errors: list[RowError]) -> None:
        super().__init__("; ".join(str(e) for e in errors))
        self.errors = errors


class RowProblems(Exception):
    """A row's cells could not be read; maps column to rule."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__(str(errors))
        self.errors = errors


@dataclass(frozen=True)
class ImportKind:
    """One kind of CSV file: its columns, how a row is imported, and its name.

    The texts are marked messages; `imported_one`, `imported_many` and `header`
    are templates (of `num`, and of `columns`).
    """

    code: str
    label: str
    imported_one: str
    imported_many: str
    header: str
    columns: tuple[str, ...]
    optional: frozenset[str]
    # Service error keys mapped to the file's column names.
    fields: dict[str, str]
    handler: Handler | None
    help: str
    fetching: FetchingHandler | None = None
    # Of the rows imported, those that met a record already there (a badge verifying a
    # certification entered by hand): templates of `num`, one and many; None when none can.
    existing_one: str | None = None
    existing_many: str | None = None

    def row_handler(self, checks: BadgeChecks) -> Handler:
        """Return what imports a row of this kind (with its rows' `checks`, if it fetches)."""
        if self.fetching is not None:
            return self.fetching(checks)
        assert self.handler is not None, "a kind has a handler or a fetching one"
        return self.handler

    def summary(self, count: int, existing: int = 0) -> str:
        # English and Spanish have the same two plural forms: one, and every other count.
        said = msg(self.imported_one if count == 1 else self.imported_many, num=count)
        if not existing or self.existing_one is None or self.existing_many is None:
            return said
        met = msg(self.existing_one if existing == 1 else self.existing_many, num=existing)
        return join([said, met], " ")

    def columns_rule(self) -> str:
        """Say which columns a file of this kind has."""
        return msg(self.header, columns=",".join(self.columns))


# What a file only checked says (English and Spanish have the same two plural forms).
CHECKED_ONE = N_(
    "The file's %(num)d row passes every rule. Nothing was saved: send the file again"
    " without “Check only” to import it."
)
CHECKED_MANY = N_(
    "The file's %(num)d rows pass every rule. Nothing was saved: send the file again"
    " without “Check only” to import it."
)


@dataclass(frozen=True)
class ImportResult:
    """How many rows of which kind a file imported, and how many met a record already there."""

    kind: ImportKind
    count: int
    existing: int = 0
    # Only checked: the rows passed every rule and were rolled back.
    checked: bool = False

    @property
    def summary(self) -> str:
        if self.checked:
            return msg(CHECKED_ONE if self.count == 1 else CHECKED_MANY, num=self.count)
        return self.kind.summary(self.count, self.existing)


def refuse_if(problems: dict[str, str], columns: tuple[str, ...]) -> None:
    """Raise RowProblems when there are any, in the order of the file's columns."""
    if problems:
        order = {column: i for i, column in enumerate(columns)}
        raise RowProblems(dict(sorted(problems.items(), key=lambda p: order.get(p[0], len(order)))))
