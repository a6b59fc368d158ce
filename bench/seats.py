"""The catalog read with plain SQL, and seats filled over tuples with the tracker's matching."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import text
from sqlalchemy.engine import Connection

from tracker.readiness.services.matching import max_matching


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


def people_of(rows, cert_rows) -> dict[int, Person]:
    people: dict[int, Person] = {}
    for eid, name, level, role in rows:
        person = people.setdefault(eid, Person(eid, name, level))
        if role is not None:
            person.roles.add(role)
    for cid, eid, credential, earned, expires in cert_rows:
        if eid in people:
            people[eid].certs.append((cid, credential, earned, expires))
    return people
