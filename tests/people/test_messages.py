"""People's messages: English text marked for translation, rules held to their figures."""

from __future__ import annotations

import pytest

from tests import factories
from tests.factories import TODAY
from tests.helpers import fresh
from tracker.errors import ValidationError
from tracker.i18n import LOCALES, translate
from tracker.people.rules import (
    ACCESS_ROLE_RULE,
    ACCESS_ROLES,
    GPUS_RULE,
    LOCALE_RULE,
    MAX_GPUS,
)
from tracker.people.services.accounts import create_token, hash_password
from tracker.people.services.persons import set_active, update_engineer
from tracker.people.services.teams import create_team


def test_the_written_out_rules_state_their_constants():
    # A marked text is a literal: these keep it equal to the rule's figures.
    assert GPUS_RULE.endswith(f"from 0 to {MAX_GPUS:,}")
    assert f"role must be one of {', '.join(ACCESS_ROLES)}" == ACCESS_ROLE_RULE
    assert LOCALE_RULE.startswith(f"language must be one of {', '.join(LOCALES)} ")


def test_update_engineer_sets_the_language_with_the_other_changes(db):
    admin = factories.engineer(db, access_role="admin")
    person = factories.engineer(db)
    update_engineer(db, person, admin, TODAY, level=2, locale="es")
    assert (fresh(db, person).level, person.locale) == (2, "es")


def test_update_engineer_refuses_an_unknown_language_and_writes_nothing(db):
    admin = factories.engineer(db, access_role="admin")
    person = factories.engineer(db)
    with pytest.raises(ValidationError) as refused:
        update_engineer(db, person, admin, TODAY, level=3, locale="fr")
    assert refused.value.errors == {"locale": LOCALE_RULE}
    assert (fresh(db, person).level, person.locale) == (1, "")


def test_a_persons_refusals_are_english_and_translate_to_spanish(db):
    admin = factories.engineer(db, access_role="admin", name="Ada")
    boss = factories.engineer(db, access_role="manager", name="Mia")
    factories.team(db, name="Blue", manager=boss)
    report = factories.engineer(db, name="Rui", manager=boss)
    with pytest.raises(ValidationError) as refused:
        update_engineer(db, boss, admin, TODAY, access_role="engineer", manager_id=report.id)
    errors = refused.value.errors
    assert errors["access_role"] == (
        "Mia manages team Blue, Rui; "
        "choose other managers for them before removing the manager role"
    )
    assert errors["manager"] == "Rui is not a manager or admin; give them the manager role first"
    assert translate(errors["access_role"], "es") == (
        "Mia es responsable de: equipo Blue, Rui; "
        "elige otros responsables para ellos antes de quitarle el rol de responsable"
    )
    assert translate(errors["manager"], "es").startswith("Rui no es responsable ni administrador")
    with pytest.raises(ValidationError) as own:
        set_active(db, admin, False, admin)
    assert translate(own.value.errors["active"], "es") == "no puedes desactivar tu propia cuenta"


def test_team_password_and_token_refusals_translate(db):
    factories.team(db, name="Red")
    with pytest.raises(ValidationError) as team:
        create_team(db, "red", MAX_GPUS + 1)
    assert team.value.errors == {"name": "a team named 'Red' already exists", "gpus": GPUS_RULE}
    assert translate(team.value.errors["gpus"], "es") == (
        "el tamaño de la flota debe ser un número entero de GPU entre 0 y 10.000.000"
    )
    with pytest.raises(ValidationError) as password:
        hash_password("short")
    assert translate(password.value.errors["password"], "es") == (
        "la contraseña debe tener al menos 10 caracteres"
    )
    with pytest.raises(ValidationError) as token:
        create_token(db, factories.engineer(db), expires_on=TODAY.replace(day=1), today=TODAY)
    assert token.value.errors["expires_on"] == (
        "the expiry date must not be before today (2026-11-29)"
    )
    assert translate(token.value.errors["expires_on"], "es") == (
        "la fecha de caducidad no puede ser anterior a hoy (2026-11-29)"
    )
    with pytest.raises(ValidationError) as distant:
        create_token(db, factories.engineer(db), expires_on=TODAY.replace(year=2062), today=TODAY)
    assert translate(distant.value.errors["expires_on"], "es") == (
        "la fecha de caducidad debe ser como máximo 365 días después de hoy (29 nov 2027);"
        " omítela para un token que funcione hasta que se revoque"
    )
