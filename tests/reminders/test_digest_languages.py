"""The weekly digest in each manager's language."""

from __future__ import annotations

from tests import factories
from tests.reminders.helpers import (
    ANA,
    DAY,
    EXPIRES,
    MAIL,
    WINDOWS,
    _assert_in_one_language,
    _manager,
    days_before,
    holder,
    outbox,
)
from tracker.reminders.services.daily_pass import plan


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
