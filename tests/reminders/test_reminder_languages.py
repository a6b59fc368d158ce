"""Reminders and expiry notices in the engineer's language, each manager's copy in theirs."""

from __future__ import annotations

import dataclasses
from decimal import Decimal

import pytest
from icalendar import Calendar
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.reminders.helpers import (
    ANA,
    CREDENTIAL,
    DAY,
    EXPIRES,
    MAIL,
    WINDOWS,
    _assert_in_one_language,
    _event,
    _manager,
    _parts,
    _send,
    days_before,
    holder,
    notices,
    recipients,
    strict,
)
from tracker.demo.services.curated import build_demo
from tracker.i18n import format_day
from tracker.people.models import Engineer
from tracker.progress.models import Certification
from tracker.progress.services.hours import log_hours
from tracker.reminders import jobs
from tracker.reminders.services.composing import compose_notices
from tracker.reminders.services.daily_pass import plan

# What an English notice says, and a Spanish one must not.
ENGLISH = (
    "Hello",
    "Your ",
    "valid through",
    "How to renew",
    "Open the tracker",
    "Pass exam",
    "Plan the exam date",
    "attached",
    "certified GPU",
    "2027-03-01",
    " of 16 h",
)
SPANISH = ("Hola", "válida hasta", "Cómo renovar", "Abrir", "1 mar 2027", "adjunto", " de 16 h")


def _rows(db: Session) -> list[tuple[str, str, str, str]]:
    """Return the notices as (kind, language, to, cc)."""
    return [(n.kind, n.locale, n.to_addrs, n.cc_addrs) for n in notices(db)]


# --- reminders ------------------------------------------------------------------


def test_a_spanish_engineers_reminder_is_spanish_and_the_english_managers_copy_english(
    db, factory, smtp
):
    max_ = _manager(db, "Max Muster", "en")
    ana, cert = holder(db, name=ANA, manager=max_, locale="es")
    course = factories.course(db, "INTRO-AI-INFRA")
    log_hours(db, ana, course, days_before(40), Decimal("1.5"), days_before(40))
    _send(db, factory, smtp, days_before(30))

    reminder, copy = notices(db)
    assert (reminder.dedupe_key, copy.dedupe_key) == (
        f"reminder:{cert.id}:30",
        f"copy:reminder:{cert.id}:30:en",
    )
    assert _rows(db) == [("reminder", "es", ana.email, ""), ("copy", "en", max_.email, "")]
    ids = {reminder.message_id, copy.message_id}
    received = {
        r.rcpt_tos[0]: strict(r.content) for r in smtp.mailbox.received if r.message_id in ids
    }
    assert sorted(received) == sorted([ana.email, max_.email])

    spanish = received[ana.email]
    assert recipients(spanish, "To") == [ana.email] and spanish["Cc"] is None
    assert spanish["Subject"] == "NCA-AIIO válida hasta el 1 mar 2027 inclusive (dentro de 30 días)"
    text, html = _parts(spanish)
    assert text.splitlines()[0] == f"Hola, {ANA}:"
    assert (
        f"La certificación {CREDENTIAL} (NCA-AIIO) es válida hasta el 1 mar 2027 inclusive, "
        "dentro de 30 días." in text
    )
    assert "Aprobar de nuevo el examen NCA-AIIO como muy tarde el 1 mar 2027" in text
    # Hours with the Spanish decimal comma; the vendor's course title as it is.
    assert "Introduction to AI Infrastructure (1,5 de 16 h)" in text
    assert "Tracker, equipos certificados de infraestructura de GPU" in text
    for body in (text, html):
        _assert_in_one_language(body, SPANISH, ENGLISH)
    assert '<html lang="es">' in html
    assert "es válida hasta el <strong>1 mar 2027</strong> inclusive" in html
    event = _event(spanish)
    assert str(event["summary"]) == f"{ANA}: NCA-AIIO válida hasta este día inclusive"
    assert str(event["description"]) == (
        f"La certificación {CREDENTIAL} de {ANA} es válida hasta este día inclusive."
    )

    english = received[max_.email]
    assert recipients(english, "To") == [max_.email] and english["Cc"] is None
    assert english["Subject"] == "NCA-AIIO valid through 2027-03-01 (30 days from today)"
    assert english["Message-ID"] != spanish["Message-ID"]
    text, html = _parts(english)
    assert text.splitlines()[0] == (
        f"A copy of the notice sent to {ANA} ({ana.email}), for their manager."
    )
    assert f"Hello {ANA}," in text
    assert f"Your {CREDENTIAL} (NCA-AIIO) is valid through 2027-03-01, 30 days from today." in text
    assert "Introduction to AI Infrastructure (1.5 of 16 h)" in text
    for body in (text, html):
        _assert_in_one_language(body, ("Hello", "valid through", "2027-03-01"), SPANISH)
    assert '<html lang="en">' in html
    assert str(_event(english)["summary"]) == f"{ANA}: NCA-AIIO valid through this day"


