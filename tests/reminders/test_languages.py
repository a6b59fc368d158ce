"""Mail in its recipients' language: each notice in the engineer's, a copy in a manager's.

"Mail goes out in the recipient's language: a reminder in the engineer's, the
copy to the manager in the manager's; the weekly digest in the manager's."
Messages are delivered over real SMTP and read back with the strict parser.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from decimal import Decimal

import pytest
from icalendar import Calendar
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests import factories
from tests.reminders.conftest import SmtpServer
from tests.reminders.helpers import (
    DAY,
    EXPIRES,
    MAIL,
    WINDOWS,
    days_before,
    holder,
    html_text,
    outbox,
    recipients,
    squeeze,
    strict,
    text_links,
)
from tracker.demo.services.curated import build_demo
from tracker.i18n import format_day
from tracker.people.models import Engineer, Team
from tracker.progress.models import Certification
from tracker.progress.services.hours import log_hours
from tracker.reminders import calendars, jobs
from tracker.reminders.models import Notification
from tracker.reminders.services.composing import compose_notices
from tracker.reminders.services.daily_pass import plan
from tracker.reminders.services.delivery import deliver
from tracker.reminders.services.queueing import Mail

ANA = "Ana Álvarez"
CREDENTIAL = "NVIDIA Certified Associate - AI Infrastructure and Operations"
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


@pytest.fixture
def factory(app, db):
    """The app's session factory, bound to the test's connection (savepoints)."""
    return app.extensions["tracker.sessions"]


def _send(db: Session, factory, smtp: SmtpServer, day: dt.date, mail: Mail = MAIL) -> None:
    plan(db, day, WINDOWS, mail)
    db.flush()
    deliver(factory, smtp.settings, dt.datetime.combine(day, dt.time(8, 30)))


def _manager(db: Session, name: str, locale: str) -> Engineer:
    return factories.engineer(db, name=name, access_role="manager", locale=locale)


def notices(db: Session) -> list[Notification]:
    """Return the outbox but the digests: each notice, its copies after it, by window."""
    found = [n for n in outbox(db) if n.kind != "digest"]
    return sorted(found, key=lambda n: (n.created_at, n.kind == "copy", n.dedupe_key))


def _rows(db: Session) -> list[tuple[str, str, str, str]]:
    """Return the notices as (kind, language, to, cc)."""
    return [(n.kind, n.locale, n.to_addrs, n.cc_addrs) for n in notices(db)]


def _parts(message) -> tuple[str, str]:
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    return text, html


def _event(message):
    (attachment,) = list(message.iter_attachments())
    # As a mail reader decodes it: by the charset its part declares.
    (event,) = Calendar.from_ical(attachment.get_content()).walk("VEVENT")
    return event


def _assert_in_one_language(text: str, said: tuple[str, ...], unsaid: tuple[str, ...]) -> None:
    for phrase in said:
        assert phrase in text, phrase
    for phrase in unsaid:
        assert phrase not in text, phrase


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


# --- escalations ------------------------------------------------------------------


def _escalation_scene(db: Session, own_locale: str, team_locale: str):
    own = _manager(db, "Zoë Ångström", own_locale)
    lead = _manager(db, "Bea Boss", team_locale)
    # The small template's two operations seats: the lapse leaves one no one can fill.
    crew = factories.team(db, gpus=64, manager=lead, name="R&D")
    ana, cert = holder(
        db, name=ANA, team=crew, manager=own, level=2, job_roles=("operations",), locale="es"
    )
    return ana, cert, own, lead


def test_an_escalation_goes_out_once_per_language_among_its_managers(db, factory, smtp):
    ana, cert, own, lead = _escalation_scene(db, "es", "en")
    _send(db, factory, smtp, days_before(90))
    escalations = [n for n in notices(db) if "escalation" in n.dedupe_key]
    assert [(n.dedupe_key, n.kind, n.locale, n.to_addrs, n.cc_addrs) for n in escalations] == [
        (f"escalation:{cert.id}", "escalation", "es", own.email, ana.email),
        (f"copy:escalation:{cert.id}:en", "copy", "en", lead.email, ""),
    ]
    received = {
        r.rcpt_tos[0]: strict(r.content)
        for r in smtp.mailbox.received
        if r.subject.startswith(("Escalado", "Escalation"))
    }
    spanish = received[own.email]
    assert recipients(spanish, "Cc") == [ana.email]
    assert spanish["Subject"] == (
        f"Escalado: NCA-AIIO de {ANA} es válida hasta el 1 mar 2027 inclusive; después, la "
        "preparación baja"
    )
    text, html = _parts(spanish)
    assert text.splitlines()[0] == "Hola, Zoë Ångström:"
    assert f"Escalado: la certificación {CREDENTIAL} (NCA-AIIO) de {ANA} es válida hasta" in text
    # The kept readiness impact, read back and said in Spanish.
    assert "la preparación de R&amp;D baja: puestos que nadie más puede cubrir: 1" in html
    assert "(0/4 en lugar de 1/4)" in text
    assert f"Abrir las certificaciones de {ANA} en el tracker" in text
    _assert_in_one_language(text, ("Escalado",), ("Escalation", "seats no one", "readiness"))
    assert str(_event(spanish)["summary"]) == f"{ANA}: NCA-AIIO válida hasta este día inclusive"

    english = received[lead.email]
    assert english["Cc"] is None
    assert english["Subject"] == (
        f"Escalation: {ANA}'s NCA-AIIO is valid through 2027-03-01, then readiness drops"
    )
    text, _ = _parts(english)
    assert text.splitlines()[0] == "Hello Bea Boss,"
    assert "seats no one else can fill: 1 (0/4 instead of 1/4)" in text
    _assert_in_one_language(text, ("Escalation",), ("Escalado", "puesto", "1 mar 2027"))
    # Escalated once, in each language.
    plan(db, days_before(89), WINDOWS, MAIL)
    plan(db, days_before(60), WINDOWS, MAIL)
    assert [n for n in notices(db) if "escalation" in n.dedupe_key] == escalations


def test_an_escalation_queued_by_the_scheduler_is_mailed_in_its_readers_language(db, factory, smtp):
    """Queued uncomposed (an English subject meanwhile), nothing goes before it is composed."""
    _, cert, own, lead = _escalation_scene(db, "es", "en")
    day = days_before(90)
    plan(db, day, WINDOWS, MAIL, keep=False, compose=False)
    db.flush()
    now = dt.datetime.combine(day, dt.time(8, 30))
    deliver(factory, smtp.settings, now)
    escalations = ("Escalado", "Escalation")
    assert not [r for r in smtp.mailbox.received if r.subject.startswith(escalations)]

    jobs.compose_pending(factory, MAIL)
    deliver(factory, smtp.settings, now)

    subjects = {
        r.rcpt_tos[0]: r.subject for r in smtp.mailbox.received if r.subject.startswith(escalations)
    }
    assert subjects == {
        own.email: f"Escalado: NCA-AIIO de {ANA} es válida hasta el 1 mar 2027 inclusive;"
        " después, la preparación baja",
        lead.email: f"Escalation: {ANA}'s NCA-AIIO is valid through 2027-03-01,"
        " then readiness drops",
    }
    assert [n.certification_id for n in notices(db) if n.kind == "escalation"] == [cert.id]


def test_an_escalation_whose_managers_all_read_another_language(db):
    """The engineer, copied on an escalation, gets it in their language, addressed to them alone."""
    ana, _, own, lead = _escalation_scene(db, "en", "en")
    plan(db, days_before(90), WINDOWS, MAIL)
    escalation, copy = [n for n in notices(db) if "escalation" in n.dedupe_key]
    assert (escalation.locale, escalation.to_addrs, escalation.cc_addrs) == ("es", ana.email, "")
    text = escalation.body_text or ""
    assert text.startswith(f"Hola, {ANA}:")
    # Spoken to, not about: her own certification is "tu certificación", not "de Ana".
    assert escalation.subject == (
        "Escalado: tu NCA-AIIO es válida hasta el 1 mar 2027 inclusive; después, la "
        "preparación baja"
    )
    assert f"Escalado: tu certificación {CREDENTIAL} (NCA-AIIO) es válida hasta el" in text
    assert "<strong>Escalado:</strong> tu certificación <strong>" in escalation.body_html
    assert "Abrir tus certificaciones en el tracker" in text
    for said in (escalation.subject, text, escalation.body_html):
        assert f"de {ANA}" not in said, said
    assert (copy.kind, copy.locale, copy.to_addrs, copy.cc_addrs) == (
        "copy",
        "en",
        f"{own.email}, {lead.email}",
        "",
    )
    assert (copy.body_text or "").startswith("Hello Zoë Ångström and Bea Boss,")
    # The managers' copy still says whose it is.
    assert copy.subject == (
        f"Escalation: {ANA}'s NCA-AIIO is valid through 2027-03-01, then readiness drops"
    )
    assert f"Open {ANA}'s certifications in the tracker" in (copy.body_text or "")


def test_an_english_escalation_to_its_engineer_alone_says_your(db):
    """The same in English: the engineer's managers read Spanish, the engineer English."""
    own = _manager(db, "Zoë Ångström", "es")
    lead = _manager(db, "Bea Boss", "es")
    crew = factories.team(db, gpus=64, manager=lead, name="R&D")
    ines, _ = holder(
        db, name="Ines Costa", team=crew, manager=own, level=2, job_roles=("operations",)
    )
    ines.locale = "en"
    plan(db, days_before(90), WINDOWS, MAIL)
    escalation, copy = [n for n in notices(db) if "escalation" in n.dedupe_key]
    assert (escalation.locale, escalation.to_addrs) == ("en", ines.email)
    assert escalation.subject == (
        "Escalation: your NCA-AIIO is valid through 2027-03-01, then readiness drops"
    )
    text = escalation.body_text or ""
    assert text.startswith("Hello Ines Costa,")
    assert f"Escalation: your {CREDENTIAL} (NCA-AIIO) is valid through 2027-03-01" in text
    assert "<strong>Escalation:</strong> your <strong>" in escalation.body_html
    assert "Open your certifications in the tracker" in text
    for said in (escalation.subject, text, escalation.body_html):
        assert "Ines Costa's" not in said, said
    assert (copy.locale, copy.subject) == (
        "es",
        "Escalado: NCA-AIIO de Ines Costa es válida hasta el 1 mar 2027 inclusive; después, "
        "la preparación baja",
    )


