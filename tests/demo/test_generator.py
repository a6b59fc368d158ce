"""The synthetic organisation generator: sizes, bands and every rule."""

from __future__ import annotations

import datetime as dt
import itertools
from collections import Counter, defaultdict
from decimal import Decimal

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from tests.factories import KEYS, SECRET_KEY, TODAY
from tests.helpers import count, sign_in
from tracker.catalog.models.credentials import Credential, Exam
from tracker.demo.services.common import DEMO_ADMIN_TOTP_SECRET, DEMO_PASSWORD
from tracker.demo.services.generator import generate_organisation
from tracker.errors import ValidationError
from tracker.people.models import Engineer, JobRoleAssignment, Team
from tracker.people.services.totp import decrypt_secret, is_plain
from tracker.progress.models import Certification, ExamAttempt, HourDay, HourLog
from tracker.progress.services.paths import prerequisite_gaps
from tracker.progress.services.validity import (
    Status,
    add_months,
    experience_months,
    newest_per_credential,
    status_on,
)
from tracker.readiness.services.matching import choose_template
from tracker.readiness.services.members import load_templates


@pytest.fixture
def org(db: Session):
    """A generated organisation of 120 engineers (rolled back after the test)."""
    return generate_organisation(db, 120, TODAY, seed=4, secret_key=SECRET_KEY)


def test_rows_per_table_are_in_the_expected_ranges(db, org):
    members = db.scalar(
        select(func.count()).select_from(Engineer).where(Engineer.access_role == "engineer")
    )
    teams = count(db, Team)
    assert members == 120
    assert 3 <= teams <= 15
    # One to three teams per manager, and one admin.
    managers = db.scalar(select(func.count()).where(Engineer.access_role == "manager"))
    assert teams / 3 <= managers <= teams
    assert org.rows["engineers"] == members + managers + 1
    # About 100 hour logs and about 5 certifications per engineer.
    assert 80 * 120 <= count(db, HourLog) <= 120 * 120
    assert 3 * 120 <= count(db, Certification) <= 7 * 120
    assert count(db, ExamAttempt) >= 120
    assert org.rows["hour_logs"] == count(db, HourLog)
    assert org.admin_email == "admin@org4.example.com"
    passed = {p for (p,) in db.execute(select(ExamAttempt.passed).distinct())}
    assert passed == {True, False}


def test_the_admins_known_app_secret_is_stored_encrypted(db, org):
    stored = db.scalar(select(Engineer.totp_secret).where(Engineer.email == org.admin_email))
    assert DEMO_ADMIN_TOTP_SECRET not in stored and not is_plain(stored)
    assert decrypt_secret(stored, KEYS) == DEMO_ADMIN_TOTP_SECRET
    # Nobody else has an app set up.
    assert db.scalar(select(func.count()).where(Engineer.totp_secret.is_not(None))) == 1


def test_teams_have_8_to_40_people_and_every_band_appears(db):
    generate_organisation(db, 400, TODAY, seed=2, secret_key=SECRET_KEY)
    sizes = db.execute(
        select(Team.gpus, func.count(Engineer.id))
        .join(Engineer, Engineer.team_id == Team.id)
        .where(Engineer.access_role == "engineer")
        .group_by(Team.id, Team.gpus)
    ).all()
    assert sum(n for _, n in sizes) == 400
    assert all(8 <= n <= 40 for _, n in sizes)
    templates = load_templates(db)
    assert {choose_template(templates, gpus).code for gpus, _ in sizes} == {
        "small",
        "medium",
        "large",
    }
    # Every team has a manager, and its members report to them.
    assert db.scalar(select(func.count()).where(Team.manager_id.is_(None))) == 0
    stray = db.scalar(
        select(func.count())
        .select_from(Engineer)
        .join(Team, Team.id == Engineer.team_id)
        .where(Engineer.manager_id != Team.manager_id)
    )
    assert stray == 0


def test_every_member_holds_a_job_role_and_a_level(db, org):
    open_roles = defaultdict(set)
    for engineer_id, role in db.execute(
        select(JobRoleAssignment.engineer_id, JobRoleAssignment.job_role_id).where(
            JobRoleAssignment.ended_on.is_(None)
        )
    ):
        open_roles[engineer_id].add(role)
    people = db.scalars(select(Engineer).where(Engineer.access_role == "engineer")).all()
    assert all(open_roles[e.id] for e in people)
    assert {e.level for e in people} == {1, 2, 3, 4, 5}
    # Some have rotated: an assignment that ended.
    assert db.scalar(select(func.count()).where(JobRoleAssignment.ended_on.is_not(None))) > 0


def test_no_day_holds_more_than_24_hours(db, org):
    over = db.execute(
        select(HourLog.engineer_id, HourLog.logged_on)
        .group_by(HourLog.engineer_id, HourLog.logged_on)
        .having(func.sum(HourLog.hours) > 24)
    ).all()
    assert over == []
    # Some days come close: bootcamp days.
    full = db.execute(
        select(HourLog.engineer_id, HourLog.logged_on)
        .group_by(HourLog.engineer_id, HourLog.logged_on)
        .having(func.sum(HourLog.hours) >= 12)
    ).all()
    assert full


