"""What the catalog's tables share: a text's Spanish beside its English, the checks' SQL."""

from __future__ import annotations

from sqlalchemy import String, Text
from sqlalchemy.orm import Mapped, mapped_column

from tracker.catalog import rules
from tracker.i18n import in_locale


def one_of(column: str, values: tuple[str, ...]) -> str:
    """Return the SQL condition "column IN ('a', 'b')"."""
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


ORIGIN_CHECK = one_of("origin", rules.ORIGINS)
LEVEL_RANGE = f"BETWEEN {rules.MIN_LEVEL} AND {rules.MAX_LEVEL}"
PERCENT_RANGE = f"BETWEEN {rules.MIN_PERCENT} AND {rules.MAX_PERCENT}"


def spanish(length: int | None = None) -> Mapped[str]:
    """Return the column of a text's Spanish: empty when not given (the English is shown)."""
    return mapped_column(Text if length is None else String(length), default="", server_default="")


class Worded:
    """An entry whose words are stored in English with their Spanish beside them (`name_es`)."""

    def in_locale(self, locale: str, field: str | None = None) -> str:
        """Return the entry's name (or `field`) in `locale`, else its English."""
        return in_locale(self, locale, field)
