"""The heat map: each member's state of each credential a team's page shows."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from tracker.catalog.models import Credential, TeamTemplate
from tracker.progress.models import Certification
from tracker.progress.services import (
    PathProgress,
    Status,
    days_left,
    holding,
    latest_for,
    status_on,
)
from tracker.readiness.services.members import Member


@dataclass(frozen=True)
class HeatCell:
    status: Status
    certification: Certification | None
    days_left: int | None = None


def heat_cell(member: Member, credential: Credential, on: dt.date) -> HeatCell:
    """Return the state of one credential (or group) for one member on `on`."""
    held = holding(member.certifications, credential, on)
    if held is not None:
        return HeatCell(status_on(held, on), held, days_left(held, on))
    last = latest_for((c for c in member.certifications if c.earned_on <= on), credential)
    if last is not None:
        return HeatCell(Status.EXPIRED, last, days_left(last, on))
    return HeatCell(Status.MISSING, None)


def heat_columns(
    template: TeamTemplate, path_credentials: Sequence[Credential]
) -> list[Credential]:
    """Return the credentials a team's heat map shows: the paths' exams, then the template's."""
    columns: list[Credential] = []
    for credential in [
        *path_credentials,
        *(c for slot in template.slots for c in slot.credentials),
        *template.team_credentials,
    ]:
        if credential not in columns:
            columns.append(credential)
    return columns


@dataclass(frozen=True)
class HeatRow:
    member: Member
    cells: list[HeatCell]
    paths: list[PathProgress]
