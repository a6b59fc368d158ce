"""CSV import rules: file size, cell words and the limits the importer checks itself."""

from __future__ import annotations

MAX_IMPORT_ROWS = 5000
# An exam attempt's cost, in the organisation's currency, with at most 2 decimals.
MAX_COST = 1_000_000
# The exam's score, as record_attempt checks it; the importer checks it first so
# a row reports every bad cell at once.
MIN_SCORE = 0
MAX_SCORE = 100
# The lengths of an exam attempt's voucher code and proctoring columns.
MAX_VOUCHER_LENGTH = 80
MAX_PROCTORING_LENGTH = 200
# How a yes/no cell may be written (case-insensitive).
TRUE_WORDS = frozenset({"yes", "y", "true", "1", "pass", "passed"})
FALSE_WORDS = frozenset({"no", "n", "false", "0", "fail", "failed"})
# Job roles in a people file's job_roles cell are separated by this.
JOB_ROLE_SEPARATOR = ";"
