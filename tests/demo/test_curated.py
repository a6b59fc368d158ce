"""The curated demo organisation: who reads the tracker in which language."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from tests.factories import KEYS, SECRET_KEY, TODAY
from tracker.audit.models import AccountEvent
from tracker.demo.services.common import DEMO_ADMIN_TOTP_SECRET
from tracker.demo.services.curated import LANGUAGES, build_demo, language_of
from tracker.people.models import Engineer
from tracker.people.services.totp import decrypt_secret, is_plain
from tracker.progress.models import Certification, ExamAttempt, HourLog
from tracker.progress.services.validity import newest_per_credential
from tracker.reminders.rules import COPY_MANAGER_FROM_DAYS


def people(db: Session) -> dict[str, Engineer]:
    build_demo(db, TODAY, secret_key=SECRET_KEY)
    return {e.name: e for e in db.scalars(select(Engineer))}


def test_the_admins_known_app_secret_is_stored_encrypted(db: Session):
    stored = {e.name: e.totp_secret for e in people(db).values() if e.totp_secret}
    assert list(stored) == ["Ada Admin"]
    assert DEMO_ADMIN_TOTP_SECRET not in stored["Ada Admin"] and not is_plain(stored["Ada Admin"])
    assert decrypt_secret(stored["Ada Admin"], KEYS) == DEMO_ADMIN_TOTP_SECRET


def test_the_demo_has_spanish_english_and_browser_readers(db: Session):
    everyone = people(db)
    assert {e.locale for e in everyone.values()} == {"es", "en", ""}
    assert {name: everyone[name].locale for name in LANGUAGES} == LANGUAGES
    for name, person in everyone.items():
        assert person.locale == language_of(name)
    # The logins the browser tests sign in with read the browser's language.
    for name in ("Ada Admin", "Tom Becker", "Sam Park", "Aisha Bello"):
        assert everyone[name].locale == ""


def test_a_spanish_engineer_has_an_english_manager_and_a_reminder_copied_to_them(db: Session):
    """Lena reads Spanish, her manager Maya English; Lena's NCA-AIIO expires within
    the days from which reminders copy the manager."""
    everyone = people(db)
    lena, maya = everyone["Lena Ortiz"], everyone["Maya Chen"]
    assert (lena.locale, lena.access_role) == ("es", "engineer")
    assert lena.manager_id == maya.id and maya.locale == "en"
    assert maya.access_role == "manager"
    newest = newest_per_credential(
        db.scalars(select(Certification).where(Certification.engineer_id == lena.id))
    )
    days_left = [(c.expires_on - TODAY).days for c in newest.values() if c.expires_on is not None]
    assert any(0 <= days <= COPY_MANAGER_FROM_DAYS for days in days_left), days_left
    diego, omar = everyone["Diego Alvarez"], everyone["Omar Haddad"]
    assert (diego.locale, omar.locale, diego.manager_id) == ("es", "", omar.id)


def test_each_person_writes_the_demos_notes_in_the_language_they_read(db: Session):
    everyone = people(db)
    notes = {
        name: {log.note for log in db.scalars(select(HourLog).where(HourLog.engineer_id == e.id))}
        for name, e in everyone.items()
    }
    proctored = {
        name: {
            a.proctoring
            for a in db.scalars(select(ExamAttempt).where(ExamAttempt.engineer_id == e.id))
        }
        for name, e in everyone.items()
    }
    # Lena reads Spanish, Grace English, Sam their browser's (the default, English).
    assert notes["Lena Ortiz"] == {"sesión de estudio de demostración"}
    assert notes["Grace Liu"] == notes["Sam Park"] == {"demo study session"}
    assert proctored["Lena Ortiz"] == {"en línea, con supervisión remota"}
    assert proctored["Grace Liu"] == {"online, remotely proctored"}
    experience = {name: e.experience_text for name, e in everyone.items() if e.experience_months}
    spanish = [name for name in experience if everyone[name].locale == "es"]
    english = [name for name in experience if everyone[name].locale != "es"]
    assert spanish and english
    for name in spanish:
        assert experience[name].endswith("meses operando clústeres de GPU antes de incorporarse")
    for name in english:
        assert experience[name].endswith("months running GPU clusters before joining")


def test_the_account_trail_says_the_command_line_created_the_demos_accounts(db: Session):
    everyone = people(db)
    created = db.scalars(select(AccountEvent).where(AccountEvent.kind == "provisioned")).all()
    assert {e.engineer_id for e in created} == {e.id for e in everyone.values()}
    assert {e.method for e in created} == {"cli"}
