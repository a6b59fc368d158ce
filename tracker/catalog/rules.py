"""The catalog's rules: levels, codes, names, validity, hours, percents, the internal track."""

from __future__ import annotations

import re
from decimal import Decimal

from tracker.i18n import msg

# The skill ladder's rungs: 1 Foundations .. 5 Architect; a new person starts on the first.
MIN_LEVEL = 1
MAX_LEVEL = 5
LEVEL_RULE = msg("level must be from %(min)s to %(max)s", min=MIN_LEVEL, max=MAX_LEVEL)
LEVEL_NUMBER_RULE = msg(
    "level must be a whole number from %(min)s to %(max)s", min=MIN_LEVEL, max=MAX_LEVEL
)

# Column lengths of the catalog's texts.
MAX_CODE_LENGTH = 40
MAX_SHORT_NAME_LENGTH = 80  # level names and experience labels, job role names
MAX_NAME_LENGTH = 120  # issuers, providers, deliveries; template, slot, strategy, speciality names
MAX_TITLE_LENGTH = 200  # credential, course and path names; ROI line labels
MAX_LABEL_LENGTH = 40  # an exam's level label, a speciality's ramp-up
MAX_KIND_LENGTH = 16  # kinds and origins

# Where a catalog row came from: the seed file (owned by `tracker init`), the
# organisation's own admins (an internal track made on the web), or an
# engineer recording a credential that the catalog does not list.
ORIGINS = ("seed", "internal", "engineer")

# Credential kinds: earned by passing one of our exams, earned elsewhere and
# recorded with evidence, or a named group any member of which satisfies it
# ("cloud architect (AWS/Azure/GCP)", "NVIDIA Associate or higher").
CREDENTIAL_KINDS = ("exam", "external", "group")

# The two sides of the ROI example.
ROI_KINDS = ("investment", "return")

# A credential's validity, in months; none means it does not expire.
MIN_VALIDITY_MONTHS = 1
MAX_VALIDITY_MONTHS = 120  # the most an internal track's exam may state

# Exams: the wait before a retake and the passing score, unless the catalog says otherwise.
DEFAULT_RETAKE_WAIT_DAYS = 14
MAX_RETAKE_WAIT_DAYS = 365
DEFAULT_PASSING_SCORE = 70
DEFAULT_EXAM_ISSUER = "NVIDIA"

# Percentages (passing scores, discounts, productivity loss).
MIN_PERCENT = 0
MAX_PERCENT = 100

# Hours and amounts are exact to the hundredth; a course lasts more than 0 hours.
DECIMAL_PLACES = 2
HUNDREDTH = Decimal(1).scaleb(-DECIMAL_PLACES)

# A speciality's time to competence, unless the catalog says otherwise (and its Spanish).
DEFAULT_RAMP_UP = "6-12 months"
DEFAULT_RAMP_UP_ES = "6-12 meses"

# A catalog code (credential, course, learning path) as the internal track takes it.
CODE_PATTERN = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._+-]{{0,{MAX_CODE_LENGTH - 1}}}")
CODE_RULE = msg(
    "1 to %(most)s letters, digits or . _ + - (starting with a letter or digit)",
    most=MAX_CODE_LENGTH,
)
# A code an API body names an entry by: any text of the column's length.
CODE_LENGTH_RULE = msg("must be a code of 1 to %(most)s characters", most=MAX_CODE_LENGTH)

# The internal track: its courses, their hours, its target duration.
MAX_COURSE_HOURS = Decimal(1000)
MAX_TRACK_COURSES = 50
MIN_TARGET_MONTHS = 1
MAX_TARGET_MONTHS = 120
# What the internal track's form offers first: a two-year credential, a quarter's path.
DEFAULT_TRACK_VALIDITY_MONTHS = 24
DEFAULT_TARGET_MONTHS = 3

# The documented experience an exam may require; people document at most as
# much (tracker.people.rules.MAX_EXPERIENCE_MONTHS, which sits above the catalog).
MAX_REQUIRED_EXPERIENCE_MONTHS = 600
