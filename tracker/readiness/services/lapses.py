"""Judging lapses: how a team's readiness drops when a certification lapses, kept per team."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from typing import cast

from sqlalchemy import Table, bindparam, delete, insert, or_, select, update
from sqlalchemy.orm import Session

from tracker.catalog.models.team_templates import TeamTemplate
from tracker.i18n import N_, Message, join, msg
from tracker.people.models import Team
from tracker.readiness.models import LapseImpact
from tracker.readiness.rules import TEAMS_PER_BATCH
from tracker.readiness.services.matching import SlotNeeds, choose_template
from tracker.readiness.services.members import (
    HeldCertification,
    Member,
    load_members,
    load_templates,
)
from tracker.readiness.services.team import readiness

# What a lapse does, as kept in lapse_impacts (the English text) and read back
# by `impact_message` to be shown in each reader's language.
SEATS_LOST = N_(
    "seats no one else can fill: %(lost)s (%(filled)s/%(total)s instead of "
    "%(kept_filled)s/%(kept_total)s)"
)
LAST_HOLDER = N_("the team loses its last valid %(code)s")
IMPACT_SEPARATOR = "; "
# The same impact as texts kept before the wording changed: read as today's message.
_EARLIER_SEATS_LOST = (
    "%(lost)s seat(s) no one else can fill (%(filled)s/%(total)s instead of "
    "%(kept_filled)s/%(kept_total)s)"
)


def _pattern(template: str) -> re.Pattern[str]:
    """Return the regular expression that reads a text written from `template` back."""
    escaped = re.escape(template)
    return re.compile(re.sub(r"%\\\((\w+)\\\)s", r"(?P<\1>.+?)", escaped))


_IMPACT_PATTERNS = tuple(
    (template, _pattern(written))
    for template, written in (
        (SEATS_LOST, SEATS_LOST),
        (LAST_HOLDER, LAST_HOLDER),
        (SEATS_LOST, _EARLIER_SEATS_LOST),
    )
)


def impact_message(text: str) -> str:
    """Return a kept impact text as the marked message it was written from (else as it is)."""
    parts: list[Message] = []
    for part in text.split(IMPACT_SEPARATOR) if text else ():
        found = next(
            (
                msg(template, **matched.groupdict())
                for template, pattern in _IMPACT_PATTERNS
                if (matched := pattern.fullmatch(part))
            ),
            None,
        )
        if found is None:
            return text
        parts.append(found)
    return join(parts, IMPACT_SEPARATOR) if parts else text


def lapse_impact(
    team: Team,
    members: Sequence[Member],
    templates: Sequence[TeamTemplate],
    certification_id: int,
    engineer_id: int,
    after: dt.date,
) -> str:
    """Return how the team's readiness on `after` drops because a certification lapses.

    Compared with the same team in which the certification never expires.
    Only its holder differs between the two, so unless the holder fits a slot
    thanks to it, no seat changes and the matchings need not be run.
    """
    if not templates:
        return ""
    member = next((m for m in members if m.id == engineer_id), None)
    cert = None
    if member is not None:
        cert = next((c for c in member.certifications if c.id == certification_id), None)
    if member is None or cert is None:
        return ""
    kept_cert = HeldCertification(
        cert.id, cert.engineer_id, cert.credential_id, cert.earned_on, None, cert.credential
    )
    kept = Member(
        member.engineer,
        tuple(kept_cert if c.id == cert.id else c for c in member.certifications),
    )
    template = choose_template(templates, team.gpus)
    reasons = []
    if any(
        needs.met_by(kept, after) != needs.met_by(member, after)
        for needs in (SlotNeeds.of(slot) for slot in template.slots)
    ):
        lapsed_result = readiness(team, members, templates, after, candidates=False)
        kept_result = readiness(
            team,
            [kept if m.id == engineer_id else m for m in members],
            templates,
            after,
            candidates=False,
        )
        if kept_result.filled > lapsed_result.filled:
            reasons.append(
                msg(
                    SEATS_LOST,
                    lost=kept_result.filled - lapsed_result.filled,
                    filled=lapsed_result.filled,
                    total=lapsed_result.total,
                    kept_filled=kept_result.filled,
                    kept_total=kept_result.total,
                )
            )
    for credential in template.team_credentials:
        wanted = credential.satisfying_ids()
        if kept.holds(wanted, after) and not any(m.holds(wanted, after) for m in members):
            reasons.append(msg(LAST_HOLDER, code=credential.code))
    return str(join(reasons, IMPACT_SEPARATOR))


def judge_lapses(
    session: Session, today: dt.date, grace_days: int, *, every_team: bool = False
) -> int:
    """Judge the lapses of teams whose readiness moved since last judged; return how many teams.

    `every_team` judges them all (the catalog changed). A team's certifications
    are judged from `grace_days` before today on, in whatever year they expire,
    so a certification coming into reach later finds its judgement waiting.
    """
    stale = select(Team.id, Team.readiness_revision).order_by(Team.id)
    if not every_team:
        stale = stale.where(Team.readiness_revision != Team.judged_revision)
    teams = session.execute(stale).tuples().all()
    if teams:
        templates = load_templates(session)
        since = today - dt.timedelta(days=grace_days)
        for start in range(0, len(teams), TEAMS_PER_BATCH):
            batch = dict(teams[start : start + TEAMS_PER_BATCH])
            entities = {t.id: t for t in session.scalars(select(Team).where(Team.id.in_(batch)))}
            members = load_members(session, batch) if templates else {}
            found = [
                {
                    "certification_id": cert.id,
                    "team_id": team_id,
                    "expires_on": cert.expires_on,
                    "impact": impact,
                }
                for team_id in batch
                for member in members.get(team_id, [])
                for cert in member.certifications
                if cert.expires_on is not None and cert.expires_on >= since
                for impact in [
                    lapse_impact(
                        entities[team_id],
                        members[team_id],
                        templates,
                        cert.id,
                        member.id,
                        cert.expires_on + dt.timedelta(days=1),
                    )
                ]
                if impact
            ]
            table = cast(Table, LapseImpact.__table__)
            connection = session.connection()
            connection.execute(
                delete(table).where(
                    or_(
                        table.c.team_id.in_(batch),
                        table.c.certification_id.in_([f["certification_id"] for f in found]),
                    )
                )
            )
            if found:
                connection.execute(insert(table), found)
            # The revision read, not the current one: a change made meanwhile
            # leaves the team to be judged again by the next pass.
            teams_table = cast(Table, Team.__table__)
            connection.execute(
                update(teams_table)
                .where(teams_table.c.id == bindparam("team"))
                .values(judged_revision=bindparam("revision")),
                [{"team": team_id, "revision": revision} for team_id, revision in batch.items()],
            )
    return len(teams)
