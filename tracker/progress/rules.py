"""The progress rules' constants: hour limits, text lengths, scores, expiry warnings."""

from __future__ import annotations

from decimal import Decimal

from tracker.catalog.rules import DECIMAL_PLACES
from tracker.i18n import N_, msg
from tracker.people.rules import EARLIEST_DATE

# A day holds at most this many hours, over all of an engineer's entries.
HOURS_PER_DAY = Decimal(24)
# HOURS_PER_DAY as the database stores it: hours, like every amount, are kept
# in hundredths (catalog.rules.DECIMAL_PLACES, db.Fixed).
STORED_HOURS_PER_DAY = int(HOURS_PER_DAY.scaleb(DECIMAL_PLACES))
HOURS_PER_DAY_TEXT = msg("a day holds at most %(most)s hours", most=HOURS_PER_DAY)
HOURS_RANGE_TEXT = msg("hours must be more than 0 and at most %(most)s", most=HOURS_PER_DAY)
# Entries the hours page lists at a time, newest first.
HOUR_LOG_PAGE_SIZE = 50

MAX_NOTE_LENGTH = 500
MAX_EVIDENCE_LENGTH = 2000
# A credential earned elsewhere is recorded with evidence; a verified badge is its own.
EVIDENCE_REQUIRED = N_("evidence is required (a certificate number, a link or a note)")
MAX_VOUCHER_CODE_LENGTH = 80
MAX_PROCTORING_LENGTH = 200
# A credential the catalog lacks, as an engineer enters it.
MAX_CREDENTIAL_NAME_LENGTH = 200
MAX_ISSUER_LENGTH = 120

# An exam attempt: its score (percent), its cost (in the organisation's currency).
MIN_SCORE = 0
MAX_SCORE = 100
SCORE_TEXT = msg(
    "score must be a whole number from %(min)s to %(max)s", min=MIN_SCORE, max=MAX_SCORE
)
MAX_ATTEMPT_COST = Decimal(1_000_000)

# No certification is dated before the first day of any record of a person.
EARLIEST_CERTIFICATION = EARLIEST_DATE
# An expiry entered by hand for a credential the catalog gives no validity runs at
# most this many years from the issue date; one that never expires is left empty.
MAX_ENTERED_VALIDITY_YEARS = 10

# A valid certification is "expiring" this many days or fewer before its expiry.
EXPIRING_WITHIN_DAYS = 90
# The widest "expiring within" a caller may ask for: a century.
MAX_EXPIRING_WITHIN_DAYS = 36_500
