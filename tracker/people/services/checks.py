"""The rules a person's fields keep: email, name, job roles, level, experience, language, hire date.

Each returns the problem in words marked for translation, or None (the job roles:
the roles and the problem); the writers raise them as ValidationErrors naming the field.
"""

from __future__ import annotations

import datetime as dt

from email_validator import EmailNotValidError, validate_email
from sqlalchemy.orm import Session

from tracker.catalog.models.levels import Level
from tracker.catalog.rules import LEVEL_NUMBER_RULE, MAX_LEVEL, MIN_LEVEL
from tracker.errors import ValidationError
from tracker.i18n import N_, msg
from tracker.people.rules import (
    BROWSER_LOCALE,
    EARLIEST_DATE,
    EMAIL_RULE,
    EXPERIENCE_RULE,
    HIRED_IN_FUTURE,
    HIRED_TOO_EARLY,
    LOCALE_RULE,
    LOCALES,
    MAX_EXPERIENCE_MONTHS,
    MAX_NAME_LENGTH,
    ONE_LINE_RULE,
    is_one_line,
)
from tracker.people.services.access import is_whole

# What the email validator finds wrong (a part of its English text), in words a reader
# has in their language; the first that matches says it. Periods and hyphens come late:
# other texts mention them too.
EMAIL_PROBLEMS = (
    ("must have an @-sign", N_("it has no @ sign")),
    ("something before the @-sign", N_("nothing comes before the @ sign")),
    ("something after the @-sign", N_("nothing comes after the @ sign")),
    ("It should have a period", N_("the part after the @ sign has no period (example.com)")),
    ("top-level domain", N_("the part after the @ sign does not end in a valid domain")),
    ("special-use or reserved name", N_("the part after the @ sign is a reserved name")),
    ("too long", N_("it is too long")),
    ("display name", N_("write the address alone, without a name or angle brackets")),
    ("bracket", N_("the part after the @ sign must be a domain name, not an IP address")),
    ("Quoting", N_("the part before the @ sign must not be in quotes")),
    ("period", N_("a period or hyphen is out of place")),
    ("hyphen", N_("a period or hyphen is out of place")),
    ("character", N_("it holds a character an email address cannot have")),
)


def email_problem(detail: str) -> str:
    """Return why an email address is refused, from the validator's English `detail`."""
    for part, problem in EMAIL_PROBLEMS:
        if part in detail:
            return msg("not a valid email address: %(reason)s", reason=problem)
    return EMAIL_RULE


def normalise_email(email: str) -> str:
    """Return the email in the stored form (validated, lower-cased), or raise."""
    try:
        return validate_email(email.strip(), check_deliverability=False).normalized.lower()
    except EmailNotValidError as exc:
        raise ValidationError({"email": email_problem(str(exc))}) from None


def experience_error(months: object) -> str | None:
    """Return the rule a documented experience in months breaks, or None."""
    if not is_whole(months) or not 0 <= months <= MAX_EXPERIENCE_MONTHS:
        return EXPERIENCE_RULE
    return None


def level_error(session: Session, level: object) -> str | None:
    """Return the rule a level breaks, or None."""
    if (
        not is_whole(level)
        or not MIN_LEVEL <= level <= MAX_LEVEL
        or session.get(Level, level) is None
    ):
        return LEVEL_NUMBER_RULE
    return None


def locale_error(locale: object) -> str | None:
    """Return the rule a language setting breaks, or None."""
    if locale != BROWSER_LOCALE and locale not in LOCALES:
        return LOCALE_RULE
    return None


def name_error(name: str) -> str | None:
    if not name.strip() or len(name.strip()) > MAX_NAME_LENGTH:
        return msg("name must be 1 to %(max)s characters", max=MAX_NAME_LENGTH)
    if not is_one_line(name.strip()):
        return ONE_LINE_RULE
    return None


def hire_date_error(hired_on: object, today: dt.date) -> str | None:
    """Return the rule a hire date breaks (a date from EARLIEST_DATE to `today`), or None."""
    if hired_on is None:
        return None
    if not isinstance(hired_on, dt.date):
        return N_("hire date must be a date (YYYY-MM-DD)")
    if hired_on < EARLIEST_DATE:
        return HIRED_TOO_EARLY
    if hired_on > today:
        return HIRED_IN_FUTURE
    return None
