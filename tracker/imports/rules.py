"""CSV import rules: file size and cell words.

A cell's limits are its feature's rules (an attempt's score and cost in
tracker.progress.rules, a level in tracker.catalog.rules): the importer checks
them before the services do only so that a row reports every bad cell at once.
"""

from __future__ import annotations

MAX_IMPORT_ROWS = 5000
# How a yes/no cell may be written (case-insensitive).
TRUE_WORDS = frozenset({"yes", "y", "true", "1", "pass", "passed"})
FALSE_WORDS = frozenset({"no", "n", "false", "0", "fail", "failed"})
# Job roles in a people file's job_roles cell are separated by this.
JOB_ROLE_SEPARATOR = ";"
