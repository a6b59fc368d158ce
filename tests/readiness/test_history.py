"""Readiness history (tracker.readiness.services.history): daily snapshots, back-filled,
drawn on the team and organisation pages, answered by the API a page at a time.

TODAY (2026-11-29) is pinned in app.config.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import event, func, select
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import Api, count, table, text, token_for
from tests.readiness.helpers import LONG_AGO, Org, build_org, chart, members, person
from tracker.catalog.services.snapshot import catalog_snapshot
from tracker.demo.services.generator import generate_organisation
from tracker.people.models import Team
from tracker.people.services.persons import set_active
from tracker.progress.models import Certification
from tracker.readiness.models import OrganisationSnapshot, ReadinessSnapshot
from tracker.readiness.services import current
from tracker.readiness.services.current import day_boundary, refresh, seats_filled
from tracker.readiness.services.history import (
    backfill,
    by_month,
    history_since,
    team_days,
    team_history,
)
from tracker.readiness.services.organisation import lapsing_count

TODAY = factories.TODAY
D = dt.date
MONTHS_FROM_DECEMBER = (
    "Dec",
    "Jan",
    "Feb",
    "Mar",
    "Apr",
    "May",
    "Jun",
    "Jul",
    "Aug",
    "Sep",
    "Oct",
    "Nov",
)

pytestmark = pytest.mark.usefixtures("pinned_today")


@pytest.fixture
def org(db: Session) -> Org:
    found = build_org(db)
    found.tokens = {
        "admin": token_for(db, found.admin),
        "mona": token_for(db, found.mona),
        "otto": token_for(db, found.otto),
    }
    return found


def snapshots(db: Session, team: Team) -> dict[dt.date, tuple[int, int, int]]:
    h = ReadinessSnapshot
    return {
        day: (filled, total, lapsing)
        for day, filled, total, lapsing in db.execute(
            select(h.day, h.filled, h.total, h.lapsing).where(h.team_id == team.id)
        )
    }


# --- back-filling ------------------------------------------------------------------


def test_backfill_says_each_day_what_the_records_say(db: Session) -> None:
    """Kim joins on 2026-06-01 holding an NCA-AIIO that expires on 2026-09-30: she fills an
    operations seat from the day she joins through the expiry day, and the certification
    lapses within 90 days from 2026-07-02."""
    crew = factories.team(db, gpus=50, name="Crew")
    kim = person(db, "Kim", crew, hired_on=D(2026, 6, 1))
    factories.certification(db, kim, "NCA-AIIO", D(2025, 9, 30), D(2026, 9, 30))
    db.flush()

    written = backfill(db, TODAY)

    days = snapshots(db, crew)
    assert written == len(days) == 364  # 2025-11-30 to 2026-11-28; today's is kept as today
    assert min(days) == history_since(TODAY) == D(2025, 11, 30)
    assert max(days) == TODAY - dt.timedelta(days=1)
    assert days[D(2026, 5, 31)] == (0, 4, 0)  # not hired yet
    assert days[D(2026, 6, 1)] == (1, 4, 0)
    assert days[D(2026, 7, 1)] == (1, 4, 0)
    assert days[D(2026, 7, 2)] == (1, 4, 1)  # 90 days before its expiry
    assert days[D(2026, 9, 30)] == (1, 4, 1)  # valid on its expiry day
    assert days[D(2026, 10, 1)] == (0, 4, 0)
    organisation = db.get(OrganisationSnapshot, D(2026, 6, 1))
    assert (organisation.teams, organisation.filled, organisation.total) == (1, 1, 4)


def test_backfill_keeps_the_days_already_kept(db: Session, org: Org) -> None:
    yesterday = TODAY - dt.timedelta(days=1)
    db.add(
        ReadinessSnapshot(
            team_id=org.alpha.id, day=yesterday, filled=4, total=4, percent_tenths=1000, lapsing=9
        )
    )
    db.flush()
    backfill(db, TODAY)
    assert snapshots(db, org.alpha)[yesterday] == (4, 4, 9)
    assert snapshots(db, org.alpha)[yesterday - dt.timedelta(days=1)] == (2, 4, 1)


def test_a_stretch_of_unchanged_days_equals_each_day_judged_alone(db: Session) -> None:
    """team_days matches once per stretch; judging every day alone gives the same days."""
    crew = factories.team(db, gpus=50, name="Crew")
    for n in range(6):
        who = person(
            db, f"P{n}", crew, level=2 + n % 2, hired_on=D(2025, 1, 1) + dt.timedelta(n * 70)
        )
        factories.certification(
            db,
            who,
            "NCA-AIIO",
            D(2025, 2, 1) + dt.timedelta(days=n * 40),
            D(2026, 3, 1) + dt.timedelta(days=n * 35),
        )
    db.flush()
    team_members = members(db, crew)
    templates = catalog_snapshot(db).templates
    first, last = D(2025, 12, 1), D(2026, 11, 28)

    got = team_days(team_members, templates, 50, first, last)

    expected = []
    day = first
    while day <= last:
        present = [m for m in team_members if m.engineer.hired_on <= day]
        _, filled, total = seats_filled(present, templates, 50, day)
        expected.append((day, filled, total, lapsing_count(present, day)))
        day += dt.timedelta(days=1)
    assert got == expected
    assert len({row[1:] for row in got}) > 3  # the scene does change over the year


def test_the_daily_pass_keeps_a_snapshot_of_every_team_each_day(
    app: Flask, db: Session, org: Org
) -> None:
    units = app.extensions["tracker.sessions"]
    day_boundary(units, TODAY)
    day_boundary(units, TODAY + dt.timedelta(days=1))
    assert set(snapshots(db, org.alpha)) == {TODAY, TODAY + dt.timedelta(days=1)}
    assert set(snapshots(db, org.bravo)) == {TODAY, TODAY + dt.timedelta(days=1)}
    assert count(db, OrganisationSnapshot) == 2


def test_the_day_boundary_commits_the_teams_a_unit_at_a_time_then_the_days_sums(
    app: Flask, db: Session, org: Org, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(current, "TEAMS_PER_COMMIT", 1)
    units = app.extensions["tracker.sessions"]
    committed: list[tuple[int, bool]] = []

    def record(session: Session) -> None:
        kept = session.execute(select(func.count()).select_from(ReadinessSnapshot)).scalar_one()
        summed = session.get(OrganisationSnapshot, TODAY) is not None
        committed.append((kept, summed))

    event.listen(units, "before_commit", record)
    try:
        assert day_boundary(units, TODAY) == 2
    finally:
        event.remove(units, "before_commit", record)
    # Alpha, then Bravo, each in its own unit; then the day's sum of both.
    assert committed == [(1, False), (2, False), (2, True)]
    day = db.get(OrganisationSnapshot, TODAY)
    assert (day.teams, day.filled, day.total) == (2, 3, 8)
    assert day_boundary(units, TODAY) == 0


def test_a_teams_page_refresh_leaves_the_organisations_day_to_a_whole_refresh(
    db: Session, org: Org
) -> None:
    refresh(db, TODAY, team_ids=[org.alpha.id])
    assert db.get(OrganisationSnapshot, TODAY) is None
    assert refresh(db, TODAY) == 1  # Bravo
    day = db.get(OrganisationSnapshot, TODAY)
    assert (day.teams, day.filled, day.total) == (2, 3, 8)


def organisation_day(db: Session, day: dt.date) -> tuple[int, int, int, int, int]:
    o = db.get(OrganisationSnapshot, day)
    assert o is not None
    db.refresh(o)
    return (o.teams, o.filled, o.total, o.percent_tenths, o.lapsing)


def summed_day(db: Session, day: dt.date) -> tuple[int, int, int, int, int]:
    h = ReadinessSnapshot
    teams, filled, total, lapsing = db.execute(
        select(func.count(), func.sum(h.filled), func.sum(h.total), func.sum(h.lapsing)).where(
            h.day == day
        )
    ).one()
    return (teams, filled, total, round(filled * 1000 / total), lapsing)


def test_a_teams_change_moves_the_organisations_day_by_its_own_change(
    db: Session, org: Org
) -> None:
    """After the day's whole refresh, a team's refresh (its page's, or the organisation's
    finding it alone stale) moves the day's sum by that team's change, as a sum again would."""
    refresh(db, TODAY)
    day = organisation_day(db, TODAY)
    assert day == summed_day(db, TODAY) and day[:3] == (2, 3, 8)
    set_active(db, org.ben, False, org.admin)
    assert refresh(db, TODAY, team_ids=[org.alpha.id]) == 1
    day = organisation_day(db, TODAY)
    assert day == summed_day(db, TODAY) and day[:4] == (2, 2, 8, 250)
    set_active(db, org.ben, True, org.admin)
    assert refresh(db, TODAY) == 1
    day = organisation_day(db, TODAY)
    assert day == summed_day(db, TODAY) and day[:4] == (2, 3, 8, 375)


def test_the_changed_teams_are_added_to_the_day_in_a_fixed_set_of_statements(
    db: Session, org: Org
) -> None:
    """Read and locked, the day's row is updated: no sum over every team's snapshot."""
    refresh(db, TODAY)
    set_active(db, org.ben, False, org.admin)
    statements: list[str] = []

    def seen(conn, cursor, statement, *args) -> None:
        statements.append(statement)

    engine = db.get_bind()
    event.listen(engine, "before_cursor_execute", seen)
    try:
        refresh(db, TODAY)
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    assert not [s for s in statements if "sum(" in s.lower()]
    assert organisation_day(db, TODAY) == summed_day(db, TODAY)


def test_a_generated_organisation_comes_with_a_year_of_history(db: Session) -> None:
    generated = generate_organisation(db, 60, TODAY, seed=9, secret_key=factories.SECRET_KEY)
    teams = count(db, Team)
    assert generated.rows["readiness_snapshots"] == teams * 364
    assert count(db, ReadinessSnapshot) == teams * 365  # and today's, kept current
    assert count(db, OrganisationSnapshot) == 365
    # The organisation's sum each day is its teams'.
    o, h = OrganisationSnapshot, ReadinessSnapshot
    day = D(2026, 5, 17)
    summed = db.execute(select(func.sum(h.filled), func.sum(h.total)).where(h.day == day)).one()
    assert tuple(summed) == tuple(db.execute(select(o.filled, o.total).where(o.day == day)).one())


def test_tracker_demo_back_fills_its_teams(db: Session, runner, app: Flask) -> None:
    result = runner.invoke(args=["demo"])
    assert result.exit_code == 0, result.output
    teams = count(db, Team)
    assert count(db, ReadinessSnapshot) == teams * 365


# --- the pages ---------------------------------------------------------------------


def test_the_team_page_draws_a_year_of_readiness_with_its_figures(
    client: FlaskClient, auth, db: Session, org: Org
) -> None:
    backfill(db, TODAY)
    auth.sign_in(org.mona)
    html = client.get(f"/teams/{org.alpha.id}").get_data(as_text=True)
    svg = chart(html)
    assert 'aria-labelledby="history-title history-desc"' in svg
    assert '<title id="history-title">Alpha: readiness for its own fleet, day by day</title>' in svg
    desc = re.search(r'<desc id="history-desc">(.*?)</desc>', svg, re.S).group(1)
    # Ada's and Ben's certifications were earned on 2026-01-10; Cy's lapsed on 2026-06-01.
    assert "from Nov 30, 2025 (0%) to Nov 29, 2026 (50%); lowest 0%, highest 75%." in " ".join(
        desc.split()
    )
    polyline = re.search(r'<polyline class="line" points="([^"]+)"', svg).group(1)
    assert len(polyline.split()) == 365  # a year of days, today's the last
    ticks = re.findall(r'<text x="([\d.]+)" y="200" class="tick" text-anchor="end">(\w+)<', svg)
    # November 2025 is one day of the chart: too short for its name, left unnamed.
    assert [name for _, name in ticks] == list(MONTHS_FROM_DECEMBER)
    ends = [44.0] + [float(x) for x, _ in ticks]  # the plot starts at x = 44
    assert min(b - a for a, b in itertools.pairwise(ends)) >= 30
    page = text(html)
    assert "Readiness over the last 12 months" in page
    assert "The figures month by month" in page
    months = [[cell[0] for cell in row] for row in table(html, header="Month")]
    assert months[1] == ["Nov 2025", "0 of 4", "0%", "0"]
    assert months[3] == ["Jan 2026", "3 of 4", "75%", "0"]
    assert months[-1] == ["Nov 2026", "2 of 4", "50%", "1"]


def test_a_team_without_history_says_so(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.mona)
    html = client.get(f"/teams/{org.alpha.id}").get_data(as_text=True)
    # Today's snapshot, kept as the page brought the team up to date: one point.
    assert len(re.search(r'points="([^"]+)"', chart(html)).group(1).split()) == 1


def test_the_organisation_page_draws_the_organisations_year(
    client: FlaskClient, auth, db: Session, org: Org
) -> None:
    backfill(db, TODAY)
    auth.sign_in(org.admin)
    html = client.get("/organisation").get_data(as_text=True)
    svg = chart(html)
    assert "The organisation's readiness, day by day" in svg
    assert "The organisation over the last 12 months" in text(html)
    months = [[cell[0] for cell in row] for row in table(html, header="Month")]
    assert months[-1] == ["Nov 2026", "3 of 8", "38%", "1"]


# --- the API -----------------------------------------------------------------------


def test_the_teams_history_pages_oldest_first(api_client: Api, db: Session, org: Org) -> None:
    backfill(db, TODAY)
    token = org.tokens["mona"]
    first = api_client.get(f"/api/v1/teams/{org.alpha.id}/history?months=1", token).get_json()
    days = [item["date"] for item in first["items"]]
    assert days[0] == "2026-10-30" and len(days) == 31 and days[-1] == "2026-11-29"
    assert first["next"] is None
    assert first["items"][-1] == {
        "date": "2026-11-29",
        "filled": 2,
        "total": 4,
        "percent": 50.0,
        "lapsing": 1,
    }
    whole = api_client.get(f"/api/v1/teams/{org.alpha.id}/history", token).get_json()
    assert len(whole["items"]) == 50 and whole["next"] is not None
    seen, cursor = [], ""
    while True:
        answer = api_client.get(
            f"/api/v1/teams/{org.alpha.id}/history?limit=100{cursor}", token
        ).get_json()
        seen += [item["date"] for item in answer["items"]]
        if answer["next"] is None:
            break
        cursor = f"&cursor={answer['next']}"
    assert len(seen) == 365 and seen == sorted(seen)


def test_the_organisations_history_sums_its_teams(api_client: Api, db: Session, org: Org) -> None:
    backfill(db, TODAY)
    answer = api_client.get(
        "/api/v1/organisation/history?months=1&limit=500", org.tokens["admin"]
    ).get_json()
    assert answer["items"][-1] == {
        "date": "2026-11-29",
        "teams": 2,
        "filled": 3,
        "total": 8,
        "percent": 37.5,
        "lapsing": 1,
    }


@pytest.mark.parametrize(
    ("url", "who", "status"),
    [
        ("/api/v1/teams/{alpha}/history", "otto", 403),
        ("/api/v1/teams/999999/history", "admin", 404),
        ("/api/v1/organisation/history", "mona", 403),
        ("/api/v1/teams/{alpha}/history?months=61", "mona", 400),
        ("/api/v1/organisation/history?months=0", "admin", 400),
    ],
)
def test_history_refusals(api_client: Api, org: Org, url: str, who: str, status: int) -> None:
    response = api_client.get(url.format(alpha=org.alpha.id), org.tokens[who])
    assert response.status_code == status
    if status == 400:
        assert response.get_json() == {"errors": {"months": "must be a whole number from 1 to 60"}}


@pytest.fixture
def api_client(client: FlaskClient) -> Api:
    return Api(client)


def test_by_month_keeps_each_months_last_day(db: Session, org: Org) -> None:
    backfill(db, TODAY)
    points = team_history(db, org.alpha.id, TODAY - dt.timedelta(days=1))
    months = by_month(points)
    assert [p.day for p in months][:2] == [D(2025, 11, 30), D(2025, 12, 31)]
    assert months[-1].day == D(2026, 11, 28)
    assert len(months) == 13


def test_people_who_left_are_not_in_the_back_filled_days(db: Session, org: Org) -> None:
    """The records keep no history of teams: a person who left counts nowhere in it."""
    assert db.scalar(select(func.count()).select_from(Certification)) > 0
    factories.certification(db, org.cy, "NCA-AIIO", LONG_AGO, D(2027, 6, 1))
    org.cy.team_id = None
    db.flush()
    backfill(db, TODAY)
    assert snapshots(db, org.alpha)[D(2026, 11, 1)][0] == 2
