"""Generate an organisation of any size, planned in Python and written in bulk.

`tracker demo --engineers N` and the benchmarks build organisations of
thousands of engineers. The per-row services would take hours for a million
hour logs, so the generator plans every row, checking the same rules the
services check (the hours a day holds, expiry = earned + validity, renewal chains,
prerequisites valid on the attempt date, retake waits, nothing before the hire
date or after today), and writes them in bulk.
"""

from __future__ import annotations

import datetime as dt
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from sqlalchemy import select, text, update
from sqlalchemy.orm import Session

from tracker.catalog.models.credentials import Course, Credential, Exam
from tracker.catalog.models.levels import Level
from tracker.catalog.models.skills import JobRole
from tracker.catalog.services.reads import paths_with_courses
from tracker.demo.services.bulk import BulkWriter
from tracker.demo.services.common import (
    DEMO_ADMIN_TOTP_SECRET,
    DEMO_PASSWORD,
    DOMAIN,
    bootcamp_note,
    experience_text,
    proctoring,
)
from tracker.demo.services.history import plan_history
from tracker.errors import ValidationError
from tracker.people.models import Engineer, JobRoleAssignment, Team
from tracker.people.services.accounts import hash_password
from tracker.people.services.reads import find_engineer
from tracker.people.services.totp import encrypt_secret
from tracker.progress.ddl import POSTGRESQL_TRIGGER_NAME as HOUR_DAYS_TRIGGER
from tracker.progress.models import Certification, ExamAttempt, HourDay, HourLog
from tracker.progress.services.validity import whole_months_between
from tracker.readiness.services.current import refresh
from tracker.readiness.services.history import backfill
from tracker.readiness.services.matching import choose_template
from tracker.readiness.services.members import load_templates

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
# The languages people read the tracker in (Engineer.locale; "" for the browser's), by weight.
LANGUAGES = (("es", 40), ("en", 35), ("", 25))
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


@dataclass
class GeneratedOrganisation:
    """What `generate_organisation` made: its logins' domain and the rows per table."""

    domain: str
    admin_email: str
    password: str
    rows: dict[str, int]
    seconds: float = 0.0

    def summary(self) -> str:
        """Return the rows made per table and the time taken, on one line."""
        counts = ", ".join(f"{n:,} {table.replace('_', ' ')}" for table, n in self.rows.items())
        return f"generated {counts} in {self.seconds:.1f} s"


T = TypeVar("T")


def _weighted(rng: random.Random, pairs: Sequence[tuple[T, float]]) -> T:
    """Return one of the values of (value, weight) pairs, chosen by weight."""
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
    *,
    secret_key: str,
) -> GeneratedOrganisation:
    """Build an organisation of `engineers` team members (plus managers and an admin), in bulk.

    Teams in every fleet band (8-40 people), job roles and levels fitted to
    their templates, `years` years of history: about 100 hour logs per
    engineer, exam attempts (passes and fails) with their certifications,
    renewals linked by renews_id, and external credentials, valid, expiring
    and expired on `today`. The same seed builds the same organisation.
    Logins are <first>.<last>.<n>@org<seed>.example.com and admin@...,
    every password `password`; the admin's app secret, the demo's known one,
    is stored encrypted with `secret_key` as any other.
    """
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
    # A generator of its own, so that languages leave the rest of the organisation as it was.
    language_rng = random.Random(f"languages {seed}")
    now = dt.datetime.combine(today, dt.time(12))
    password_hash = hash_password(password)  # one hash, shared: scrypt per row takes minutes

    roles = {r.code: r.id for r in session.scalars(select(JobRole))}
    templates = load_templates(session)
    if not templates or not roles:
        raise ValidationError({"catalog": "the catalog is empty; run `tracker init` first"})
    # Months of experience each level starts at, as the promotion rule has it.
    level_months = {lv.number: lv.min_experience_months for lv in session.scalars(select(Level))}
    # Courses in path order (Foundations first), then any others.
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

    w = BulkWriter(session)
    w.table(
        Engineer,
        (
            "id", "name", "email", "password_hash", "access_role", "level", "team_id",
            "manager_id", "hired_on", "experience_text", "experience_months", "active",
            "session_epoch", "locale", "created_at", "updated_at",
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
        keys_after=True,
    )
    if w.postgres:
        # The day totals are copied in beside the entries, with the trigger that would
        # add each entry to its day set aside until the end (progress.ddl).
        session.execute(text(f"ALTER TABLE hour_logs DISABLE TRIGGER {HOUR_DAYS_TRIGGER}"))
        w.table(HourDay, ("engineer_id", "logged_on", "hours"), keys_after=True)
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
        locale: str | None = None,
    ) -> int:
        engineer_id = w.new_id("engineers")
        email = email or f"{first}.{last}.{engineer_id}@{domain}".lower()
        if locale is None:
            locale = _weighted(language_rng, LANGUAGES)
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
                experience_text(experience, locale),
                experience,
                active,
                0,
                locale,
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
        locale="",
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
            experience = max(0, level_months.get(level, 0) - since_hire)
            if experience or rng.random() < 0.3:
                experience += rng.randint(0, 18)
            locale = _weighted(language_rng, LANGUAGES)
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
                locale=locale,
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
            plan_history(
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
                bootcamp_note=bootcamp_note(locale),
                proctoring=proctoring(locale),
            )
    w.finish()
    if w.postgres:
        session.execute(text(f"ALTER TABLE hour_logs ENABLE TRIGGER {HOUR_DAYS_TRIGGER}"))
    # Admins sign in with a second step: the admin's app secret is the demo's known one.
    session.execute(
        update(Engineer)
        .where(Engineer.email == admin_email)
        .values(totp_secret=encrypt_secret(DEMO_ADMIN_TOTP_SECRET, secret_key))
        .execution_options(synchronize_session=False)
    )
    # A year of daily readiness as the records say it was, and today's kept current.
    w.rows["readiness_snapshots"] = backfill(session, today)
    refresh(session, today)
    if analyze:
        session.execute(text("ANALYZE"))
    return GeneratedOrganisation(
        domain=domain,
        admin_email=admin_email,
        password=password,
        rows=dict(w.rows),
        seconds=time.perf_counter() - started,
    )