def test_a_notice_names_the_catalog_in_its_readers_language(db):
    """The credential, its issuer and the path's courses as the catalog words them in Spanish."""
    own = _manager(db, "Own boss", "en")
    ana, _ = holder(db, "NVIDIA-NETWORKING", name=ANA, manager=own, locale="es")
    ben, _ = holder(db, "NCA-AIIO", name="Ben", manager=own, locale="es")
    factories.course(db, "INTRO-AI-INFRA").title_es = "Introducción a la infraestructura de IA"
    plan(db, days_before(30), WINDOWS, MAIL)
    mail = {(n.engineer_id, n.locale): n for n in notices(db)}
    networking, copy, associate = mail[ana.id, "es"], mail[ana.id, "en"], mail[ben.id, "es"]
    text, html = networking.body_text or "", networking.body_html
    spanish = "Certificación de redes NVIDIA"
    assert f"La certificación {spanish} (NVIDIA-NETWORKING) es válida hasta el 1 mar 2027" in text
    assert f"La certificación <strong>{spanish}</strong> (NVIDIA-NETWORKING)" in html
    assert f"Renovar {spanish} con NVIDIA y registrar" in text
    assert "NVIDIA networking certification" not in text + html + (networking.ics or "")
    (event,) = Calendar.from_ical(networking.ics).walk("VEVENT")
    assert str(event["description"]) == (
        f"La certificación {spanish} de {ANA} es válida hasta este día inclusive."
    )
    # The English copy keeps the English name.
    assert "Your NVIDIA networking certification (NVIDIA-NETWORKING) is valid through" in (
        copy.body_text or ""
    )
    assert "Introducción a la infraestructura de IA (0 de 16 h)" in (associate.body_text or "")


def test_a_renewal_step_names_an_issuer_the_tracker_words_in_spanish(db):
    holder(db, "VENDOR-EXPERT", locale="es")
    plan(db, days_before(30), WINDOWS, MAIL)
    (notice,) = notices(db)
    assert ("Renovar Credencial de experto específica del proveedor con proveedor de hardware") in (
        notice.body_text or ""
    )


def test_a_name_that_carries_its_code_is_not_followed_by_it_again(db):
    holder(db, "CKA", locale="en")
    plan(db, days_before(30), WINDOWS, MAIL)
    (notice,) = notices(db)
    assert "Your Certified Kubernetes Administrator (CKA) is valid through 2027-03-01" in (
        notice.body_text or ""
    )
    assert "Your <strong>Certified Kubernetes Administrator</strong> (CKA) is valid through" in (
        notice.body_html
    )
    assert "(CKA) (CKA)" not in (notice.body_text or "") + notice.body_html


