"""A demo organisation: three teams, one per fleet band, and people at every stage."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal

from sqlalchemy import select
from sqlalchemy.orm import Session

from tracker.catalog.models import Course, Credential, Exam
from tracker.people.models import Engineer, Team
from tracker.people.services.persons import create_person, find_engineer
from tracker.people.services.teams import create_team
from tracker.progress.services import add_months, log_hours, record_attempt, record_credential

DEMO_PASSWORD = "tracker-demo"
DOMAIN = "example.com"
FOUNDATIONS = ("FDL", "INTRO-AI-INFRA", "GPU-ARCH")
PROFESSIONAL = ("MULTI-GPU", "IB-NET", "AI-STORAGE", "CLUSTER-MGMT")


@dataclass
class Person:
    """One demo engineer and their history, in months (and days) before today."""

    name: str
    roles: tuple[str, ...]
    level: int
    hired_months_ago: int
    experience: int = 0
    # (course code, hours) logged, spread over days after the hire date.
    hours: list[tuple[str, Decimal]] = field(default_factory=list)
    # (exam code, days ago, score, passed)
    attempts: list[tuple[str, int, int, bool]] = field(default_factory=list)
    # (credential code, days ago issued, days from today to expiry or None)
    credentials: list[tuple[str, int, int | None]] = field(default_factory=list)


def _full(*codes: str) -> list[tuple[str, Decimal]]:
    return [(c, Decimal(-1)) for c in codes]  # -1: the course's full hours


TEAMS: list[tuple[str, int, str, list[Person]]] = [
    (
        "Atlas Platform",
        64,
        "maya",
        [
            Person(
                "Lena Ortiz",
                ("lead",),
                4,
                40,
                12,
                _full(*FOUNDATIONS, *PROFESSIONAL),
                [("NCA-AIIO", 700, 82, True), ("NCP-AII", 300, 77, True)],
                [("VENDOR-EXPERT", 450, 640), ("COMPTIA-LINUX-PLUS", 1100, None)],
            ),
            Person(
                "Sam Park",
                ("operations",),
                2,
                14,
                0,
                [*_full(*FOUNDATIONS), ("MULTI-GPU", Decimal(20))],
                [("NCA-AIIO", 270, 74, True)],
            ),
            Person(
                "Priya Nair",
                ("operations", "network"),
                3,
                30,
                6,
                _full(*FOUNDATIONS),
                [("NCA-AIIO", 760, 80, True), ("NCA-AIIO", 10, 62, False)],
                [("NVIDIA-NETWORKING", 365, 730)],
            ),
            Person(
                "Tom Becker",
                ("operations",),
                1,
                2,
                0,
                [("FDL", Decimal(8)), ("INTRO-AI-INFRA", Decimal("6.5"))],
            ),
        ],
    ),
    (
        "Borealis Cluster",
        480,
        "omar",
        [
            Person(
                "Grace Liu",
                ("architect", "senior"),
                5,
                60,
                24,
                _full(*FOUNDATIONS, *PROFESSIONAL),
                [
                    ("NCA-AIIO", 850, 91, True),
                    ("NCA-AIIO", 120, 88, True),
                    ("NCP-AII", 150, 85, True),
                ],
                [("CKA", 400, 700)],
            ),
            Person(
                "Diego Alvarez",
                ("senior",),
                4,
                36,
                12,
                _full(*FOUNDATIONS, *PROFESSIONAL),
                [("NCA-AIIO", 610, 79, True), ("NCP-AII", 240, 81, True)],
                [("VENDOR-EXPERT", 500, 600), ("RHCE", 800, 300)],
            ),
            Person(
                "Hana Sato",
                ("network",),
                3,
                26,
                3,
                _full(*FOUNDATIONS, "IB-NET"),
                [("NCA-AIIO", 365, 86, True)],
                [("NVIDIA-NETWORKING", 685, 45)],
            ),
            Person(
                "Felix Wagner",
                ("operations",),
                2,
                12,
                0,
                [*_full(*FOUNDATIONS), ("CLUSTER-MGMT", Decimal(12))],
                [("NCA-AIIO", 180, 71, True)],
            ),
            Person(
                "Ines Costa",
                ("storage",),
                3,
                20,
                0,
                _full(*FOUNDATIONS, *PROFESSIONAL),
                [("NCA-AIIO", 540, 84, True), ("NCP-AII", 60, 61, False)],
                [("VCP-DCV", 300, 795)],
            ),
            Person(
                "Kofi Mensah",
                ("operations",),
                2,
                8,
                4,
                [("FDL", Decimal(8)), ("INTRO-AI-INFRA", Decimal(16)), ("GPU-ARCH", Decimal(10))],
            ),
        ],
    ),
    (
        "Cygnus Supercompute",
        2048,
        "omar",
        [
            Person(
                "Ravi Kumar",
                ("senior", "performance"),
                4,
                50,
                10,
                _full(*FOUNDATIONS, *PROFESSIONAL),
                [("NCA-AIIO", 1220, 88, True), ("NCP-AII", 790, 83, True)],
                [("VENDOR-EXPERT", 900, 200)],
            ),
            Person(
                "Elena Petrova",
                ("security",),
                4,
                44,
                24,
                _full(*FOUNDATIONS),
                [("NCA-AIIO", 420, 90, True)],
                [("CISSP", 600, 495)],
            ),
            Person(
                "Noah Smith",
                ("operations",),
                2,
                10,
                0,
                _full(*FOUNDATIONS),
                [("NCA-AIIO", 75, 76, True)],
            ),
            Person(
                "Aisha Bello",
                ("operations", "storage"),
                1,
                3,
                0,
                [("FDL", Decimal(8)), ("GPU-ARCH", Decimal(4))],
            ),
        ],
    ),
]

MANAGERS = {"maya": ("Maya Chen", 4), "omar": ("Omar Haddad", 4)}


def _email(name: str) -> str:
    return f"{name.split()[0].lower()}@{DOMAIN}"


def build_demo(session: Session, today: dt.date) -> list[tuple[str, str, str]]:
    """Create the demo organisation (once) and return its logins (role, email, name)."""
    logins = [("admin", f"admin@{DOMAIN}", "Ada Admin")]
    logins += [("manager", f"{key}@{DOMAIN}", name) for key, (name, _) in MANAGERS.items()]
    logins += [("engineer", _email(p.name), p.name) for _, _, _, people in TEAMS for p in people]
    if find_engineer(session, f"admin@{DOMAIN}") is not None:
        return logins

    create_person(
        session,
        email=f"admin@{DOMAIN}",
        name="Ada Admin",
        today=today,
        access_role="admin",
        level=3,
        password=DEMO_PASSWORD,
        hired_on=add_months(today, -70),
    )
    managers = {
        key: create_person(
            session,
            email=f"{key}@{DOMAIN}",
            name=name,
            today=today,
            access_role="manager",
            level=level,
            job_roles=("lead",),
            hired_on=add_months(today, -80),
            experience_months=36,
            password=DEMO_PASSWORD,
        )
        for key, (name, level) in MANAGERS.items()
    }
    courses = {c.code: c for c in session.scalars(select(Course))}
    exams = {e.code: e for e in session.scalars(select(Exam).join(Exam.credential))}
    credentials = {c.code: c for c in session.scalars(select(Credential))}

    for team_name, gpus, manager_key, people in TEAMS:
        team = create_team(session, team_name, gpus, managers[manager_key].id)
        for person in people:
            _add_person(
                session, today, person, team, managers[manager_key], courses, exams, credentials
            )
    _add_careers(session, today, managers["omar"], credentials)
    return logins


# Specialities of the Borealis team: (person, speciality code, proficiency 0-4).
SKILLS = [
    ("Grace Liu", "infiniband-rdma", 4),
    ("Grace Liu", "nccl", 3),
    ("Diego Alvarez", "liquid-cooling", 3),
    ("Diego Alvarez", "nccl", 3),
    ("Hana Sato", "infiniband-rdma", 3),
    ("Ines Costa", "parallel-fs-gds", 3),
    ("Felix Wagner", "mig", 2),
    ("Kofi Mensah", "kubernetes", 2),
]


def _add_careers(
    session: Session, today: dt.date, manager: Engineer, credentials: dict[str, Credential]
) -> None:
    """Give the careers pages something to show: bonuses, skills, evidence, an apprenticeship."""
    from tracker.careers import services as careers
    from tracker.catalog.models import Speciality

    # The programme began two years ago; the Associate bonus went up this year.
    began = today.replace(year=today.year - 2, month=1, day=1)
    careers.set_bonus(session, credentials["NCA-AIIO"], 750, effective_on=began, today=today)
    careers.set_bonus(
        session,
        credentials["NCA-AIIO"],
        1000,
        effective_on=today.replace(month=1, day=1),
        today=today,
    )
    careers.set_bonus(session, credentials["NCP-AII"], 2500, effective_on=began, today=today)
    people = {e.name: e for e in session.scalars(select(Engineer))}
    specialities = {s.code: s for s in session.scalars(select(Speciality))}
    for name, code, proficiency in SKILLS:
        # Self-assessed, then confirmed by the manager for most of them.
        careers.assess(session, people[name], specialities[code], proficiency, people[name])
        if proficiency >= 3:
            careers.assess(session, people[name], specialities[code], proficiency, manager)
    careers.record_evidence(
        session,
        people["Grace Liu"],
        "deployment",
        "Led the 2,048-GPU Cygnus build-out",
        add_months(today, -10),
        today,
    )
    careers.create_apprenticeship(
        session,
        people["Kofi Mensah"],
        people["Diego Alvarez"],
        today,
        4,
        today,
    )


def _add_person(
    session: Session,
    today: dt.date,
    person: Person,
    team: Team,
    manager: Engineer,
    courses: dict[str, Course],
    exams: dict[str, Exam],
    credentials: dict[str, Credential],
) -> None:
    hired_on = add_months(today, -person.hired_months_ago)
    engineer = create_person(
        session,
        email=_email(person.name),
        name=person.name,
        today=today,
        job_roles=person.roles,
        level=person.level,
        team_id=team.id,
        manager_id=manager.id,
        hired_on=hired_on,
        experience_months=person.experience,
        experience_text=(
            f"{person.experience} months running GPU clusters before joining"
            if person.experience
            else ""
        ),
        password=DEMO_PASSWORD,
    )
    # Study starts a week after joining: 4 hours a day, one course after another.
    day = hired_on + dt.timedelta(days=7)
    for code, hours in person.hours:
        course = courses[code]
        left = course.hours if hours < 0 else hours
        while left > 0:
            chunk = min(Decimal(4), left)
            log_hours(
                session, engineer, course, min(day, today), chunk, today, note="demo study session"
            )
            left -= chunk
            day += dt.timedelta(days=1)
    for code, days_ago, score, passed in sorted(person.attempts, key=lambda a: -a[1]):
        record_attempt(
            session,
            engineer,
            exams[code],
            today - dt.timedelta(days=days_ago),
            score,
            passed,
            today,
            recorded_by=manager,
            proctoring="online, remotely proctored",
        )
    for code, days_ago, expires_in in person.credentials:
        record_credential(
            session,
            engineer,
            credentials[code],
            today - dt.timedelta(days=days_ago),
            today,
            evidence=f"certificate {code}-{engineer.id:04d}",
            expires_on=None if expires_in is None else today + dt.timedelta(days=expires_in),
        )


# --- a synthetic organisation of any size -------------------------------------
#
# `tracker demo --engineers N` and the benchmarks build organisations of
# thousands of engineers. The per-row services above would take hours for a
# million hour logs, so the generator plans every row in Python, checking the
# same rules the services check (24 hours a day, expiry = earned + validity,
# renewal chains, prerequisites valid on the attempt date, retake waits,
# nothing before the hire date or after today), and writes them in bulk: COPY
# on PostgreSQL, executemany elsewhere. Identifiers are assigned here, so rows
# can point at each other without reading anything back.

FIRST_NAMES = (
    "Ada", "Ben", "Chen", "Dara", "Eli", "Fatima", "Gus", "Hana", "Ivan", "Jia",
    "Kai", "Lina", "Mateo", "Nia", "Omar", "Pia", "Quinn", "Rosa", "Sami", "Tariq",
    "Uma", "Vik", "Wen", "Xena", "Yusuf", "Zoe", "Ari", "Bea", "Cyrus", "Dina",
    "Emeka", "Freya", "Gio", "Hiro", "Ines", "Jonas", "Kira", "Luca", "Mira", "Noor",
)  # fmt: skip
LAST_NAMES = (
    "Abe", "Bauer", "Costa", "Diaz", "Eriksen", "Fischer", "Garcia", "Hughes", "Ito",
    "Jensen", "Kowalski", "Lopez", "Moreau", "Nakamura", "Okafor", "Patel", "Quist",
    "Rossi", "Silva", "Tanaka", "Umar", "Varga", "Weber", "Xu", "Yilmaz", "Zhang",
    "Adeyemi", "Brandt", "Castillo", "Dubois", "Evans", "Ferreira", "Gomez", "Haddad",
    "Iyer", "Jovanovic", "Kim", "Larsen", "Mensah", "Novak",
)  # fmt: skip
TEAM_WORDS = (
    "Aurora", "Basalt", "Cobalt", "Delta", "Ember", "Fjord", "Granite", "Helix",
    "Iris", "Juniper", "Kestrel", "Lumen", "Meridian", "Nimbus", "Onyx", "Polaris",
    "Quartz", "Raven", "Sierra", "Tundra", "Umbra", "Vega", "Willow", "Zephyr",
)  # fmt: skip

# Fleet bands: share of teams, GPUs, people per team.
BANDS = (
    ("small", 0.45, (8, 99), (8, 14)),
    ("medium", 0.35, (100, 999), (12, 25)),
    ("large", 0.20, (1000, 8192), (20, 40)),
)
# Levels of people added beyond the template's seats, by job role.
EXTRA_ROLES = (
    ("operations", 60),
    ("network", 14),
    ("storage", 10),
    ("senior", 6),
    ("performance", 5),
    ("security", 5),
)
ROLE_LEVELS = {
    "operations": ((1, 25), (2, 45), (3, 30)),
    "network": ((3, 70), (4, 30)),
    "storage": ((3, 75), (4, 25)),
    "senior": ((4, 100),),
    "lead": ((4, 100),),
    "performance": ((4, 100),),
    "security": ((4, 100),),
    "architect": ((5, 100),),
}
SECOND_ROLE = {
    "operations": "network",
    "network": "operations",
    "storage": "operations",
    "senior": "performance",
    "performance": "senior",
    "lead": "senior",
    "architect": "senior",
    "security": "operations",
}
# Months of experience each level starts at (DOMAIN.md section 1).
LEVEL_MONTHS = {1: 0, 2: 6, 3: 12, 4: 24, 5: 48}
# Hours of one study session, in hundredths, with weights; the long ones are
# bootcamp days, so that some days come close to the 24-hour limit.
SESSION_HUNDREDTHS = (
    (25, 4), (50, 10), (75, 6), (100, 18), (150, 14), (200, 16), (300, 12),
    (400, 12), (800, 4), (1200, 3), (1600, 1),
)  # fmt: skip
HOUR_LOGS_PER_ENGINEER = 100
# External credentials: (code, months the holder enters as validity or None,
# chance by band {small, medium, large}, roles that always try it).
EXTERNALS = (
    ("COMPTIA-LINUX-PLUS", 36, (0.45, 0.45, 0.45), ()),
    ("NVIDIA-NETWORKING", 24, (0.10, 0.10, 0.10), ("network",)),
    ("VENDOR-EXPERT", 36, (0.05, 0.05, 0.05), ("lead", "senior", "performance", "architect")),
    ("CKA", 24, (0.15, 0.40, 0.45), ()),
    ("RHCE", 36, (0.05, 0.25, 0.25), ()),
    ("VCP-DCV", None, (0.02, 0.15, 0.15), ()),
    ("AWS-ARCHITECT", 36, (0.02, 0.04, 0.12), ("architect",)),
    ("AZURE-ARCHITECT", 24, (0.01, 0.03, 0.06), ()),
    ("GCP-ARCHITECT", 24, (0.01, 0.02, 0.05), ()),
    ("CISSP", 36, (0.01, 0.02, 0.03), ("security",)),
    ("CCSP", 36, (0.01, 0.01, 0.02), ()),
    ("SIX-SIGMA", None, (0.01, 0.03, 0.10), ()),
)


@dataclass
class GeneratedOrganisation:
    """What `generate_organisation` made: its logins' domain and the rows per table."""

    domain: str
    admin_email: str
    password: str
    rows: dict[str, int]
    seconds: float = 0.0

    def summary(self) -> str:
        counts = ", ".join(f"{n:,} {table.replace('_', ' ')}" for table, n in self.rows.items())
        return f"generated {counts} in {self.seconds:.1f} s"


