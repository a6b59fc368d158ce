"""Hand-written SQL baselines: the numbers the pages and the pass produce, without the ORM.

Each baseline reads what it needs with plain SQL (a handful of queries, none
per person) and computes the same numbers in plain Python over tuples, with
the same maximum-matching function the tracker uses; bench/drawing.py writes
its HTML by hand.
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
  seats filled today, computed from the members, to check the stored rows;
- reminder pass: the certifications due for a notice on the day (a reminder
  or expiry notice whose window is open and not queued yet, unless an exam
  plan acknowledges it; an escalation of a lapse known to drop readiness),
  one query; and the same query writing an outbox row for each (`queue_due`),
  as the pass must.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import Date, text
from sqlalchemy.engine import Connection

from tracker.progress.services.validity import add_months
from tracker.readiness.services.history import history_since
from tracker.readiness.services.matching import max_matching

EXPIRING_WITHIN = 90


@dataclass
class Slot:
    id: int
    title: str
    count: int
    role: str
    min_level: int
    max_level: int
    # Each required credential as the set of credential ids that satisfy it.
    credentials: list[frozenset[int]] = field(default_factory=list)


@dataclass
class Template:
    id: int
    min_gpus: int
    max_gpus: int | None
    slots: list[Slot] = field(default_factory=list)
    team_credentials: list[frozenset[int]] = field(default_factory=list)
    # Heat-map columns beyond the paths' exams: (credential id, satisfying ids).
    columns: list[tuple[int, frozenset[int]]] = field(default_factory=list)


@dataclass
class Person:
    id: int
    name: str
    level: int
    roles: set[str] = field(default_factory=set)
    certs: list[tuple[int, int, dt.date, dt.date | None]] = field(default_factory=list)


def _satisfying(conn: Connection) -> dict[int, frozenset[int]]:
    members: dict[int, set[int]] = defaultdict(set)
    kinds = {}
    for cid, kind, member in conn.execute(
        text(
            "SELECT c.id, c.kind, g.member_id FROM credentials c "
            "LEFT JOIN credential_group_members g ON g.group_id = c.id"
        )
    ):
        kinds[cid] = kind
        if member is not None:
            members[cid].add(member)
    return {
        cid: frozenset(members[cid]) if kind == "group" else frozenset({cid})
        for cid, kind in kinds.items()
    }


def read_catalog(conn: Connection) -> tuple[list[Template], list[tuple]]:
    """Return the templates (slots, credentials) and the paths (exam credential, courses)."""
    satisfying = _satisfying(conn)
    templates: dict[int, Template] = {}
    slots: dict[int, Slot] = {}
    for row in conn.execute(
        text(
            "SELECT t.id, t.min_gpus, t.max_gpus, s.id, s.title, s.count, r.code, s.min_level,"
            " s.max_level, sc.credential_id "
            "FROM team_templates t JOIN template_slots s ON s.template_id = t.id "
            "JOIN job_roles r ON r.id = s.job_role_id "
            "LEFT JOIN template_slot_credentials sc ON sc.slot_id = s.id "
            "LEFT JOIN credentials k ON k.id = sc.credential_id "
            "ORDER BY t.min_gpus, s.position, k.code"
        )
    ):
        tid, min_gpus, max_gpus, sid, title, count, role, low, high, credential = row
        template = templates.setdefault(tid, Template(tid, min_gpus, max_gpus))
        if sid not in slots:
            slots[sid] = Slot(sid, title, count, role, low, high)
            template.slots.append(slots[sid])
        if credential is not None:
            slots[sid].credentials.append(satisfying[credential])
            if credential not in [c for c, _ in template.columns]:
                template.columns.append((credential, satisfying[credential]))
    for tid, credential in conn.execute(
        text(
            "SELECT tc.template_id, tc.credential_id FROM team_template_credentials tc "
            "JOIN credentials k ON k.id = tc.credential_id ORDER BY tc.template_id, k.code"
        )
    ):
        if tid in templates:
            templates[tid].team_credentials.append(satisfying[credential])
            if credential not in [c for c, _ in templates[tid].columns]:
                templates[tid].columns.append((credential, satisfying[credential]))
    paths: dict[int, tuple[int | None, list[tuple[int, int]]]] = {}
    for path_id, credential, course_id, hours in conn.execute(
        text(
            "SELECT p.id, e.credential_id, pc.course_id, c.hours FROM learning_paths p "
            "LEFT JOIN exams e ON e.id = p.exam_id "
            "JOIN path_courses pc ON pc.path_id = p.id JOIN courses c ON c.id = pc.course_id "
            "ORDER BY p.id, pc.position"
        )
    ):
        paths.setdefault(path_id, (credential, []))[1].append((course_id, hours))
    path_list = [
        (pid, credential, satisfying.get(credential, frozenset()), courses)
        for pid, (credential, courses) in paths.items()
    ]
    return sorted(templates.values(), key=lambda t: t.min_gpus), path_list


def choose(templates: list[Template], gpus: int) -> Template:
    for t in templates:
        if t.min_gpus <= gpus and (t.max_gpus is None or gpus <= t.max_gpus):
            return t
    if gpus < templates[0].min_gpus:
        return templates[0]
    return max((t for t in templates if t.min_gpus <= gpus), key=lambda t: t.min_gpus)


def _valid(person: Person, wanted: frozenset[int], on: dt.date) -> bool:
    return any(
        c in wanted and earned <= on and (expires is None or on <= expires)
        for _, c, earned, expires in person.certs
    )


def _lacks(person: Person, slot: Slot, on: dt.date) -> int:
    missing = (slot.role not in person.roles) + (
        not slot.min_level <= person.level <= slot.max_level
    )
    return missing + sum(1 for wanted in slot.credentials if not _valid(person, wanted, on))


def fill(template: Template, people: list[Person], on: dt.date) -> dict:
    """Seats filled by a maximum matching, nearest candidates, team-wide credentials met."""
    seats = [slot for slot in template.slots for _ in range(slot.count)]
    by_slot = {
        (slot.id, e): _lacks(person, slot, on)
        for slot in template.slots
        for e, person in enumerate(people)
    }
    fit = {
        (s, e): by_slot[(slot.id, e)] == 0
        for s, slot in enumerate(seats)
        for e in range(len(people))
    }
    matching = max_matching(seats, people, fit)
    taken = set(matching.values())
    free = [e for e in range(len(people)) if e not in taken]
    ranked = {
        slot.id: sorted(
            free, key=lambda e, k=slot.id: (by_slot[(k, e)], people[e].name, people[e].id)
        )[:3]
        for slot in template.slots
    }
    nearest = {s: ranked[slot.id] for s, slot in enumerate(seats) if s not in matching}
    met = [any(_valid(p, wanted, on) for p in people) for wanted in template.team_credentials]
    drawn = [
        (slot, people[matching[s]].name if s in matching else None) for s, slot in enumerate(seats)
    ]
    return {
        "filled": len(matching),
        "total": len(seats),
        "nearest": nearest,
        "met": met,
        "seats": drawn,
    }


def _people(rows, cert_rows) -> dict[int, Person]:
    people: dict[int, Person] = {}
    for eid, name, level, role in rows:
        person = people.setdefault(eid, Person(eid, name, level))
        if role is not None:
            person.roles.add(role)
    for cid, eid, credential, earned, expires in cert_rows:
        if eid in people:
            people[eid].certs.append((cid, credential, earned, expires))
    return people


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
    people = list(_people(rows, cert_rows).values())
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
    people = _people([r[:4] for r in rows], cert_rows)
    by_team: dict[int, list[Person]] = defaultdict(list)
    for person in people.values():
        by_team[team_of[person.id]].append(person)
    result = {}
    for team_id, gpus in teams:
        numbers = fill(choose(templates, gpus), by_team.get(team_id, []), on)
        result[team_id] = (numbers["filled"], numbers["total"])
    return result


DUE_SQL = """
SELECT d.id, d.engineer_id, d.email, d.credential_id, d.expires_on, d.window_days,
  'notice' AS kind
