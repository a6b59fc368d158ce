"""The catalog's tables, a module per concern.

- `columns`: what the tables share: a text's Spanish beside its English (`Worded`,
  `spanish`), the checks' SQL
- `levels`: the ladder's levels and the credentials each requires
- `credentials`: credentials and groups of them, the exams that grant them, courses,
  learning paths
- `skills`: job roles, specialities no certification covers
- `team_templates`: the team a fleet-size band needs, its slots
- `planning`: ways to train, the ROI example's lines
- `version`: the catalog's version stamp, changed by every write to the tables above
"""

# Whoever loads a catalog table also installs the listeners that stamp every write to one.
from tracker.catalog.models import version  # noqa: F401
