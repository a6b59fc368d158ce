"""The curated demo organisation: three teams, one per fleet band, and people at every stage."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal

from sqlalchemy import select
from sqlalchemy.orm import Session

from tracker.careers.services.apprenticeships import create_apprenticeship
from tracker.careers.services.bonuses import set_bonus
from tracker.careers.services.evidence import record_evidence
from tracker.careers.services.skills import assess
from tracker.catalog.models.credentials import Course, Credential, Exam
from tracker.catalog.models.skills import Speciality
from tracker.demo.services.common import (
    DEMO_ADMIN_TOTP_SECRET,
    DEMO_PASSWORD,
    DOMAIN,
    corrected_study_note,
    evidence,
    experience_text,
    proctoring,
    study_note,
)
from tracker.people.models import Engineer, Team
from tracker.people.services.persons import create_person
from tracker.people.services.reads import find_engineer
from tracker.people.services.teams import create_team
from tracker.people.services.totp import set_secret
from tracker.progress.models import HourLog
from tracker.progress.services.certifications import record_attempt, record_credential
from tracker.progress.services.hours import log_hours, update_hours
from tracker.progress.services.validity import add_months
from tracker.readiness.services.current import refresh
from tracker.readiness.services.history import backfill

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
    """Return each course's full hours, to be logged."""
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

# The language each demo person reads the tracker in: Spanish, English, or, for
# everyone not named here, their browser's (""). Lena (Spanish) has a certification
# expiring within the month, so her reminder goes out in Spanish and the copy to her
# manager Maya (English) in English. Omar follows his browser (mail in the default
# language) and manages Diego, Ines and Elena (Spanish) and Grace and Ravi (English).
LANGUAGES = {
    "Maya Chen": "en",
    "Lena Ortiz": "es",
    "Priya Nair": "es",
    "Diego Alvarez": "es",
    "Ines Costa": "es",
    "Elena Petrova": "es",
    "Grace Liu": "en",
    "Ravi Kumar": "en",
}


# The demo is made by `tracker demo` (or `tracker init --demo`): the account trail's
# method for the accounts it creates.
DEMO_VIA = "cli"


def language_of(name: str) -> str:
    """Return the language a demo person reads the tracker in ("" for their browser's)."""
    return LANGUAGES.get(name, "")


def _email(name: str) -> str:
    """Return the demo login of a person: their first name at the demo domain."""
    return f"{name.split()[0].lower()}@{DOMAIN}"


def build_demo(session: Session, today: dt.date, *, secret_key: str) -> list[tuple[str, str, str]]:
    """Create the demo organisation (once) and return its logins (role, email, name).

    The admin's known app secret is stored encrypted with `secret_key`, as any other.
    """
    logins = [("admin", f"admin@{DOMAIN}", "Ada Admin")]
    logins += [("manager", f"{key}@{DOMAIN}", name) for key, (name, _) in MANAGERS.items()]
    logins += [("engineer", _email(p.name), p.name) for _, _, _, people in TEAMS for p in people]
    if find_engineer(session, f"admin@{DOMAIN}") is not None:
        return logins

    admin = create_person(
        session,
        email=f"admin@{DOMAIN}",
        name="Ada Admin",
        today=today,
        access_role="admin",
        level=3,
        password=DEMO_PASSWORD,
        via=DEMO_VIA,
        hired_on=add_months(today, -70),
    )
    # Admins sign in with a second step: a known secret, printed by `tracker demo`.
    set_secret(session, admin, DEMO_ADMIN_TOTP_SECRET, secret_key=secret_key)
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
            experience_text=experience_text(36, language_of(name)),
            password=DEMO_PASSWORD,
            via=DEMO_VIA,
            locale=language_of(name),
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
    _correct_an_entry(session, today, "Tom Becker")
    # A year of daily readiness as the records say it was, and today's kept current.
    backfill(session, today)
    refresh(session, today)
    return logins


def _correct_an_entry(session: Session, today: dt.date, name: str) -> None:
    """Have `name` correct the note of their latest hour log, so its page shows a history."""
    engineer = session.scalars(select(Engineer).where(Engineer.name == name)).one()
    entry = session.scalars(
        select(HourLog)
        .where(HourLog.engineer_id == engineer.id)
        .order_by(HourLog.logged_on.desc(), HourLog.id.desc())
        .limit(1)
    ).one()
    update_hours(
        session,
        entry,
        entry.course,
        entry.logged_on,
        entry.hours,
        today,
        note=corrected_study_note(engineer.locale),
        actor=engineer,
    )


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
    # The programme began two years ago; the Associate bonus went up this year.
    # Each amount is set on the day it took effect, as an admin did then: a quarter
    # already over keeps what it paid.
    began = today.replace(year=today.year - 2, month=1, day=1)
    set_bonus(session, credentials["NCA-AIIO"], 750, effective_on=began, today=began)
    raised = today.replace(month=1, day=1)
    set_bonus(session, credentials["NCA-AIIO"], 1000, effective_on=raised, today=raised)
    set_bonus(session, credentials["NCP-AII"], 2500, effective_on=began, today=began)
    people = {e.name: e for e in session.scalars(select(Engineer))}
    specialities = {s.code: s for s in session.scalars(select(Speciality))}
    for name, code, proficiency in SKILLS:
        # Self-assessed, then confirmed by the manager for most of them.
        assess(session, people[name], specialities[code], proficiency, people[name])
        if proficiency >= 3:
            assess(session, people[name], specialities[code], proficiency, manager)
    record_evidence(
        session,
        people["Grace Liu"],
        "deployment",
        "Led the 2,048-GPU Cygnus build-out",
        add_months(today, -10),
        today,
    )
    create_apprenticeship(
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
    """Add one person to a team, with their study hours, exam attempts and credentials."""
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
        experience_text=experience_text(person.experience, language_of(person.name)),
        password=DEMO_PASSWORD,
        via=DEMO_VIA,
        locale=language_of(person.name),
    )
    # Study starts a week after joining: 4 hours a day, one course after another.
    day = hired_on + dt.timedelta(days=7)
    for code, hours in person.hours:
        course = courses[code]
        left = course.hours if hours < 0 else hours
        while left > 0:
            chunk = min(Decimal(4), left)
            log_hours(
                session,
                engineer,
                course,
                min(day, today),
                chunk,
                today,
                note=study_note(engineer.locale),
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
            proctoring=proctoring(engineer.locale),
        )
    for code, days_ago, expires_in in person.credentials:
        record_credential(
            session,
            engineer,
            credentials[code],
            today - dt.timedelta(days=days_ago),
            today,
            evidence=evidence(code, engineer.id, engineer.locale),
            expires_on=None if expires_in is None else today + dt.timedelta(days=expires_in),
        )
