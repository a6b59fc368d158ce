"""Catalog rules: codes, names, course hours and the internal track's limits."""

from __future__ import annotations

import re
from decimal import Decimal

# A catalog code (credential, course, learning path).
CODE_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,39}")
CODE_RULE = "1 to 40 letters, digits or . _ + - (starting with a letter or digit)"
MAX_CODE_LENGTH = 40
# An exam's, a course's or a learning path's name or title.
MAX_TITLE_LENGTH = 200

MAX_COURSE_HOURS = Decimal(1000)
MAX_TRACK_COURSES = 50
MAX_VALIDITY_MONTHS = 120
MAX_TARGET_MONTHS = 120
MAX_RETAKE_WAIT_DAYS = 365
DEFAULT_RETAKE_WAIT_DAYS = 14
# The documented experience an exam may require; people document at most as
# much (tracker.people.rules.MAX_EXPERIENCE_MONTHS, which sits above the catalog).
MAX_REQUIRED_EXPERIENCE_MONTHS = 600
