"""Rotation: an engineer's job roles over time."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from tracker.careers.rules import ACROSS_DOMAINS_ROLES
from tracker.catalog.models.skills import JobRole
from tracker.people.models import Engineer, JobRoleAssignment


@dataclass(frozen=True)
class Rotation:
    """An engineer's job roles over time."""

    engineer: Engineer
    assignments: list[JobRoleAssignment]

    @property
    def roles(self) -> list[JobRole]:
        """Return the distinct job roles held, in the order first taken."""
        seen: list[JobRole] = []
        for a in self.assignments:
            if a.job_role not in seen:
                seen.append(a.job_role)
        return seen

    @property
    def across_domains(self) -> bool:
        """Return whether the engineer has worked in two or more job roles."""
        return len(self.roles) >= ACROSS_DOMAINS_ROLES


def rotation(engineer: Engineer, on: dt.date | None = None) -> Rotation:
    """Return the job-role history of `engineer` (up to `on` when given), oldest first."""
    assignments = sorted(
        (a for a in engineer.role_assignments if on is None or a.started_on <= on),
        key=lambda a: (a.started_on, a.id or 0),
    )
    return Rotation(engineer, assignments)