@pytest.mark.parametrize(
    ("languages", "expected"),
    [
        # (engineer, own manager, team manager): (kind, language, to, cc) of each row.
        (("es", "es", None), [("reminder", "es", "ana", "own")]),
        (("es", "en", None), [("reminder", "es", "ana", ""), ("copy", "en", "own", "")]),
        (("es", "es", "en"), [("reminder", "es", "ana", "own"), ("copy", "en", "team", "")]),
        (("es", "en", "en"), [("reminder", "es", "ana", ""), ("copy", "en", "own, team", "")]),
        (("en", "es", "es"), [("reminder", "en", "ana", ""), ("copy", "es", "own, team", "")]),
        # No setting: the deployment's default (English here).
        (("", "es", ""), [("reminder", "en", "ana", "team"), ("copy", "es", "own", "")]),
        (("es", "", "es"), [("reminder", "es", "ana", "team"), ("copy", "en", "own", "")]),
    ],
)
def test_managers_who_read_the_engineers_language_are_copied_the_others_get_a_copy(
    db, languages, expected
):
    mine, theirs = languages[1], languages[2]
    own = _manager(db, "Own boss", mine)
    lead = _manager(db, "Team lead", theirs or "") if theirs is not None else None
    crew = factories.team(db, gpus=64, manager=lead)
    ana, _ = holder(db, name=ANA, manager=own, team=crew, locale=languages[0])
    addresses = {"ana": ana.email, "own": own.email, "team": lead.email if lead else ""}

    def spelled(listed: str) -> str:
        return ", ".join(addresses[a] for a in listed.split(", ")) if listed else ""

    # Before the copy window: the engineer's reminder only, in their language.
    plan(db, days_before(60), WINDOWS, MAIL, compose=False)
    assert _rows(db) == [("reminder", expected[0][1], ana.email, "")]
    plan(db, days_before(30), WINDOWS, MAIL, compose=False)
    assert _rows(db)[1:] == [(k, lang, spelled(to), spelled(cc)) for k, lang, to, cc in expected]


def test_a_copy_is_queued_once_like_its_notice(db):
    """A second pass the same day, or the next, queues no copy again; the next window does."""
    own = _manager(db, "Own boss", "en")
    _, cert = holder(db, manager=own, locale="es")
    for day in (days_before(30), days_before(30), days_before(29)):
        plan(db, day, WINDOWS, MAIL, compose=False)
    assert [n.dedupe_key for n in notices(db)] == [
        f"reminder:{cert.id}:30",
        f"copy:reminder:{cert.id}:30:en",
    ]
    plan(db, days_before(7), WINDOWS, MAIL, compose=False)
    plan(db, EXPIRES + DAY, WINDOWS, MAIL, compose=False)
    assert [n.dedupe_key for n in notices(db)][2:] == [
        f"reminder:{cert.id}:7",
        f"copy:reminder:{cert.id}:7:en",
        f"expired:{cert.id}:-1",
        f"copy:expired:{cert.id}:-1:en",
    ]


def test_the_expiry_notice_and_its_copy_each_say_expired_in_their_language(db):
    own = _manager(db, "Own boss", "en")
    holder(db, name=ANA, manager=own, locale="es")
    plan(db, EXPIRES + DAY, WINDOWS, MAIL)
    notice, copy = notices(db)
    assert notice.subject == "NCA-AIIO válida hasta el 1 mar 2027 inclusive (caducada)"
    assert "era válida hasta el 1 mar 2027 inclusive. Ya no cuenta para la preparación" in (
        notice.body_text or ""
    )
    assert "<strong>era válida hasta el 1 mar 2027 inclusive</strong>" in notice.body_html
    assert copy.subject == "NCA-AIIO valid through 2027-03-01 (lapsed)"
    assert "was valid through 2027-03-01. It no longer counts" in (copy.body_text or "")
    # Past its date, the step to renew no longer says "before" it.
    assert "Aprobar de nuevo el examen NCA-AIIO; la nueva" in (notice.body_text or "")
    assert "Pass exam NCA-AIIO again; the new certification" in (copy.body_text or "")
    assert "again by" not in (copy.body_text or "")