class _Writer:
    """Buffer rows per table and write them in bulk: COPY on PostgreSQL, executemany elsewhere."""

    BATCH = 20_000

    def __init__(self, session: Session) -> None:
        self.session = session
        self.postgres = session.get_bind().dialect.name == "postgresql"
        self.buffers: dict[str, list[tuple]] = {}
        self.columns: dict[str, tuple[str, ...]] = {}
        self.tables: dict[str, object] = {}
        self.rows: dict[str, int] = {}
        self.next_ids: dict[str, int] = {}

    def table(self, model: type, columns: tuple[str, ...]) -> None:
        from sqlalchemy import Integer, column, func
        from sqlalchemy import table as lightweight

        from tracker.db import Fixed

        real = model.__table__
        name = real.name
        self.columns[name] = columns
        # Fixed columns take the stored integer (hundredths) as it is.
        self.tables[name] = lightweight(
            name,
            *(
                column(c, Integer() if isinstance(real.c[c].type, Fixed) else real.c[c].type)
                for c in columns
            ),
        )
        self.buffers[name] = []
        self.rows[name] = 0
        self.next_ids[name] = (self.session.scalar(select(func.max(real.c.id))) or 0) + 1

    def new_id(self, name: str) -> int:
        value = self.next_ids[name]
        self.next_ids[name] = value + 1
        return value

    def add(self, name: str, row: tuple) -> None:
        buffer = self.buffers[name]
        buffer.append(row)
        if len(buffer) >= self.BATCH:
            # Rows point at rows of the tables declared before (engineers before
            # their hour logs, attempts before certifications): those go first.
            for table in self.buffers:
                self.flush(table)
                if table == name:
                    break

    def flush(self, name: str | None = None) -> None:
        from sqlalchemy import insert

        for table in [name] if name else list(self.buffers):
            rows = self.buffers[table]
            if not rows:
                continue
            self.buffers[table] = []
            self.rows[table] += len(rows)
            columns = self.columns[table]
            if self.postgres:
                raw = self.session.connection().connection.driver_connection
                with (
                    raw.cursor() as cursor,
                    cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy,
                ):
                    for row in rows:
                        copy.write_row(row)
            else:
                self.session.execute(
                    insert(self.tables[table]), [dict(zip(columns, r, strict=True)) for r in rows]
                )

    def finish(self) -> None:
        from sqlalchemy import text

        self.flush()
        if self.postgres:
            for name in self.columns:
                self.session.execute(
                    text(
                        f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), "
                        f"(SELECT max(id) FROM {name}))"
                    )
                )