# --- digests --------------------------------------------------------------------


def test_the_weekly_digest_is_in_each_managers_language(db):
    zoe = _manager(db, "Zoë Ångström", "es")
    max_ = _manager(db, "Max Muster", "")
    crew = factories.team(db, gpus=64, manager=zoe)
    ana, _ = holder(db, name=ANA, team=crew, manager=max_, level=2, job_roles=("operations",))
    factories.certification(db, ana, "CKA", days_before(200), EXPIRES - 10 * DAY)
    plan(db, days_before(90), WINDOWS, MAIL)
    digests = {n.to_addrs: n for n in outbox(db, "digest")}

    spanish = digests[zoe.email]
    assert spanish.locale == "es"
    assert spanish.subject == "Resumen semanal: 2 certificaciones vencen en los próximos 90 días"
    text = spanish.body_text or ""
    assert text.splitlines()[0] == "Hola, Zoë Ångström:"
    assert (
        "Certificaciones de las personas a tu cargo cuyo último día de validez cae en los "
        "próximos 90 días "
    ) in text
    assert "(a 1 dic 2026):" in text
    assert f"- 1 mar 2027 {ANA} <" in text and ">: NCA-AIIO (90 días) — efecto en la" in text
    assert "preparación: puestos que nadie más puede cubrir: 1 (0/4 en lugar de 1/4)" in text
    assert "CKA (80 días)" in text and "19 feb 2027" in text
    assert '<html lang="es">' in spanish.body_html and "Abrir el tracker" in spanish.body_html
    for body in (text, spanish.body_html):
        _assert_in_one_language(body, (), ("Hello", "Weekly", "days", "impact", "2027-03-01"))

    english = digests[max_.email]
    assert english.locale == "en"
    assert english.subject == "Weekly digest: 2 certifications expiring within 90 days"
    assert "Hello Max Muster," in (english.body_text or "")
    assert "- 2027-03-01" in (english.body_text or "")


