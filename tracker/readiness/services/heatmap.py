"""The heat map: each member's state of each credential a team's page shows."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from tracker.progress.models import Certification
from tracker.progress.services.paths import PathProgress
from tracker.progress.services.validity import Status, days_left, holding, latest_for, status_on
from tracker.readiness.services.matching import Template
from tracker.readiness.services.members import AnyCredential, HeldCertification, Member


@dataclass(frozen=True)
class HeatCell:
    status: Status
    certification: Certification | HeldCertification | None
    days_left: int | None = None
    # The certification that counts was proved by its issuer's badge.
    verified: bool = False


def heat_cell(
    member: Member,
    credential: AnyCredential,
    on: dt.date,
    verified_ids: Collection[int] = frozenset(),
) -> HeatCell:
    """Return the state of one credential (or group) for one member on `on`."""
    # progress types these as the mapped classes; the plain copies read the same fields.
    held = holding(member.certifications, credential, on)  # type: ignore[arg-type]
    if held is not None:
        return HeatCell(
            status_on(held, on), held, days_left(held, on), verified=held.id in verified_ids
        )
    earned = [c for c in member.certifications if c.earned_on <= on]
    last = latest_for(earned, credential)  # type: ignore[arg-type]
    if last is not None:
        return HeatCell(Status.EXPIRED, last, days_left(last, on))
    return HeatCell(Status.MISSING, None)


def heat_columns(
    template: Template, path_credentials: Sequence[AnyCredential]
) -> list[AnyCredential]:
    """Return the credentials a team's heat map shows: the paths' exams, then the template's."""
    columns: list[AnyCredential] = []
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
