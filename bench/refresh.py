"""A team's readiness brought up to date after a change, as the pages and the API do."""

from __future__ import annotations

import statistics
import time

from sqlalchemy import func, select

from bench.common import make_app
from bench.figures import Figures

# Bringing a team's readiness up to date after a change, at the largest size (and every other).
REFRESH_TARGET_MS = 50
REFRESH_REPEAT = 15


def bench_refresh(url: str, size: int, today, figures: Figures) -> None:
    """Time `up_to_date` after one member of the largest team changed level.

    As the organisation page and the API call it (every team looked at, the
    changed one recomputed, the organisation's day summed), and as the team
    page calls it (that team only). Each timing follows a change of its own,
    committed first, as another request would have.
    """
    from tracker.db import writing
    from tracker.people.models import Engineer, Team
    from tracker.readiness.services.current import up_to_date

    app = make_app(url)
    engine = app.extensions["tracker.engine"]
    factory = app.extensions["tracker.sessions"]
    try:
        with factory() as session:
            team_id = session.execute(
                select(Engineer.team_id)
                .where(Engineer.active.is_(True), Engineer.team_id.is_not(None))
                .group_by(Engineer.team_id)
                .order_by(func.count(Engineer.id).desc(), Engineer.team_id)
                .limit(1)
            ).scalar_one()
            engineer_id, level = session.execute(
                select(Engineer.id, Engineer.level)
                .where(Engineer.team_id == team_id, Engineer.active.is_(True))
                .order_by(Engineer.id)
                .limit(1)
            ).one()
            teams = session.scalar(select(func.count(Team.id)))
            # Bring everything current first: only the change is measured.
            up_to_date(session, factory, today)
        other = level + 1 if level < 5 else level - 1

        levels = [level]

        def change(to: int) -> None:
            # Through the ORM, as the people services write: the flush bumps the revision.
            with writing(), factory() as session, session.begin():
                session.get(Engineer, engineer_id).level = to
            levels.append(to)

        def timed(team_ids) -> float:
            times = []
            for _ in range(REFRESH_REPEAT):
                change(other if levels[-1] == level else level)
                with factory() as session:
                    began = time.perf_counter()
                    changed = up_to_date(session, factory, today, team_ids=team_ids)
                    times.append(time.perf_counter() - began)
                    session.commit()
                assert changed == 1, f"{changed} teams recomputed after one change"
            return statistics.median(times)

        every = timed(None)
        one = timed([team_id])
        if levels[-1] != level:
            change(level)
        with factory() as session:
            up_to_date(session, factory, today)
            session.commit()
        for label, seconds, key in (
            (f"as the organisation page does (all {teams} teams looked at)", every, "refresh"),
            ("as the team page does (that team only)", one, "refresh team"),
        ):
            figures.add(
                size,
                f"a team's readiness up to date after a change, {label}",
                "ms",
                seconds * 1000,
                None,
                f"<= {REFRESH_TARGET_MS} ms",
                seconds * 1000 <= REFRESH_TARGET_MS,
                key=key,
            )
    finally:
        engine.dispose()
