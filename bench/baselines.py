"""Hand-written SQL baselines of the pages: the numbers they show, without the ORM.

Each baseline reads what it needs with plain SQL (a handful of queries, none
per person) and computes the same numbers in plain Python over tuples, with
the same maximum-matching function the tracker uses (bench/seats.py);
bench/drawing.py writes its HTML by hand. The reminder pass's baseline is
bench/pass_baseline.py.
Like the pages, which keep a copy of the catalog per process, the page
baselines may be given the catalog read once (`catalog=read_catalog(conn)`).

- team page: the template's seats filled today (maximum matching) with the
  three nearest candidates of each empty seat, the team-wide credentials
  met, the same for the first day of each of the next 12 months (forecast),
  the heat-map status of every member for every column, path progress per
  member and path, and the list of current certifications by expiry;
- team page, too: the team's daily readiness history of the last 12 months
  (its snapshots, and each month's last one, the chart's table);
- organisation page: the organisation table's first page (50 teams by name,
  with their managers and stored readiness), the organisation's totals and
  its daily history of the last 12 months (each month's last day); read from
  the stored readiness, as the page does;
- organisation over every member (`organisation_numbers`): every team's
  seats filled today, computed from the members, to check the stored rows.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from sqlalchemy import Date, text
from sqlalchemy.engine import Connection

from bench.seats import Person, choose, fill, people_of, read_catalog
from tracker.progress.services.validity import add_months
from tracker.readiness.services.history import history_since

EXPIRING_WITHIN = 90


MEMBERS_SQL = (
    "SELECT e.id, e.name, e.level, r.code{extra} FROM engineers e "
    "LEFT JOIN job_role_assignments a ON a.engineer_id = e.id AND a.ended_on IS NULL "
    "LEFT JOIN job_roles r ON r.id = a.job_role_id "
    "WHERE e.active = :yes AND {where} ORDER BY e.name, e.id"
)
CERTS_SQL = (
    "SELECT c.id, c.engineer_id, c.credential_id, c.earned_on, c.expires_on{extra} "
    "FROM certifications c JOIN engineers e ON e.id = c.engineer_id "
    "WHERE e.active = :yes AND {where}"
)


def _status(person: Person, wanted: frozenset[int], on: dt.date) -> tuple[str, int | None]:
    valid = [
        (expires or dt.date.max, earned, expires)
        for _, c, earned, expires in person.certs
        if c in wanted and earned <= on and (expires is None or on <= expires)
    ]
    if valid:
        _, _, expires = max(valid)
        if expires is None:
            return "valid", None
        left = (expires - on).days
        return ("expiring" if left <= EXPIRING_WITHIN else "valid"), left
    earlier = [
        (earned, cid, expires)
        for cid, c, earned, expires in person.certs
        if c in wanted and earned <= on
    ]
    if earlier:
        _, _, expires = max(earlier)
        return "expired", None if expires is None else (expires - on).days
    return "missing", None


def team_numbers(
    conn: Connection, team_id: int, on: dt.date, months: int = 12, catalog=None
) -> dict:
    """Everything the team page shows, as numbers (see the module's docstring)."""
    templates, paths = catalog or read_catalog(conn)
    gpus, name = conn.execute(
        text("SELECT gpus, name FROM teams WHERE id = :t"), {"t": team_id}
    ).one()
    rows = conn.execute(
        text(MEMBERS_SQL.format(extra="", where="e.team_id = :t")), {"t": team_id, "yes": True}
    ).all()
    cert_rows = conn.execute(
        text(CERTS_SQL.format(extra="", where="e.team_id = :t")).columns(
            earned_on=Date, expires_on=Date
        ),
        {"t": team_id, "yes": True},
    ).all()
    hours: dict[int, dict[int, int]] = defaultdict(dict)
    for eid, course, total in conn.execute(
        text(
            "SELECT h.engineer_id, h.course_id, SUM(h.hours) FROM hour_logs h "
            "JOIN engineers e ON e.id = h.engineer_id WHERE e.team_id = :t AND e.active = :yes "
            "GROUP BY h.engineer_id, h.course_id"
        ),
        {"t": team_id, "yes": True},
    ):
        hours[eid][course] = int(total)
    people = list(people_of(rows, cert_rows).values())
    template = choose(templates, gpus)
    today = fill(template, people, on)
    first = dt.date(on.year, on.month, 1)
    forecast = [
        fill(template, people, add_months(first, n))["filled"] for n in range(1, months + 1)
    ]
    columns = [(c, wanted) for _, c, wanted, _ in paths if c is not None]
    columns += [col for col in template.columns if col[0] not in [c for c, _ in columns]]
    cells = [[_status(p, wanted, on) for _, wanted in columns] for p in people]
    heat = [[status for status, _ in row] for row in cells]
    # Hours are stored in hundredths on both sides (logged and required).
    bars = [
        [
            (
                sum(min(hours[p.id].get(course, 0), required) for course, required in courses),
                sum(required for _, required in courses),
            )
            for _, _, _, courses in paths
        ]
        for p in people
    ]
    progress = [[counted * 100 / (required or 1) for counted, required in row] for row in bars]
    newest: dict[tuple[int, int], tuple] = {}
    for p in people:
        for cid, credential, earned, expires in p.certs:
            key = (p.id, credential)
            if key not in newest or (earned, cid) > newest[key][:2]:
                newest[key] = (earned, cid, expires, p.name)
    expiring = sorted(
        (expires, name, credential)
        for (_, credential), (_, _, expires, name) in newest.items()
        if expires is not None
    )
    history = conn.execute(
        text(
            "SELECT day, filled, total, percent_tenths, lapsing FROM team_readiness_history "
            "WHERE team_id = :t AND day >= :since AND day <= :on ORDER BY day"
        ).columns(day=Date),
        {"t": team_id, "since": history_since(on), "on": on},
    ).all()
    return {
        "history": len(history),
        "months": _by_month(history),
        "points": history,
        "name": name,
        "people": people,
        "columns": [c for c, _ in columns],
        "cells": cells,
        "bars": bars,
        "seats": today["seats"],
        "expiring_rows": expiring,
        "filled": today["filled"],
        "total": today["total"],
        "forecast": forecast,
        "heat": heat,
        "progress": progress,
        "expiring": len(expiring),
    }


def _by_month(points) -> list[tuple]:
    last: dict[tuple[int, int], tuple] = {}
    for p in points:
        last[(p[0].year, p[0].month)] = tuple(p)
    return list(last.values())


# Who is asking: the session's engineer, still active and of the session's epoch
# (a password change signs every other session out), as every signed-in page reads.
SIGNED_IN_SQL = (
    "SELECT id, name, access_role FROM engineers"
    " WHERE id = :id AND active = :yes AND session_epoch = :epoch"
)
# Whether some team's stored readiness is not of its inputs, as the pages check before
# reading it: a mark of a revision not stored yet is left, or a row is of another day
# or catalog (the first and the last row by day and stamp say whether any is).
STAMP_SQL = "coalesce((SELECT stamp FROM catalog_version WHERE id = 1), '')"
STALE_SQL = (
    "SELECT EXISTS (SELECT 1 FROM readiness_marks)"
    f" OR (SELECT computed_on <> :today OR catalog_stamp <> {STAMP_SQL} FROM team_readiness"
    " ORDER BY computed_on, catalog_stamp LIMIT 1)"
    f" OR (SELECT computed_on <> :today OR catalog_stamp <> {STAMP_SQL} FROM team_readiness"
    " ORDER BY computed_on DESC, catalog_stamp DESC LIMIT 1)"
)
# The same of one team.
TEAM_STALE_SQL = (
    "SELECT EXISTS (SELECT 1 FROM readiness_marks WHERE team_id = :team_id)"
    " OR EXISTS (SELECT 1 FROM team_readiness WHERE team_id = :team_id"
    f" AND (computed_on <> :today OR catalog_stamp <> {STAMP_SQL}))"
)


def signed_in(conn: Connection, user_id: str) -> tuple:
    """Return the signed-in engineer's (id, name, access role) of a session's user id."""
    engineer_id, epoch = (int(part) for part in user_id.split(":"))
    params = {"id": engineer_id, "epoch": epoch, "yes": True}
    return tuple(conn.execute(text(SIGNED_IN_SQL), params).one())


def any_stale(conn: Connection, on: dt.date, team_id: int | None = None) -> bool:
    """Return whether a team's (any team's) stored readiness is not current on `on`."""
    if team_id is None:
        return bool(conn.execute(text(STALE_SQL), {"today": on}).scalar_one())
    params = {"today": on, "team_id": team_id}
    return bool(conn.execute(text(TEAM_STALE_SQL), params).scalar_one())


ORGANISATION_ROWS_SQL = (
    "SELECT t.id, t.name, t.gpus, t.manager_id, m.name, r.template_id, r.band_gpus, r.filled,"
    " r.total, r.percent_tenths, r.lapsing, r.previous_tenths "
    "FROM teams t JOIN team_readiness r ON r.team_id = t.id "
    "LEFT JOIN engineers m ON m.id = t.manager_id ORDER BY t.name, t.id LIMIT :limit"
)


def organisation_page_numbers(conn: Connection, on: dt.date, per_page: int = 50) -> dict:
    """The organisation page's numbers: its first page of teams, the totals, the history."""
    rows = [tuple(r) for r in conn.execute(text(ORGANISATION_ROWS_SQL), {"limit": per_page})]
    teams, filled, total, lapsing = conn.execute(
        text(
            "SELECT count(*), coalesce(sum(filled), 0), coalesce(sum(total), 0),"
            " coalesce(sum(lapsing), 0) FROM team_readiness"
        )
    ).one()
    history = conn.execute(
        text(
            "SELECT day, filled, total, percent_tenths, lapsing, teams "
            "FROM organisation_readiness_history WHERE day >= :since AND day <= :on ORDER BY day"
        ).columns(day=Date),
        {"since": history_since(on), "on": on},
    ).all()
    return {
        "rows": rows,
        "totals": (teams, filled, total, lapsing),
        "percent": round(filled * 1000 / total) if total else 1000,
        "history": len(history),
        "months": _by_month(history),
        "points": history,
    }


def organisation_numbers(conn: Connection, on: dt.date, catalog=None) -> dict[int, tuple[int, int]]:
    """Every team's (filled, total) today, with nearest candidates and team-wide credentials."""
    templates, _ = catalog or read_catalog(conn)
    teams = conn.execute(text("SELECT id, gpus FROM teams ORDER BY name")).all()
    rows = conn.execute(
        text(MEMBERS_SQL.format(extra=", e.team_id", where="e.team_id IS NOT NULL")),
        {"yes": True},
    ).all()
    cert_rows = conn.execute(
        text(CERTS_SQL.format(extra="", where="e.team_id IS NOT NULL")).columns(
            earned_on=Date, expires_on=Date
        ),
        {"yes": True},
    ).all()
    team_of = {eid: team for eid, _, _, _, team in rows}
    people = people_of([r[:4] for r in rows], cert_rows)
    by_team: dict[int, list[Person]] = defaultdict(list)
    for person in people.values():
        by_team[team_of[person.id]].append(person)
    result = {}
    for team_id, gpus in teams:
        numbers = fill(choose(templates, gpus), by_team.get(team_id, []), on)
        result[team_id] = (numbers["filled"], numbers["total"])
    return result
