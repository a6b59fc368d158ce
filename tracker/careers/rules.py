"""The careers' rule constants: evidence, proficiency, apprenticeships, bonuses, rotation."""

from __future__ import annotations

from decimal import Decimal
from typing import TypeGuard

from tracker.i18n import N_, Message, msg
from tracker.people.rules import EARLIEST_DATE as PEOPLE_EARLIEST_DATE

# No career record (evidence, apprenticeship, bonus amount) is dated before a person's
# earliest day; bonuses set before amounts had a history apply from it.
EARLIEST_DATE = PEOPLE_EARLIEST_DATE

# Nobody sets their own level, an admin neither: another person (their manager or an
# admin) does, and the level history names them.
OWN_LEVEL_RULE = N_("you cannot set your own level; your manager or an admin sets it")

# --- evidence ---------------------------------------------------------------------

# What counts as level-5 evidence; the model also knows "other", which does not.
EVIDENCE_KINDS = ("patent", "publication", "deployment")
STORED_EVIDENCE_KINDS = (*EVIDENCE_KINDS, "other")
EVIDENCE_LABELS = {
    "patent": N_("Patent"),
    "publication": N_("Publication"),
    "deployment": N_("Deployment led"),
}
EVIDENCE_REASON = N_("recorded evidence (patents, publications or deployments led)")
MAX_EVIDENCE_TITLE = 300
# The note on a patent, publication or deployment (a link, a number, the role held).
# A rule of its own: a certification's evidence (progress.rules.MAX_EVIDENCE_LENGTH)
# is another record's text, though both hold 2,000 characters today.
MAX_EVIDENCE_NOTE = 2000

# --- proficiency ------------------------------------------------------------------

MIN_PROFICIENCY = 0
MAX_PROFICIENCY = 4
PROFICIENCY_LABELS: dict[int, Message] = {
    0: N_("none"),
    1: N_("basic"),
    2: N_("working"),
    3: N_("advanced"),
    4: N_("expert"),
}
# A speciality is held at this proficiency or above; one holder is a single point of failure.
HELD_AT = 3
PROFICIENCY_RANGE = msg(
    "from %(min)s (%(min_label)s) to %(max)s (%(max_label)s)",
    min=MIN_PROFICIENCY,
    min_label=PROFICIENCY_LABELS[MIN_PROFICIENCY],
    max=MAX_PROFICIENCY,
    max_label=PROFICIENCY_LABELS[MAX_PROFICIENCY],
)

# --- apprenticeships --------------------------------------------------------------

MIN_APPRENTICESHIP_MONTHS = 1
MAX_APPRENTICESHIP_MONTHS = 12
DEFAULT_APPRENTICESHIP_MONTHS = 3
# An apprenticeship starts at most this many months after today.
MAX_APPRENTICESHIP_LEAD_MONTHS = 12
# The senior's productivity loss when the catalog's strategy does not say.
DEFAULT_PRODUCTIVITY_LOSS = 20
MAX_PRODUCTIVITY_LOSS = 100
# What the domain calls a usual apprenticeship, in months: a hint, not a limit.
USUAL_APPRENTICESHIP_MONTHS = "3-6"
# An apprenticeship's note. A rule of its own: the notes of hour logs and exam
# attempts (progress.rules.MAX_NOTE_LENGTH) are those columns' width, this one a
# Text column's limit, though both are 500 characters today.
MAX_APPRENTICESHIP_NOTE_LENGTH = 500

# --- bonuses ----------------------------------------------------------------------

# A bonus is the organisation's own amount, in its currency (to the hundredth, as
# every amount: catalog.rules.DECIMAL_PLACES); its ceiling is the bonus's rule,
# not an exam attempt's cost (progress.rules.MAX_ATTEMPT_COST), though both are
# a million today.
MAX_BONUS = Decimal(1_000_000)
# A quarter is written YYYY-Qn (the groups: the year, the quarter's number).
QUARTER_PATTERN = r"([0-9]{4})-[Qq]([1-4])"
FIRST_QUARTER_YEAR = 1970
LAST_QUARTER_YEAR = 2999
QUARTER_RULE = N_("must be a quarter written YYYY-Qn, Q1 to Q4 (e.g. 2026-Q4)")
# Written right, but of a year outside the calendar the ledger reads.
QUARTER_RANGE_RULE = msg(
    "the year must be from %(first)s to %(last)s (quarters %(first)s-Q1 to %(last)s-Q4)",
    first=FIRST_QUARTER_YEAR,
    last=LAST_QUARTER_YEAR,
)

# --- rotation ---------------------------------------------------------------------

# Someone who has held this many job roles has worked across domains.
ACROSS_DOMAINS_ROLES = 2


def is_whole(value: object) -> TypeGuard[int]:
    """Return whether `value` is a whole number (an int, not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool)
