"""The readiness rules' constants: query limits, forecast horizon, planning and ROI limits."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from tracker.catalog.rules import MAX_LEVEL
from tracker.i18n import Message, day, grouped, msg
from tracker.people.rules import MAX_GPUS

# Dates a readiness query or plan accepts: a forecast from any of them still
# fits the calendar.
FIRST_DAY = dt.date(1970, 1, 1)
LAST_DAY = dt.date(2999, 12, 31)
CALENDAR_RULE = msg(
    "date must be from %(first)s to %(last)s", first=day(FIRST_DAY), last=day(LAST_DAY)
)

# A readiness query or plan asks about a fleet no larger than a team may hold.
FLEET_GPUS_RULE = msg("GPUs must be from 0 to %(max)s", max=grouped(MAX_GPUS))
GPUS_NUMBER_RULE = msg("must be a whole number of GPUs from 0 to %(max)s", max=grouped(MAX_GPUS))

# Open seats name this many nearest candidates.
NEAREST_CANDIDATES = 3

# The forecast runs month by month this many months ahead (the API lets a
# caller choose up to MAX_FORECAST_MONTHS).
FORECAST_MONTHS = 12
MAX_FORECAST_MONTHS = 60

# A plan that asks more training hours a week than this flags the trainee.
SANE_WEEKLY_HOURS = Decimal(10)
# Shadowing needs a senior of at least this level.
MIN_SHADOW_LEVEL = 4


def _either(values: list[int]) -> str:
    """Say "4 or 5" (or "3, 4 or 5"; one value alone as it is)."""
    *rest, last = [str(v) for v in values]
    return msg("%(rest)s or %(last)s", rest=", ".join(rest), last=last) if rest else last


SHADOW_RULE: Message = msg(
    "needs a senior (level %(levels)s) to shadow",
    levels=_either(list(range(MIN_SHADOW_LEVEL, MAX_LEVEL + 1))),
)

# The strategy whose per-participant cost is the list price discounts apply to.
LIST_PRICE_STRATEGY = "bootcamp"
WEEKS_PER_YEAR = 52

# The ROI calculator's lines: how many of each kind, a label's length, an amount.
MAX_ROI_LINES = 20
MAX_ROI_LABEL_LENGTH = 200
MAX_ROI_AMOUNT = 10_000_000_000
ROI_AMOUNT_RULE = msg("amount must be from 0 to %(max)s", max=grouped(MAX_ROI_AMOUNT))
# A line's amount as the calculator reads it: whole currency units.
ROI_LINE_RULE = msg("must be a whole amount from 0 to %(max)s", max=grouped(MAX_ROI_AMOUNT))
ROI_LINES_RULE = msg("must hold at most %(max)s lines", max=MAX_ROI_LINES)
ROI_LABEL_RULE = msg("a line's name must be at most %(max)s characters", max=MAX_ROI_LABEL_LENGTH)

# Teams whose lapses are judged per round trip: members of 25 teams load in one query.
TEAMS_PER_BATCH = 25
# Teams the day boundary brings to the new day per unit of work, committed at once:
# a page reading a team meanwhile waits for one unit's row locks at most, never for
# the whole organisation's.
TEAMS_PER_COMMIT = 4 * TEAMS_PER_BATCH

# The trend compares a team's readiness today with its snapshot this many days
# before (or the latest one before that, no older than twice as many days).
TREND_DAYS = 30

# The history the pages draw and the API answers by default (the API lets a
# caller ask for up to MAX_HISTORY_MONTHS); `tracker demo` back-fills as many.
HISTORY_MONTHS = 12
MAX_HISTORY_MONTHS = 60

# The plan's target date when the page opens without one: this many months ahead.
PLAN_DEFAULT_MONTHS = 6

# Stored percentages are whole tenths of a percent (87.5 % is 875).
PERCENT_TENTHS = 10

# The organisation table shows this many teams a page (the API's default page too).
ORGANISATION_PAGE_ROWS = 50
