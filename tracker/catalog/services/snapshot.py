"""A per-process copy of the catalog parts readiness reads, checked by one query a request.

The team and organisation pages read the same templates, slots, credentials
and paths on every request: loading them through the ORM took ten queries and
more time than the page's own numbers. `catalog_snapshot(session)` reads the
catalog's stamp (one row, `CatalogVersion`) and returns the copy made for that
stamp, loading a new one when the stamp is new to this process.

Every catalog write through a session changes the stamp in the writing
transaction (the listeners in tracker.catalog.models.version: objects flushed, and
INSERT/UPDATE/DELETE statements run by `session.execute`), so the first
request after the commit, in any worker, sees a stamp it has no copy for and
loads the catalog again. A write in raw SQL (text), or on a connection rather
than the session, must call `bump_catalog_version` itself. A stamp names one state
of one database: it is random, so two databases (tests, copies of the same one
aside) never share it, and a write rolled back takes its new stamp with it.

The copy is made of plain, frozen values that read like the mapped classes
(`code`, `name`, `slots`, `credentials`, `satisfying_ids()` ...): safe to share
between requests and threads, and never lazy-loading.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from decimal import Decimal

from sqlalchemy import select
from sqlalchemy.orm import Session

from tracker.catalog.models.columns import Worded
from tracker.catalog.models.credentials import (
    Course,
    Credential,
    Exam,
    LearningPath,
    NamedByCredential,
    PathCourse,
    credential_group_members,
)
from tracker.catalog.models.skills import JobRole
from tracker.catalog.models.team_templates import (
    TeamTemplate,
    TemplateSlot,
    slot_credentials,
    template_credentials,
)
from tracker.catalog.models.version import CATALOG_STAMP_KEY, CatalogVersion

# Copies kept per process: one per database state a process has seen lately
# (a server sees one database; the test suite sees several).
KEPT = 4


@dataclass(frozen=True, eq=False)
class CredentialInfo(Worded):
    id: int
    code: str
    name: str
    issuer: str
    kind: str
    origin: str
    validity_months: int | None
    description: str
    name_es: str
    members: tuple[CredentialInfo, ...] = ()
    satisfying: frozenset[int] = field(default_factory=frozenset)

    def satisfying_ids(self) -> frozenset[int]:
        """Return the ids whose holding satisfies this credential (itself, or a member)."""
        return self.satisfying


@dataclass(frozen=True, eq=False)
class JobRoleInfo(Worded):
    id: int
    code: str
    name: str
    name_es: str


@dataclass(frozen=True, eq=False)
class SlotInfo(Worded):
    id: int
    template_id: int
    position: int
    title: str
    title_es: str
    count: int
    job_role: JobRoleInfo
    min_level: int
    max_level: int
    credentials: tuple[CredentialInfo, ...]


@dataclass(frozen=True, eq=False)
class TemplateInfo(Worded):
    id: int
    code: str
    name: str
    name_es: str
    min_gpus: int
    max_gpus: int | None
    cost_min: int
    cost_max: int
    slots: tuple[SlotInfo, ...]
    team_credentials: tuple[CredentialInfo, ...]

    @property
    def slot_total(self) -> int:
        return sum(s.count for s in self.slots)


@dataclass(frozen=True, eq=False)
class CourseInfo(Worded):
    id: int
    code: str
    title: str
    title_es: str
    hours: Decimal
    provider: str
    list_price: Decimal | None
    origin: str


@dataclass(frozen=True, eq=False)
class ExamInfo(NamedByCredential):
    id: int
    credential_id: int
    credential: CredentialInfo
    experience_months: int


@dataclass(frozen=True, eq=False)
class PathInfo(Worded):
    id: int
    code: str
    name: str
    name_es: str
    target_months: int
    origin: str
    exam: ExamInfo | None
    courses: tuple[CourseInfo, ...]

    @property
    def total_hours(self) -> Decimal:
        return sum((c.hours for c in self.courses), Decimal(0))


@dataclass(frozen=True, eq=False)
class CatalogSnapshot:
    """The catalog as readiness reads it, for one catalog stamp."""

    stamp: str | None
    credentials: dict[int, CredentialInfo]
    templates: tuple[TemplateInfo, ...]  # smallest band first
    paths: tuple[PathInfo, ...]  # by id


def load_snapshot(session: Session, stamp: str | None = None) -> CatalogSnapshot:
    """Read the catalog parts readiness needs: four queries, whatever the catalog holds."""
    run = session.connection().execute
    # Credentials, each with its group members (by code).
    c = Credential.__table__.c
    g = credential_group_members.c
    member = Credential.__table__.alias("member")
    plain: dict[int, tuple[str, str, str, str, str, int | None, str, str]] = {}
    members: dict[int, list[int]] = {}
    for (
        cid, code, name, issuer, kind, origin, validity_months, description, name_es, member_id,
    ) in run(
        select(
            c.id, c.code, c.name, c.issuer, c.kind, c.origin, c.validity_months, c.description,
            c.name_es, g.member_id,
        )
        .outerjoin(credential_group_members, g.group_id == c.id)
        .outerjoin(member, member.c.id == g.member_id)
        .order_by(c.id, member.c.code)
    ):  # fmt: skip
        plain.setdefault(
            cid, (code, name, issuer, kind, origin, validity_months, description, name_es)
        )
        if member_id is not None:
            members.setdefault(cid, []).append(member_id)
    credentials = {
        cid: CredentialInfo(
            cid,
            *row,
            satisfying=frozenset(members.get(cid, ())) if row[3] == "group" else frozenset({cid}),
        )
        for cid, row in plain.items()
    }
    for cid, made in credentials.items():
        if made.kind == "group":
            # Groups name credentials of the same table: set once all exist.
            object.__setattr__(made, "members", tuple(credentials[m] for m in members.get(cid, ())))

    # Slots (by position) with their job role and credentials (by code).
    s = TemplateSlot.__table__.c
    r = JobRole.__table__.c
    sc = slot_credentials.c
    wanted = Credential.__table__.alias("wanted")
    slot_rows: dict[int, tuple] = {}
    slot_creds: dict[int, list[CredentialInfo]] = {}
    for *row, cid in run(
        select(
            s.id, s.template_id, s.position, s.title, s.title_es, s.count, r.id, r.code, r.name,
            r.name_es, s.min_level, s.max_level, sc.credential_id,
        )
        .join(JobRole.__table__, r.id == s.job_role_id)
        .outerjoin(slot_credentials, sc.slot_id == s.id)
        .outerjoin(wanted, wanted.c.id == sc.credential_id)
        .order_by(s.template_id, s.position, s.id, wanted.c.code)
    ):  # fmt: skip
        slot_rows.setdefault(row[0], tuple(row))
        if cid is not None:
            slot_creds.setdefault(row[0], []).append(credentials[cid])
    roles: dict[int, JobRoleInfo] = {}
    slots: dict[int, list[SlotInfo]] = {}
    for (
        sid,
        template_id,
        position,
        title,
        title_es,
        count,
        rid,
        code,
        name,
        name_es,
        low,
        high,
    ) in slot_rows.values():
        role = roles.setdefault(rid, JobRoleInfo(rid, code, name, name_es))
        slots.setdefault(template_id, []).append(
            SlotInfo(
                sid, template_id, position, title, title_es, count, role, low, high,
                tuple(slot_creds.get(sid, ())),
            )
        )  # fmt: skip

    # Templates (smallest band first) with their team-wide credentials (by code).
    t = TeamTemplate.__table__.c
    tc = template_credentials.c
    template_rows: dict[int, tuple[str, str, str, int, int | None, int, int]] = {}
    team_creds: dict[int, list[CredentialInfo]] = {}
    for tid, code, name, name_es, min_gpus, max_gpus, cost_min, cost_max, cid in run(
        select(
            t.id,
            t.code,
            t.name,
            t.name_es,
            t.min_gpus,
            t.max_gpus,
            t.cost_min,
            t.cost_max,
            tc.credential_id,
        )
        .outerjoin(template_credentials, tc.template_id == t.id)
        .outerjoin(wanted, wanted.c.id == tc.credential_id)
        .order_by(t.min_gpus, t.id, wanted.c.code)
    ):
        template_rows.setdefault(tid, (code, name, name_es, min_gpus, max_gpus, cost_min, cost_max))
        if cid is not None:
            team_creds.setdefault(tid, []).append(credentials[cid])
    templates = tuple(
        TemplateInfo(
            tid,
            *row,
            slots=tuple(slots.get(tid, ())),
            team_credentials=tuple(team_creds.get(tid, ())),
        )
        for tid, row in template_rows.items()
    )

    # Paths (by id) with their exam and courses (by position).
    p = LearningPath.__table__.c
    e = Exam.__table__.c
    pc = PathCourse.__table__.c
    k = Course.__table__.c
    path_rows: dict[int, tuple] = {}
    exams: dict[int, ExamInfo] = {}
    courses: dict[int, CourseInfo] = {}
    path_courses: dict[int, list[CourseInfo]] = {}
    for found in run(
        select(
            p.id, p.code, p.name, p.name_es, p.target_months, p.origin,
            e.id.label("exam_id"), e.credential_id, e.experience_months,
            k.id.label("course_id"), k.code.label("course_code"), k.title, k.title_es, k.hours,
            k.provider, k.list_price, k.origin.label("course_origin"),
        )
        .outerjoin(Exam.__table__, e.id == p.exam_id)
        .outerjoin(PathCourse.__table__, pc.path_id == p.id)
        .outerjoin(Course.__table__, k.id == pc.course_id)
        .order_by(p.id, pc.position)
    ):  # fmt: skip
        if found.id not in path_rows:
            path_rows[found.id] = (
                found.code,
                found.name,
                found.name_es,
                found.target_months,
                found.origin,
                found.exam_id,
            )
            if found.exam_id is not None and found.exam_id not in exams:
                exams[found.exam_id] = ExamInfo(
                    found.exam_id,
                    found.credential_id,
                    credentials[found.credential_id],
                    found.experience_months,
                )
        if found.course_id is not None:
            course = courses.get(found.course_id)
            if course is None:
                course = courses[found.course_id] = CourseInfo(
                    found.course_id,
                    found.course_code,
                    found.title,
                    found.title_es,
                    found.hours,
                    found.provider,
                    found.list_price,
                    found.course_origin,
                )
            path_courses.setdefault(found.id, []).append(course)
    paths = tuple(
        PathInfo(
            pid, code, name, name_es, target_months, origin,
            exams[exam_id] if exam_id is not None else None,
            tuple(path_courses.get(pid, ())),
        )
        for pid, (code, name, name_es, target_months, origin, exam_id) in path_rows.items()
    )  # fmt: skip
    return CatalogSnapshot(stamp, credentials, templates, paths)


_kept: OrderedDict[str, CatalogSnapshot] = OrderedDict()
_lock = threading.Lock()


# The catalog's stamp; a scalar subquery of it lets another query read it too.
STAMP_QUERY = select(CatalogVersion.stamp).where(CatalogVersion.id == 1)


def catalog_stamp(session: Session) -> str | None:
    """Return the catalog's stamp: one query a transaction (pending catalog writes flush first).

    A request reads the catalog from its services and its views: the stamp read
    once serves them all. It is kept for the innermost transaction it was read
    in (a savepoint rolled back forgets it), and a catalog write forgets it
    (`bump_catalog_version`).
    """
    kept = session.info.get(CATALOG_STAMP_KEY)
    if (
        kept is not None
        and kept[0] is _innermost(session)
        and not (session.new or session.dirty or session.deleted)
    ):
        return kept[1]
    stamp = session.execute(STAMP_QUERY).scalar()
    keep_catalog_stamp(session, stamp)
    return stamp


def keep_catalog_stamp(session: Session, stamp: str | None) -> None:
    """Keep the stamp another query of this transaction read (after the session flushed)."""
    session.info[CATALOG_STAMP_KEY] = (_innermost(session), stamp)


def _innermost(session: Session) -> object:
    return session.get_nested_transaction() or session.get_transaction()


def catalog_snapshot(session: Session) -> CatalogSnapshot:
    """Return the catalog as of the session's transaction: one query when this process has it."""
    stamp = catalog_stamp(session)
    if stamp is None:  # no version row: nothing to key a copy on
        return load_snapshot(session)
    with _lock:
        found = _kept.get(stamp)
        if found is not None:
            _kept.move_to_end(stamp)
            return found
    snapshot = load_snapshot(session, stamp)
    with _lock:
        _kept[stamp] = snapshot
        while len(_kept) > KEPT:
            _kept.popitem(last=False)
    return snapshot


def forget_snapshots() -> None:
    """Drop every copy this process keeps (tests)."""
    with _lock:
        _kept.clear()