@dataclass
class _Held:
    """One certification the generator planned, for prerequisite and renewal checks."""

    id: int
    credential_id: int
    earned_on: dt.date
    expires_on: dt.date | None


def _weighted(rng, pairs):
    values, weights = zip(*pairs, strict=True)
    return rng.choices(values, weights)[0]


def generate_organisation(
    session: Session,
    engineers: int,
    today: dt.date,
    seed: int = 1,
    years: int = 4,
    password: str = DEMO_PASSWORD,
    analyze: bool = False,
) -> GeneratedOrganisation:
    """Build an organisation of `engineers` team members (plus managers and an admin), in bulk.

    Teams in every fleet band (8-40 people), job roles and levels fitted to
    their templates, `years` years of history: about 100 hour logs per
    engineer, exam attempts (passes and fails) with their certifications,
    renewals linked by renews_id, and external credentials, valid, expiring
    and expired on `today`. The same seed builds the same organisation.
    Logins are <first>.<last>.<n>@org<seed>.example.com and admin@...,
    every password `password`.
    """
    import random
    import time

    from tracker.catalog.models import JobRole
    from tracker.errors import ValidationError
    from tracker.people.models import JobRoleAssignment
    from tracker.people.services.accounts import hash_password
    from tracker.progress.models import Certification, ExamAttempt, HourLog
    from tracker.progress.services import whole_months_between
    from tracker.readiness.services import choose_template, load_templates

    started = time.perf_counter()
    if engineers < 1:
        raise ValidationError({"engineers": "an organisation needs at least 1 engineer"})
    if years < 1:
        raise ValidationError({"years": "history must cover at least 1 year"})
    domain = f"org{seed}.{DOMAIN}"
    admin_email = f"admin@{domain}"
    if find_engineer(session, admin_email) is not None:
        raise ValidationError(
            {"seed": f"an organisation with seed {seed} exists already ({admin_email})"}
        )
    rng = random.Random(seed)
    now = dt.datetime.combine(today, dt.time(12))
    password_hash = hash_password(password)  # one hash, shared: scrypt per row takes minutes

    roles = {r.code: r.id for r in session.scalars(select(JobRole))}
    templates = load_templates(session)
    if not templates or not roles:
        raise ValidationError({"catalog": "the catalog is empty; run `tracker init` first"})
    # Courses in path order (Foundations first), then any others.
    from tracker.progress.services import paths_with_courses

    courses: list[Course] = []
    for path in paths_with_courses(session):
        courses += [c for c in path.courses if c not in courses]
    courses += [c for c in session.scalars(select(Course).order_by(Course.id)) if c not in courses]
    exams = list(
        session.scalars(
            select(Exam).join(Exam.credential).where(Credential.origin == "seed").order_by(Exam.id)
        )
    )
    # Exams whose prerequisites are other exams come after them.
    exams.sort(key=lambda e: (bool(e.prerequisites), e.id))
    externals = {
        c.code: c.id
        for c in session.scalars(select(Credential).where(Credential.kind == "external"))
    }

    w = _Writer(session)
    w.table(
        Engineer,
        (
            "id", "name", "email", "password_hash", "access_role", "level", "team_id",
            "manager_id", "hired_on", "experience_text", "experience_months", "active",
            "session_epoch", "created_at", "updated_at",
        ),
    )  # fmt: skip
    w.table(Team, ("id", "name", "gpus", "manager_id", "created_at"))
    w.table(JobRoleAssignment, ("id", "engineer_id", "job_role_id", "started_on", "ended_on"))
    w.table(
        HourLog,
        (
            "id",
            "engineer_id",
            "course_id",
            "logged_on",
            "hours",
            "note",
            "created_at",
            "updated_at",
        ),
    )
    w.table(
        ExamAttempt,
        (
            "id", "engineer_id", "exam_id", "attempted_on", "score", "passed", "cost",
            "voucher_code", "proctoring", "note", "recorded_by_id", "created_at",
        ),
    )  # fmt: skip
    w.table(
        Certification,
        (
            "id", "engineer_id", "credential_id", "earned_on", "expires_on", "attempt_id",
            "evidence", "renews_id", "recorded_by_id", "created_at",
        ),
    )  # fmt: skip

    first_day = today - dt.timedelta(days=365 * years)
    names_used: set[str] = set()

    def person_name() -> tuple[str, str]:
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        return first, last

    def add_engineer(
        first: str,
        last: str,
        *,
        access_role: str,
        level: int,
        team_id: int | None,
        manager_id: int | None,
        hired_on: dt.date,
        experience: int,
        active: bool = True,
        email: str | None = None,
    ) -> int:
        engineer_id = w.new_id("engineers")
        email = email or f"{first}.{last}.{engineer_id}@{domain}".lower()
        w.add(
            "engineers",
            (
                engineer_id,
                f"{first} {last}",
                email,
                password_hash,
                access_role,
                level,
                team_id,
                manager_id,
                hired_on,
                f"{experience} months running GPU clusters before joining" if experience else "",
                experience,
                active,
                0,
                now,
                now,
            ),
        )
        return engineer_id

    # The admin and the managers (one per one to three teams) come first:
    # teams and members point at them.
    add_engineer(
        "Ada",
        "Admin",
        access_role="admin",
        level=3,
        team_id=None,
        manager_id=None,
        hired_on=first_day,
        experience=0,
        email=admin_email,
    )
    plans: list[tuple[str, int, int]] = []  # (band, gpus, size)
    left = engineers
    while left > 0:
        band, _, (low_gpus, high_gpus), (low, high) = _weighted(rng, [(b, b[1]) for b in BANDS])
        size = min(left, rng.randint(low, high))
        plans.append((band, rng.randint(low_gpus, high_gpus), size))
        left -= size
    # A remainder too small for a team joins the others.
    if len(plans) > 1 and plans[-1][2] < 8:
        spare = plans.pop()[2]
        for i in range(spare):
            band, gpus, size = plans[i % len(plans)]
            plans[i % len(plans)] = (band, gpus, size + 1)

    team_ids: list[int] = []
    manager_ids: list[int] = []
    index = 0
    while index < len(plans):
        count = min(rng.randint(1, 3), len(plans) - index)
        first, last = person_name()
        hired_on = today - dt.timedelta(days=rng.randint(365 * 2, 365 * (years + 4)))
        manager_id = add_engineer(
            first,
            last,
            access_role="manager",
            level=rng.choice((4, 5)),
            team_id=None,
            manager_id=None,
            hired_on=hired_on,
            experience=rng.randint(24, 96),
        )
        for _ in range(count):
            manager_ids.append(manager_id)
        if "lead" in roles:
            w.add(
                "job_role_assignments",
                (w.new_id("job_role_assignments"), manager_id, roles["lead"], hired_on, None),
            )
        index += count
    w.flush("engineers")
    for number, ((_band, gpus, _size), manager_id) in enumerate(
        zip(plans, manager_ids, strict=True), start=1
    ):
        team_id = w.new_id("teams")
        name = f"{TEAM_WORDS[number % len(TEAM_WORDS)]} {number:04d}"
        if seed != 1:
            name += f" ({seed})"
        while name in names_used:
            name += "'"
        names_used.add(name)
        w.add("teams", (team_id, name, gpus, manager_id, now))
        team_ids.append(team_id)
    w.flush("teams")

    slots_by_template = {
        t.id: [(s.job_role.code, s.count, s.min_level, s.max_level) for s in t.slots]
        for t in templates
    }
    band_index = {b[0]: i for i, b in enumerate(BANDS)}

    for (band, gpus, size), team_id, manager_id in zip(plans, team_ids, manager_ids, strict=True):
        template = choose_template(templates, gpus)
        # Most of the template's seats have someone meant for them, some at the
        # wrong level; the rest of the team is mostly operations engineers.
        people: list[tuple[str, int]] = []
        for role, count, min_level, max_level in slots_by_template[template.id]:
            for _ in range(count):
                if role in roles and rng.random() < 0.85:
                    level = rng.randint(min_level, max_level)
                    if rng.random() < 0.1 and min_level > 1:
                        level = min_level - 1
                    people.append((role, level))
        rng.shuffle(people)
        people = people[:size]
        while len(people) < size:
            role = _weighted(rng, EXTRA_ROLES)
            people.append((role, _weighted(rng, ROLE_LEVELS[role])))
        for role, level in people:
            first, last = person_name()
            hired_on = today - dt.timedelta(days=rng.randint(20, 365 * years))
            since_hire = whole_months_between(hired_on, today)
            experience = max(0, LEVEL_MONTHS[level] - since_hire)
            if experience or rng.random() < 0.3:
                experience += rng.randint(0, 18)
            engineer_id = add_engineer(
                first,
                last,
                access_role="engineer",
                level=level,
                team_id=team_id,
                manager_id=manager_id,
                hired_on=hired_on,
                experience=experience,
                active=rng.random() >= 0.01,
            )
            held_roles = [role]
            if rng.random() < 0.2 and SECOND_ROLE[role] in roles:
                held_roles.append(SECOND_ROLE[role])
            for code in held_roles:
                if code in roles:
                    w.add(
                        "job_role_assignments",
                        (
                            w.new_id("job_role_assignments"),
                            engineer_id,
                            roles[code],
                            hired_on,
                            None,
                        ),
                    )
            if rng.random() < 0.15 and since_hire >= 6:
                # Rotation: a role held for a while after joining, then left.
                former = rng.choice([r for r in roles if r not in held_roles])
                ended = hired_on + dt.timedelta(days=rng.randint(60, (today - hired_on).days))
                w.add(
                    "job_role_assignments",
                    (w.new_id("job_role_assignments"), engineer_id, roles[former], hired_on, ended),
                )
            _history(
                w,
                rng,
                today,
                now,
                engineer_id=engineer_id,
                manager_id=manager_id,
                hired_on=hired_on,
                experience=experience,
                level=level,
                held_roles=held_roles,
                band=band_index.get(band, 0),
                courses=courses,
                exams=exams,
                externals=externals,
                mean_tenure_days=(20 + 365 * years) / 2,
            )
    w.finish()
    if analyze:
        from sqlalchemy import text

        session.execute(text("ANALYZE"))
    return GeneratedOrganisation(
        domain=domain,
        admin_email=admin_email,
        password=password,
        rows=dict(w.rows),
        seconds=time.perf_counter() - started,
    )