FROM (
  SELECT c.id, c.engineer_id, e.email, c.credential_id, c.expires_on,
    CASE WHEN c.expires_on < :today THEN -1 WHEN c.expires_on <= :d7 THEN 7
         WHEN c.expires_on <= :d30 THEN 30 WHEN c.expires_on <= :d60 THEN 60 ELSE 90 END
      AS window_days
  FROM certifications c JOIN engineers e ON e.id = c.engineer_id
  WHERE e.active = :yes AND c.expires_on >= :since AND c.expires_on <= :until
    AND NOT EXISTS (SELECT 1 FROM certifications r WHERE r.renews_id = c.id)
    AND c.revoked_on IS NULL
) d
WHERE NOT EXISTS (
    SELECT 1 FROM notifications n WHERE n.certification_id = d.id
    AND n.window_days = d.window_days AND n.kind IN ('reminder', 'expired'))
  AND (d.window_days = -1 OR NOT EXISTS (
    SELECT 1 FROM exam_plans p JOIN exams x ON x.id = p.exam_id
    WHERE p.engineer_id = d.engineer_id AND x.credential_id = d.credential_id
    AND p.cancelled_at IS NULL AND p.planned_on >= :today AND p.planned_on <= d.expires_on))
UNION ALL
SELECT c.id, c.engineer_id, e.email, c.credential_id, c.expires_on, NULL, 'escalation'
FROM lapse_impacts i
JOIN certifications c ON c.id = i.certification_id
JOIN engineers e ON e.id = c.engineer_id AND e.team_id = i.team_id
WHERE e.active = :yes AND c.expires_on >= :today AND c.expires_on <= :until
  AND NOT EXISTS (SELECT 1 FROM certifications r WHERE r.renews_id = c.id)
  AND c.revoked_on IS NULL
  AND NOT EXISTS (
    SELECT 1 FROM notifications n WHERE n.certification_id = c.id AND n.kind = 'escalation')
  AND NOT EXISTS (
    SELECT 1 FROM exam_plans p JOIN exams x ON x.id = p.exam_id
    WHERE p.engineer_id = c.engineer_id AND x.credential_id = c.credential_id
    AND p.cancelled_at IS NULL AND p.planned_on >= :today AND p.planned_on <= c.expires_on)