def test_hours_fall_between_the_hire_date_and_today(db, org):
    early_or_late = db.scalar(
        select(func.count())
        .select_from(HourLog)
        .join(Engineer, Engineer.id == HourLog.engineer_id)
        .where((HourLog.logged_on < Engineer.hired_on) | (HourLog.logged_on > TODAY))
    )
    assert early_or_late == 0
    hours = db.scalars(select(HourLog.hours)).all()
    assert all(0 < h <= 24 for h in hours)


def test_an_exam_certification_expires_24_months_after_the_pass(db, org):
    certs = db.execute(
        select(Certification, ExamAttempt)
        .join(ExamAttempt, ExamAttempt.id == Certification.attempt_id)
        .join(Exam, Exam.id == ExamAttempt.exam_id)
    ).all()
    assert certs
    for cert, attempt in certs:
        assert attempt.passed
        assert cert.earned_on == attempt.attempted_on
        assert cert.expires_on == add_months(cert.earned_on, 24)
        assert cert.engineer_id == attempt.engineer_id
    # A certification per pass, none for a failure.
    passes = db.scalar(select(func.count()).where(ExamAttempt.passed.is_(True)))
    assert passes == len(certs)
    # Credentials earned elsewhere carry their evidence and a sane expiry.
    for cert in db.scalars(select(Certification).where(Certification.attempt_id.is_(None))):
        assert cert.evidence
        assert cert.expires_on is None or cert.expires_on >= cert.earned_on
        assert cert.earned_on <= TODAY


def test_renewals_form_one_chain_per_engineer_and_credential(db, org):
    chains = defaultdict(list)
    for cert in db.scalars(select(Certification)):
        chains[(cert.engineer_id, cert.credential_id)].append(cert)
    renewed = 0
    for chain in chains.values():
        chain.sort(key=lambda c: (c.earned_on, c.id))
        assert chain[0].renews_id is None
        for before, after in itertools.pairwise(chain):
            assert after.renews_id == before.id
            renewed += 1
    assert renewed > 50


def test_attempts_keep_the_prerequisite_experience_and_retake_rules(db, org):
    """NCP-AII only with a valid NCA-AIIO and 12 months of experience on the attempt date."""
    exams = {e.id: e for e in db.scalars(select(Exam))}
    professional = next(e for e in exams.values() if e.code == "NCP-AII")
    associate = db.scalar(select(Credential.id).where(Credential.code == "NCA-AIIO"))
    engineers = {e.id: e for e in db.scalars(select(Engineer))}
    certs = defaultdict(list)
    for cert in db.scalars(select(Certification)):
        certs[cert.engineer_id].append(cert)
    attempts = db.scalars(
        select(ExamAttempt).order_by(ExamAttempt.engineer_id, ExamAttempt.attempted_on)
    ).all()
    checked = 0
    last_failure: dict[tuple[int, int], dt.date] = {}
    for attempt in attempts:
        who = engineers[attempt.engineer_id]
        exam = exams[attempt.exam_id]
        on = attempt.attempted_on
        assert who.hired_on <= on <= TODAY
        assert prerequisite_gaps(exam, certs[who.id], experience_months(who, on), on) == [], (
            f"{exam.code} on {on} by engineer {who.id}"
        )
        if exam.id == professional.id:
            checked += 1
            assert experience_months(who, on) >= 12
            assert any(
                c.credential_id == associate and c.earned_on <= on <= c.expires_on
                for c in certs[who.id]
            )
        failed_on = last_failure.get((who.id, exam.id))
        if failed_on is not None:
            assert on >= failed_on + dt.timedelta(days=exam.retake_wait_days)
        if not attempt.passed:
            last_failure[(who.id, exam.id)] = on
    assert checked > 10


def test_certifications_are_valid_expiring_and_expired_today(db, org):
    states = set()
    for engineer_id in db.scalars(select(Engineer.id)):
        certs = db.scalars(select(Certification).where(Certification.engineer_id == engineer_id))
        states |= {status_on(c, TODAY) for c in newest_per_credential(certs).values()}
    assert {Status.VALID, Status.EXPIRING, Status.EXPIRED} <= states


def test_the_same_seed_builds_the_same_organisation(db):
    def snapshot(seed: int):
        savepoint = db.begin_nested()
        generate_organisation(db, 40, TODAY, seed=seed, secret_key=SECRET_KEY)
        rows = (
            db.execute(
                select(
                    Engineer.id, Engineer.name, Engineer.email, Engineer.level, Engineer.hired_on
                )
            ).all(),
            db.execute(select(Team.id, Team.name, Team.gpus, Team.manager_id)).all(),
            db.execute(
                select(HourLog.engineer_id, HourLog.course_id, HourLog.logged_on, HourLog.hours)
            ).all(),
            db.execute(
                select(
                    Certification.engineer_id,
                    Certification.credential_id,
                    Certification.earned_on,
                    Certification.expires_on,
                    Certification.renews_id,
                )
            ).all(),
        )
        savepoint.rollback()
        return [sorted(r) for r in rows]

    first = snapshot(7)
    assert snapshot(7) == first
    assert snapshot(8) != first