def _history(
    w: _Writer,
    rng,
    today: dt.date,
    now: dt.datetime,
    *,
    engineer_id: int,
    manager_id: int,
    hired_on: dt.date,
    experience: int,
    level: int,
    held_roles: list[str],
    band: int,
    courses: list[Course],
    exams: list[Exam],
    externals: dict[str, int],
    mean_tenure_days: float,
) -> None:
    """Plan one engineer's hour logs, exam attempts and certifications, keeping every rule."""
    from tracker.progress.services import whole_months_between

    tenure = (today - hired_on).days
    # --- hour logs: about 100 over the average tenure, courses in path order.
    count = round(HOUR_LOGS_PER_ENGINEER * tenure / mean_tenure_days * rng.uniform(0.7, 1.3))
    count = min(count, 2 * (tenure + 1))
    days = sorted(rng.randrange(tenure + 1) for _ in range(count))
    day_totals: dict[int, int] = {}
    course_index, on_course = 0, 0
    sizes, weights = zip(*SESSION_HUNDREDTHS, strict=True)
    chosen = rng.choices(sizes, weights, k=count)
    for offset, hundredths in zip(days, chosen, strict=True):
        # A day holds at most 24 hours: the session is cut to what is left.
        hundredths = min(hundredths, 2400 - day_totals.get(offset, 0))
        if hundredths <= 0:
            continue
        day_totals[offset] = day_totals.get(offset, 0) + hundredths
        if course_index < len(courses):
            course = courses[course_index]
            on_course += hundredths
            if on_course >= int(course.hours * 100):
                course_index, on_course = course_index + 1, 0
        else:
            course = rng.choice(courses)
        w.add(
            "hour_logs",
            (
                w.new_id("hour_logs"),
                engineer_id,
                course.id,
                hired_on + dt.timedelta(days=offset),
                hundredths,
                "" if hundredths < 800 else "bootcamp day",
                now,
                now,
            ),
        )

    # --- exams: chains of passes (with some failures first), renewed or lapsing.
    held: list[_Held] = []

    def valid(credential_ids: frozenset[int], on: dt.date) -> bool:
        return any(
            h.credential_id in credential_ids
            and h.earned_on <= on
            and (h.expires_on is None or on <= h.expires_on)
            for h in held
        )

    def allowed(exam: Exam, on: dt.date) -> bool:
        if on > today or on < hired_on:
            return False
        if experience + whole_months_between(hired_on, on) < exam.experience_months:
            return False
        return all(valid(c.satisfying_ids(), on) for c in exam.prerequisites)

    def certify(credential_id: int, earned_on: dt.date, expires_on, attempt_id, evidence) -> None:
        previous = max(
            (h for h in held if h.credential_id == credential_id),
            key=lambda h: (h.earned_on, h.id),
            default=None,
        )
        cert_id = w.new_id("certifications")
        w.add(
            "certifications",
            (
                cert_id,
                engineer_id,
                credential_id,
                earned_on,
                expires_on,
                attempt_id,
                evidence,
                previous.id if previous else None,
                manager_id,
                now,
            ),
        )
        held.append(_Held(cert_id, credential_id, earned_on, expires_on))

    def attempt(exam: Exam, on: dt.date, passed: bool) -> int:
        attempt_id = w.new_id("exam_attempts")
        score = (
            rng.randint(exam.passing_score, 98)
            if passed
            else rng.randint(35, max(35, exam.passing_score - 1))
        )
        w.add(
            "exam_attempts",
            (
                attempt_id,
                engineer_id,
                exam.id,
                on,
                score,
                passed,
                int(exam.list_price * 100) if exam.list_price is not None else None,
                "",
                exam.delivery or "online, remotely proctored",
                "",
                manager_id,
                now,
            ),
        )
        return attempt_id

    chance = {
        "NCA-AIIO": 0.4 if level == 1 else 0.95,
        "NCP-AII": 0.8 if level >= 3 else (0.1 if level == 2 else 0.0),
        "NCP-AIO": 0.2 if level >= 3 else 0.05,
    }
    for exam in exams:
        if rng.random() >= chance.get(exam.code, 0.05):
            continue
        validity = exam.validity_months
        on = hired_on + dt.timedelta(days=rng.randint(30, 300))
        if exam.prerequisites or exam.experience_months:
            # The first date the prerequisites hold, then some months of study.
            starts = sorted(
                [on, add_months(hired_on, max(0, exam.experience_months - experience))]
                + [h.earned_on for h in held]
            )
            later = [d for d in starts if d >= on and allowed(exam, d)]
            if not later:
                continue
            on = later[0] + dt.timedelta(days=rng.randint(0, 120))
        while on <= today:
            if rng.random() < 0.2 and allowed(exam, on):
                attempt(exam, on, passed=False)
                on += dt.timedelta(days=exam.retake_wait_days + rng.randint(0, 45))
                if on > today:
                    break
            if not allowed(exam, on):
                break
            attempt_id = attempt(exam, on, passed=True)
            expires_on = add_months(on, validity) if validity else None
            certify(exam.credential_id, on, expires_on, attempt_id, "")
            if expires_on is None:
                break
            fate = rng.random()
            if fate < 0.72:  # renewed in time: a few weeks or months before the expiry
                on = expires_on - dt.timedelta(days=rng.randint(5, 150))
            elif fate < 0.87:  # lapsed, then renewed
                on = expires_on + dt.timedelta(days=rng.randint(1, 240))
            else:  # lapsed for good
                break

    # --- credentials earned elsewhere, recorded with evidence.
    for code, months, chances, for_roles in EXTERNALS:
        credential_id = externals.get(code)
        if credential_id is None:
            continue
        likely = 0.85 if any(r in for_roles for r in held_roles) else chances[band]
        if rng.random() >= likely:
            continue
        # Often earned before joining.
        on = hired_on - dt.timedelta(days=rng.randint(-300, 1800))
        on = min(on, today)
        number = 0
        while on <= today:
            number += 1
            expires_on = add_months(on, months) if months else None
            certify(
                credential_id, on, expires_on, None, f"certificate {code}-{engineer_id}-{number}"
            )
            if expires_on is None or rng.random() >= 0.75:
                break
            on = expires_on - dt.timedelta(days=rng.randint(-60, 60))
