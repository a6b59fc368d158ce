"""The page figures, measured in a process of their own (`bench.run` starts it).

`python -m bench.pages URL SIZE ADMIN PASSWORD YYYY-MM-DD` prints the figures as
JSON on its last line: the team readiness page and the organisation page
through the Flask test client signed in as an admin, each timed alternately
with its hand-written SQL baseline (bench/baselines.py), and the SQL queries
each page issues.
"""

from __future__ import annotations

import datetime as dt
import json
import statistics
import sys
import time

import pyotp
from sqlalchemy import event, func, select

from bench import baselines
from bench.common import make_app

PAGE_TARGET = 1.5


def paired_medians(fn, baseline, repeat: int) -> tuple[float, float]:
    """Time `fn` and `baseline` alternately (noise hits both alike); return both medians."""
    ours, theirs = [], []
    for _ in range(repeat):
        for f, times in ((fn, ours), (baseline, theirs)):
            began = time.perf_counter()
            f()
            times.append(time.perf_counter() - began)
    return statistics.median(ours), statistics.median(theirs)


def measure(url: str, size: int, admin: str, password: str, today: dt.date) -> list[dict]:
    from tracker.demo.services.common import DEMO_ADMIN_TOTP_SECRET
    from tracker.people.models import Engineer, Team
    from tracker.readiness.services.team import organisation
    from tracker.readiness.services.team_page import team_page

    rows = []
    app = make_app(url)
    engine = app.extensions["tracker.engine"]
    queries = [0]

    @event.listens_for(engine, "before_cursor_execute")
    def count(*_):
        queries[0] += 1

    factory = app.extensions["tracker.sessions"]
    with factory() as session:
        team_id = session.execute(
            select(Team.id)
            .join(Engineer, Engineer.team_id == Team.id)
            .where(Engineer.active.is_(True))
            .group_by(Team.id)
            .order_by(func.count(Engineer.id).desc(), Team.id)
            .limit(1)
        ).scalar_one()
        team = session.get(Team, team_id)
        page = team_page(session, team, today)
        org = {r.team.id: (r.filled, r.total) for r in organisation(session, today)}
        members = len(page.rows)
        expected = (
            (page.readiness.filled, page.readiness.total),
            [p.filled for p in page.forecast],
            [[c.status.value for c in r.cells] for r in page.rows],
        )
        del page
    # The baselines compute the same numbers: check before timing them.
    with engine.connect() as conn:
        numbers = baselines.team_numbers(conn, team_id, today)
        got = ((numbers["filled"], numbers["total"]), numbers["forecast"], numbers["heat"])
        assert got == expected, "the team baseline disagrees with the page"
        assert baselines.organisation_numbers(conn, today) == org, "organisation differs"
    del org

    # The pages keep the catalog per process (checking one stamp row per
    # request): the baselines get it read once too, and pay for no catalog.
    with engine.connect() as conn:
        catalog = baselines.read_catalog(conn)

    client = app.test_client()
    response = client.post("/login", data={"email": admin, "password": password})
    assert response.status_code in (302, 303), f"sign-in answered {response.status_code}"
    # The generated admin's second step, from the demo's known app secret.
    code = pyotp.TOTP(DEMO_ADMIN_TOTP_SECRET).now()
    response = client.post("/login/totp", data={"code": code})
    assert response.status_code in (302, 303), f"the second step answered {response.status_code}"
    for label, path, repeat, baseline in (
        (
            "team page",
            f"/teams/{team_id}",
            21,
            lambda c: baselines.team_numbers(c, team_id, today, catalog=catalog),
        ),
        (
            "organisation page",
            "/organisation",
            5 if size > 5000 else 9,
            lambda c: baselines.organisation_numbers(c, today, catalog=catalog),
        ),
    ):
        for _ in range(2):
            assert client.get(path).status_code == 200
        queries[0] = 0
        assert client.get(path).status_code == 200
        per_page = queries[0]

        def request(path=path):
            assert client.get(path).status_code == 200

        def raw(baseline=baseline):
            with engine.connect() as conn:
                baseline(conn)

        raw()
        page_time, base_time = paired_medians(request, raw, repeat)
        rows.append(
            {
                "figure": f"{label} (admin, {members} members)" if label == "team page" else label,
                "unit": "ms/request",
                "value": page_time * 1000,
                "baseline": base_time * 1000,
                "target": f"<= {PAGE_TARGET}x SQL baseline",
                "met": page_time <= PAGE_TARGET * base_time,
                "key": label,
            }
        )
        rows.append(
            {
                "figure": f"{label}: SQL queries",
                "unit": "queries",
                "value": per_page,
                "key": f"{label} queries",
            }
        )
    engine.dispose()
    return rows


def main() -> None:
    url, size, admin, password, today = sys.argv[1:6]
    rows = measure(url, int(size), admin, password, dt.date.fromisoformat(today))
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
