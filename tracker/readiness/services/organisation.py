"""The organisation at a glance: one summary row per team, from the readiness already judged."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy.orm import Session

from tracker.people.models import Team
from tracker.progress.rules import EXPIRING_WITHIN_DAYS
from tracker.readiness.services.members import Member
from tracker.readiness.services.team import TeamReadiness, organisation_with_members


@dataclass(frozen=True)
class TeamSummary:
    """A team's row of the organisation summary: readiness and certifications lapsing soon."""

    readiness: TeamReadiness
    # Valid certifications of its members expiring within EXPIRING_WITHIN_DAYS.
    lapsing: int

    @property
    def team(self) -> Team:
        return self.readiness.team

    @property
    def band(self) -> str:
        return self.readiness.template.name

    @property
    def filled(self) -> int:
        return self.readiness.filled

    @property
    def total(self) -> int:
        return self.readiness.total

    @property
    def percent(self) -> float:
        return self.readiness.percent


def lapsing_count(
    members: Iterable[Member], on: dt.date, within: int = EXPIRING_WITHIN_DAYS
) -> int:
    """Count the members' credentials held valid on `on` whose cover ends within `within` days."""
    last = on + dt.timedelta(days=within)
    return sum([member.lapsing(on, last) for member in members])


def organisation_summary(session: Session, on: dt.date) -> list[TeamSummary]:
    """Return every team's summary row on `on`, by team name (the queries of `organisation`)."""
    return [
        TeamSummary(result, lapsing_count(members, on))
        for result, members in organisation_with_members(session, on)
    ]
