"""An escalation once per language among its managers, and its engineer's when sent to them."""

from __future__ import annotations

import datetime as dt

from sqlalchemy.orm import Session

from tests import factories
from tests.reminders.helpers import (
    ANA,
    CREDENTIAL,
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
from tracker.reminders import jobs
from tracker.reminders.services.daily_pass import plan
from tracker.reminders.services.delivery import deliver


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