def test_composing_after_the_pass_writes_the_subject_in_the_notices_language(db):
    """The scheduler's pass writes the English subject in SQL; composing writes the reader's."""
    holder(db, locale="es")
    plan(db, days_before(30), WINDOWS, MAIL, compose=False)
    (row,) = notices(db)
    assert (row.locale, row.subject, row.body_text) == (
        "es",
        f"NCA-AIIO valid through {EXPIRES.isoformat()} (30 days from today)",
        None,
    )
    compose_notices(db, [row], MAIL)
    assert row.subject == "NCA-AIIO válida hasta el 1 mar 2027 inclusive (dentro de 30 días)"
    assert (row.body_text or "").startswith("Hola, ")


def test_one_day_left_is_singular_in_spanish(db):
    holder(db, locale="es")
    plan(db, days_before(1), WINDOWS, MAIL)
    (row,) = notices(db)
    assert row.subject == "NCA-AIIO válida hasta el 1 mar 2027 inclusive (dentro de 1 día)"
    assert "dentro de 1 día." in (row.body_text or "")


def test_no_setting_means_the_deployments_default_language(app, db, monkeypatch):
    holder(db, locale="")
    plan(db, days_before(30), WINDOWS, dataclasses.replace(MAIL, locale="es"))
    (row,) = notices(db)
    assert row.locale == "es" and row.subject.startswith("NCA-AIIO válida hasta")
    monkeypatch.setitem(app.config, "DEFAULT_LOCALE", "es")
    assert jobs.mail_settings(app).locale == "es"


# --- the demo organisation ------------------------------------------------------------


def test_a_spanish_engineer_of_the_demo_gets_a_spanish_reminder_and_their_manager_an_english_copy(
    db, factory, smtp
):
    build_demo(db, factories.TODAY, secret_key=factories.SECRET_KEY)
    cert = db.scalars(
        select(Certification)
        .join(Certification.engineer)
        .where(
            Engineer.access_role == "engineer",
            Engineer.manager_id.is_not(None),
            Certification.expires_on > factories.TODAY + 30 * DAY,
            Certification.renewed_by == None,  # noqa: E711
        )
        .order_by(Certification.expires_on, Certification.id)
    ).first()
    assert cert is not None and cert.expires_on is not None and cert.engineer.manager is not None
    engineer, manager = cert.engineer, cert.engineer.manager
    engineer.locale, manager.locale = "es", "en"
    db.flush()
    _send(db, factory, smtp, cert.expires_on - 30 * DAY)

    mine = [n for n in notices(db) if n.certification_id == cert.id and "reminder" in n.dedupe_key]
    assert [(n.kind, n.locale) for n in mine] == [("reminder", "es"), ("copy", "en")]
    reminder, copy = (
        strict(r.content)
        for n in mine
        for r in smtp.mailbox.received
        if r.message_id == n.message_id
    )
    assert recipients(reminder, "To") == [engineer.email]
    assert manager.email not in recipients(reminder, "Cc")
    assert reminder["Subject"].startswith(f"{cert.credential.code} válida hasta el ")
    text, html = _parts(reminder)
    day = format_day(cert.expires_on, "es")
    assert (
        f"es válida hasta el {day} inclusive, dentro de 30 días." in text
        and f"<strong>{day}</strong>" in html
    )
    for body in (text, html):
        _assert_in_one_language(body, ("Hola", "Cómo renovar", "adjunto"), ENGLISH[:10])
    assert str(_event(reminder)["summary"]) == (
        f"{engineer.name}: {cert.credential.code} válida hasta este día inclusive"
    )
    assert recipients(copy, "To") == [manager.email]
    assert copy["Subject"] == (
        f"{cert.credential.code} valid through {cert.expires_on.isoformat()} (30 days from today)"
    )
    text, _ = _parts(copy)
    assert f"Hello {engineer.name}," in text and "Hola" not in text
