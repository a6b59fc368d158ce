"""The JSON API under /api/v1, for scripts and HR systems: one module per resource.

Views are thin: read the input (pydantic models of each feature's schemas),
check the permission, call the service, write the answer (a pydantic model).
"""

from tracker.api import (
    attempts,
    bonuses,
    certifications,
    credentials,
    engineers,
    hours,
    organisation,
    personal_data,
    roi,
    skills,
    teams,
    webhooks,
)
from tracker.api.blueprint import bp

RESOURCES = (
    attempts,
    bonuses,
    certifications,
    credentials,
    engineers,
    hours,
    organisation,
    personal_data,
    roi,
    skills,
    teams,
    webhooks,
)

__all__ = ["RESOURCES", "bp"]