"""

# The due certifications written to the outbox, one row each with the least a
# row must hold: its unique key and Message-ID, its kind, window and recipient.
QUEUE_DUE_SQL = (
    "INSERT INTO notifications (dedupe_key, kind, certification_id, window_days, engineer_id,"
    " to_addrs, cc_addrs, subject, body_html, message_id, status, attempts, next_attempt_at,"
    " created_at) "
    "SELECT q.key, q.kind, q.id, q.window_days, q.engineer_id, q.email, '', '', '',"
    " '<' || replace(q.key, ':', '.') || '@baseline.bench>', 'pending', 0, :now, :now "
    "FROM (SELECT d.*, 'baseline:' || d.kind || ':' || CAST(d.id AS VARCHAR)"
    " || coalesce(':' || CAST(d.window_days AS VARCHAR), '') AS key"
    " FROM (SELECT d.id, d.engineer_id, d.email, d.window_days,"
    " CASE WHEN d.kind = 'escalation' THEN 'escalation'"
    " WHEN d.window_days = -1 THEN 'expired' ELSE 'reminder' END AS kind"
    " FROM (" + DUE_SQL + ") d) d) q "
    "RETURNING id"
)


def due_certifications(conn: Connection, on: dt.date, grace: int = 30, widest: int = 90):
    """The certifications due for a notice on `on` (default windows 90, 60, 30, 7): one query.

    Due: in reach of a window (engineer active, not renewed, expiring from
    `grace` days ago to `widest` days ahead) with the notice of its current
    window not queued yet and no exam planned to renew it; or with a lapse
    known to drop its team's readiness (lapse_impacts) not escalated yet.
    In expiry order.
    """
    return conn.execute(text(DUE_SQL + " ORDER BY 5, 1"), _due_params(on, grace, widest)).all()


def queue_due(conn: Connection, on: dt.date, now: dt.datetime, grace: int = 30, widest: int = 90):
    """Write an outbox row for each certification due on `on` (as `due_certifications`): one
    statement; return the rows' ids. The caller rolls it back.

    The pass must write what it finds, in the transaction that decides it (the
    notices' rows, their indexes and foreign keys), and a SELECT writes
    nothing: this is the least of that writing, one row per due certification
    with its unique key and Message-ID, kind, window and recipient, none of
    what the pass also writes (subjects, the managers copied, the copies in
    other languages).
    """
    return conn.execute(text(QUEUE_DUE_SQL), {"now": now, **_due_params(on, grace, widest)}).all()


def _due_params(on: dt.date, grace: int, widest: int) -> dict[str, object]:
    day = dt.timedelta(days=1)
    return {
        "yes": True,
        "today": on,
        "d7": on + 7 * day,
        "d30": on + 30 * day,
        "d60": on + 60 * day,
        "since": on - grace * day,
        "until": on + widest * day,
    }


def in_reach(conn: Connection, on: dt.date, grace: int = 30, widest: int = 90):
    """The certifications within reach of a window on `on` (what the pass looks over)."""
    return conn.execute(
        text(
            "SELECT c.id FROM certifications c JOIN engineers e ON e.id = c.engineer_id "
            "WHERE e.active = :yes AND c.expires_on >= :since AND c.expires_on <= :until "
            "AND NOT EXISTS (SELECT 1 FROM certifications r WHERE r.renews_id = c.id) "
            "AND c.revoked_on IS NULL"
        ),
        {
            "yes": True,
            "since": on - dt.timedelta(days=grace),
            "until": on + dt.timedelta(days=widest),
        },
    ).all()
