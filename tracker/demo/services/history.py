"""Plan one generated engineer's history: hour logs, exam attempts and certifications."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from decimal import Decimal

from tracker.catalog.models.credentials import Course, Exam
from tracker.catalog.rules import DECIMAL_PLACES
from tracker.demo.services.bulk import BulkWriter
from tracker.progress.rules import STORED_HOURS_PER_DAY
from tracker.progress.services.validity import add_months, expiry_date, whole_months_between

# Hours of one study session, in hundredths, with weights; the long ones are
# bootcamp days, so that some days come close to the day's limit (HOURS_PER_DAY).
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


def _stored(value: Decimal) -> int:
    """Return an amount as its Fixed column stores it (hundredths), as the bulk writer takes it."""
    return int(value.scaleb(DECIMAL_PLACES))


@dataclass
class _Held:
    """One certification the generator planned, for prerequisite and renewal checks."""

    id: int
    credential_id: int
    earned_on: dt.date
    expires_on: dt.date | None


def plan_history(
    w: BulkWriter,
    rng: random.Random,
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
    bootcamp_note: str,
    proctoring: str,
) -> None:
    """Plan one engineer's hour logs, exam attempts and certifications, keeping every rule."""
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
        # A day holds at most HOURS_PER_DAY: the session is cut to what is left.
        hundredths = min(hundredths, STORED_HOURS_PER_DAY - day_totals.get(offset, 0))
        if hundredths <= 0:
            continue
        day_totals[offset] = day_totals.get(offset, 0) + hundredths
        if course_index < len(courses):
            course = courses[course_index]
            on_course += hundredths
            if on_course >= _stored(course.hours):
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
                "" if hundredths < 800 else bootcamp_note,
                now,
                now,
            ),
        )

    if "hour_days" in w.buffers:
        # The day totals the trigger would keep, when the load has set it aside.
        for offset in sorted(day_totals):
            w.add(
                "hour_days", (engineer_id, hired_on + dt.timedelta(days=offset), day_totals[offset])
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

    def certify(
        credential_id: int,
        earned_on: dt.date,
        expires_on: dt.date | None,
        attempt_id: int | None,
        evidence: str,
    ) -> None:
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
                _stored(exam.list_price) if exam.list_price is not None else None,
                "",
                proctoring,
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
            expires_on = expiry_date(on, exam.validity_months)
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
            expires_on = expiry_date(on, months)
            certify(
                credential_id, on, expires_on, None, f"certificate {code}-{engineer_id}-{number}"
            )
            if expires_on is None or rng.random() >= 0.75:
                break
            on = expires_on - dt.timedelta(days=rng.randint(-60, 60))