def test_people_read_spanish_english_or_their_browsers_language(db, org):
    locales = dict(db.execute(select(Engineer.email, Engineer.locale)).all())
    assert locales.pop(org.admin_email) == ""
    spread = Counter(locales.values())
    assert set(spread) == {"es", "en", ""}
    assert all(n >= len(locales) // 8 for n in spread.values()), spread


def test_the_same_seed_gives_the_same_languages(db):
    def languages(seed: int) -> list[tuple[str, str]]:
        savepoint = db.begin_nested()
        generate_organisation(db, 30, TODAY, seed=seed, secret_key=SECRET_KEY)
        found = db.execute(select(Engineer.email, Engineer.locale).order_by(Engineer.id)).all()
        savepoint.rollback()
        return [tuple(row) for row in found]

    first = languages(12)
    assert languages(12) == first
    assert [locale for _, locale in languages(13)] != [locale for _, locale in first]


def test_a_seed_is_generated_once(db):
    generate_organisation(db, 10, TODAY, seed=6, secret_key=SECRET_KEY)
    with pytest.raises(ValidationError) as refused:
        generate_organisation(db, 10, TODAY, seed=6, secret_key=SECRET_KEY)
    assert "seed 6" in refused.value.errors["seed"]


@pytest.mark.parametrize("engineers", [0, -5])
def test_an_organisation_needs_people(db, engineers):
    with pytest.raises(ValidationError):
        generate_organisation(db, engineers, TODAY, secret_key=SECRET_KEY)


def test_the_generated_people_sign_in_and_the_pages_answer(client, db, pinned_today):
    result = generate_organisation(db, 30, TODAY, seed=11, secret_key=SECRET_KEY)
    sign_in(client, result.admin_email, DEMO_PASSWORD)
    assert client.get("/organisation").status_code == 200
    team_id = db.scalar(select(func.min(Team.id)))
    page = client.get(f"/teams/{team_id}")
    assert page.status_code == 200 and "Heat map" in page.text
    client.post("/logout")
    member = db.scalar(select(Engineer).where(Engineer.access_role == "engineer").limit(1))
    sign_in(client, member, DEMO_PASSWORD)
    assert client.get("/dashboard").status_code == 200


def test_the_demo_command_generates_an_organisation(runner, db):
    result = runner.invoke(args=["demo", "--engineers", "25", "--seed", "9", "--years", "2"])
    assert result.exit_code == 0, result.output
    assert "generated" in result.output and "admin@org9.example.com" in result.output
    assert DEMO_ADMIN_TOTP_SECRET in result.output  # the admin's app secret
    assert (
        db.scalar(
            select(func.count()).where(
                Engineer.email.like("%@org9.example.com"), Engineer.access_role == "engineer"
            )
        )
        == 25
    )
    # Two years of history: nobody hired earlier.
    earliest = db.scalar(
        select(func.min(Engineer.hired_on)).where(Engineer.access_role == "engineer")
    )
    assert earliest >= TODAY - dt.timedelta(days=2 * 365)
    again = runner.invoke(args=["demo", "--engineers", "25", "--seed", "9"])
    assert again.exit_code != 0 and "seed 9" in again.output


def test_the_bulk_load_leaves_hour_days_and_their_keeper_as_the_services_find_them(db, org):
    """hour_days holds each engineer's total per day; the trigger and the foreign keys
    the load set aside on PostgreSQL are back, and keep the next entry's day."""
    logged = {
        (e, d): h
        for e, d, h in db.execute(
            select(HourLog.engineer_id, HourLog.logged_on, func.sum(HourLog.hours)).group_by(
                HourLog.engineer_id, HourLog.logged_on
            )
        )
    }
    kept = {
        (e, d): h
        for e, d, h in db.execute(select(HourDay.engineer_id, HourDay.logged_on, HourDay.hours))
    }
    assert kept == logged and len(kept) > 1000
    if db.get_bind().dialect.name == "postgresql":
        keys = db.scalar(
            text(
                "SELECT count(*) FROM pg_constraint "
                "WHERE conrelid = 'hour_logs'::regclass AND contype = 'f'"
            )
        )
        enabled = db.scalar(
            text("SELECT tgenabled FROM pg_trigger WHERE tgname = 'hour_logs_keep_days'")
        )
        assert (keys, enabled) == (2, "O")
    entry = db.scalars(select(HourLog).order_by(HourLog.id).limit(1)).one()
    db.add(
        HourLog(
            engineer_id=entry.engineer_id,
            course_id=entry.course_id,
            logged_on=entry.logged_on,
            hours=Decimal("0.25"),
        )
    )
    db.flush()
    day = db.get(HourDay, (entry.engineer_id, entry.logged_on))
    db.refresh(day)
    assert day.hours == logged[(entry.engineer_id, entry.logged_on)] + Decimal("0.25")