def test_a_single_certification_digest_is_singular_in_spanish(db):
    zoe = _manager(db, "Zoë Ångström", "es")
    holder(db, manager=zoe)
    plan(db, days_before(90), WINDOWS, MAIL)
    (digest,) = outbox(db, "digest")
    assert digest.subject == "Resumen semanal: 1 certificación vence en los próximos 90 días"


# --- the mail standards, in Spanish ---------------------------------------------------


KINDS = {
    "reminder": (days_before(90), lambda n: n.kind == "reminder"),
    "manager copy": (days_before(30), lambda n: n.kind == "copy"),
    "expiry notice": (EXPIRES + DAY, lambda n: n.kind == "expired"),
    "escalation": (days_before(90), lambda n: n.kind == "escalation"),
    "escalation copy": (days_before(90), lambda n: n.kind == "copy"),
    "digest": (days_before(90), lambda n: n.kind == "digest"),
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_every_kind_of_spanish_notice_meets_the_mail_standards(kind, db, factory, smtp):
    """As test_mail_standards, in Spanish: headers, the parts say the same, the attachment,
    the greeting; the copies here are Spanish for Spanish managers of an English engineer."""
    spanish_engineer = kind not in ("manager copy", "escalation copy")
    own = _manager(db, "Zoë Ångström", "es")
    lead = _manager(db, "Bea <Boss> & Co", "es")
    crew = factories.team(db, gpus=64, manager=lead, name="R&D <Ops>")
    holder(
        db,
        name=ANA,
        team=crew,
        manager=own,
        level=2,
        job_roles=("operations",),
        locale="es" if spanish_engineer else "en",
    )
    day, picked = KINDS[kind]
    _send(db, factory, smtp, day)
    rows = {n.message_id: n for n in outbox(db) if picked(n)}
    received = [r for r in smtp.mailbox.received if r.message_id in rows]
    assert received and len(received) == len(rows), kind
    names = {own.email: own.name, lead.email: lead.name}

    for delivery in received:
        message = strict(delivery.content)
        row = rows[str(message["Message-ID"])]
        assert row.locale == "es"
        for name in ("Date", "Message-ID", "From", "To", "Subject"):
            assert message[name] is not None, f"{kind}: no {name}"
        assert message["Subject"] == row.subject
        to, cc = recipients(message, "To"), recipients(message, "Cc")
        assert delivery.rcpt_tos == to + cc

        text, html = _parts(message)
        said, html_links = html_text(html)
        assert squeeze(text) == said, kind
        assert text_links(text) == html_links and html_links
        attachments = list(message.iter_attachments())
        assert bool(attachments) == ("adjunto" in text), kind
        for attachment in attachments:
            Calendar.from_ical(attachment.get_payload(decode=True))

        lines = text.splitlines()
        if row.kind == "copy" and "reminder" in row.dedupe_key:
            assert lines[0].startswith(f"Copia del aviso enviado a {ANA} (")
            assert lines[2] == f"Hola, {ANA}:"
        else:
            assert lines[0].startswith("Hola, ") and lines[0].endswith(":")
            for address in to:
                assert names.get(address, ANA) in lines[0], (kind, lines[0])
        _assert_in_one_language(text, ("Hola", "Tracker, equipos"), ("Hello", "Tracker, certified"))


# --- calendar feeds -------------------------------------------------------------------


def _feed_scene(db: Session, engineer_locale: str, manager_locale: str) -> tuple[Engineer, Team]:
    zoe = _manager(db, "Zoë Ångström", manager_locale)
    crew = factories.team(db, gpus=64, manager=zoe, name="R&D")
    ana, _ = holder(db, name=ANA, team=crew, locale=engineer_locale)
    return ana, crew


def test_an_engineers_feed_is_in_their_language(db):
    ana, _ = _feed_scene(db, "es", "en")
    calendar = Calendar.from_ical(calendars.engineer_feed(db, ana))
    assert str(calendar["x-wr-calname"]) == f"Vencimientos de certificaciones · {ANA}"
    (event,) = calendar.walk("VEVENT")
    assert str(event["summary"]) == f"{ANA}: NCA-AIIO válida hasta este día inclusive"
    assert str(event["description"]) == (
        f"La certificación {CREDENTIAL} de {ANA} es válida hasta este día inclusive."
    )


def test_a_teams_feed_is_in_its_managers_language(db):
    _, crew = _feed_scene(db, "en", "es")
    calendar = Calendar.from_ical(calendars.team_feed(db, crew))
    assert str(calendar["x-wr-calname"]) == "Vencimientos de certificaciones · R&D"
    (event,) = calendar.walk("VEVENT")
    assert str(event["summary"]) == f"{ANA}: NCA-AIIO válida hasta este día inclusive"
    english = Calendar.from_ical(calendars.team_feed(db, factories.team(db, name="Ops")))
    assert str(english["x-wr-calname"]) == "Certification expiries · Ops"


def test_a_teams_feed_names_each_credential_in_its_managers_language(db):
    zoe = _manager(db, "Zoë Ångström", "es")
    crew = factories.team(db, gpus=64, manager=zoe, name="R&D")
    holder(db, "VENDOR-EXPERT", name=ANA, team=crew, locale="en")
    (event,) = Calendar.from_ical(calendars.team_feed(db, crew)).walk("VEVENT")
    assert str(event["description"]) == (
        "La certificación Credencial de experto específica del proveedor de "
        f"{ANA} es válida hasta este día inclusive."
    )


def test_a_feed_url_without_a_setting_speaks_the_deployments_default(app, client, db, monkeypatch):
    ana, _ = _feed_scene(db, "", "")
    token = calendars.replace_token(db, ana)
    assert (
        f"SUMMARY:{ANA}: NCA-AIIO valid through this day".encode()
        in client.get(f"/calendar/engineer/{token}.ics").data
    )
    monkeypatch.setitem(app.config, "DEFAULT_LOCALE", "es")
    body = client.get(f"/calendar/engineer/{token}.ics").data
    assert f"SUMMARY:{ANA}: NCA-AIIO válida hasta este día inclusive".encode() in body
    assert b"valid through" not in body


def test_managing_a_feed_answers_in_the_persons_language(client, auth, db):
    ana, _ = _feed_scene(db, "es", "en")
    auth.sign_in(ana)
    assert client.post("/calendar/mine/token").status_code == 302
    html = client.get("/profile").text
    assert "Enlace de calendario creado: suscribirse a él desde el programa de calendario." in html
    assert "Calendar feed created" not in html
    client.post("/calendar/mine/token")
    assert "Enlace de calendario sustituido: el anterior ya no funciona." in (
        client.get("/profile").text
    )
    client.post("/calendar/mine/token/remove")
    assert "Enlace de calendario eliminado: ya no funciona." in client.get("/profile").text


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
