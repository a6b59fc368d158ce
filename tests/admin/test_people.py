"""People pages and rules: the list, adding, editing with level and role history, deactivation."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from urllib.parse import urlsplit

import pytest
from sqlalchemy import select

from tests import factories
from tests.admin.helpers import field_error, text
from tests.factories import PASSWORD, TODAY
from tests.helpers import confirmation, count, fresh, sign_in
from tracker.errors import ValidationError
from tracker.people.models import Engineer, JobRoleAssignment, LevelChange
from tracker.people.services.persons import (
    create_person,
    set_active,
    set_job_roles,
    set_level,
    update_engineer,
)
from tracker.people.services.reads import find_engineer
from tracker.progress.services.hours import log_hours

D = dt.date


# --- the list -----------------------------------------------------------------


def test_people_list_shows_each_column(admin_client, db):
    boss = factories.engineer(db, name="Mia Manager", access_role="manager")
    team = factories.team(db, name="Blue Team")
    factories.engineer(
        db,
        name="Nina Network",
        email="nina@example.com",
        job_roles=("network", "operations"),
        level=3,
        team=team,
        manager=boss,
    )
    gone = factories.engineer(db, name="Olaf Old")
    set_active(db, gone, False, None)

    page = admin_client.get("/admin/people").text
    row = page[page.index("Nina Network") :].split("</tr>")[0]
    for shown in (
        "nina@example.com",
        "engineer",
        "Network Specialist",
        "Operations Engineer",
        "<td>3</td>",
        "Blue Team",
        "Mia Manager",
        "active",
    ):
        assert shown in row
    olaf = page[page.index("Olaf Old") :].split("</tr>")[0]
    assert "deactivated" in olaf


def test_people_list_escapes_names(admin_client, db):
    factories.engineer(db, name="<script>alert(1)</script>", email="xss@example.com")
    page = admin_client.get("/admin/people").text
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


# --- adding -------------------------------------------------------------------


@pytest.fixture
def add_data(db):
    boss = factories.engineer(db, name="Mia Manager", access_role="manager")
    team = factories.team(db, name="Green Team")
    return {
        "name": "Noor New",
        "email": "Noor@Example.com",
        "access_role": "engineer",
        "job_roles": ["network", "storage"],
        "level": "2",
        "team": str(team.id),
        "manager": str(boss.id),
        "hired_on": "2025-03-01",
        "experience_months": "8",
        "password": "a long enough secret",
    }


def test_add_person(admin_client, admin, db, app, add_data):
    # Pasted with the spaces around it: the address is what counts.
    response = admin_client.post(
        "/admin/people/new", data={**add_data, "email": "  Noor@Example.com \t"}
    )
    assert response.status_code == 302
    assert urlsplit(response.headers["Location"]).path == "/admin/people"

    person = db.scalars(select(Engineer).where(Engineer.email == "noor@example.com")).one()
    assert (person.name, person.access_role, person.level) == ("Noor New", "engineer", 2)
    assert person.team.name == "Green Team" and person.manager.name == "Mia Manager"
    assert (person.hired_on, person.experience_months) == (D(2025, 3, 1), 8)
    assert person.job_role_codes == {"network", "storage"}
    assert {a.started_on for a in person.role_assignments} == {D(2025, 3, 1)}
    first = db.scalars(select(LevelChange).where(LevelChange.engineer_id == person.id)).one()
    assert (first.from_level, first.to_level, first.changed_on) == (None, 2, TODAY)
    assert first.changed_by_id == admin.id
    # The initial password works.
    other = app.test_client()
    sign_in(other, "noor@example.com", "a long enough secret")


BAD_ADDS = [
    ("name", "", "a name is required"),
    ("email", "not-an-email", "not a valid email address"),
    ("email", "ada@example.com", "already exists"),
    ("access_role", "superuser", "role must be one of engineer, manager, admin"),
    ("job_roles", ["astronaut"], "choose job roles from the list"),
    ("level", "7", "level must be from 1 to 5"),
    ("level", "two", "level must be from 1 to 5"),
    ("team", "999999", "choose one of the listed teams"),
    ("team", "9" * 30, "choose one of the listed teams"),
    ("team", "blue", "choose one of the listed teams"),
    ("manager", "999999", "choose one of the listed managers"),
    ("hired_on", "2027-01-01", "hire date must not be in the future"),
    ("hired_on", "1969-12-31", "hire date must not be before 1970-01-01"),
    ("hired_on", "0001-01-01", "hire date must not be before 1970-01-01"),
    ("hired_on", "01/03/2025", "must be a date written YYYY-MM-DD"),
    ("experience_months", "-1", "experience must be from 0 to 600 months"),
    ("experience_months", "9" * 30, "experience must be from 0 to 600 months"),
    ("experience_months", "many", "must be a whole number"),
    ("password", "short", "password must be 10 to 200 characters"),
]


@pytest.mark.parametrize(("field", "value", "message"), BAD_ADDS)
def test_add_person_refuses_bad_input(admin_client, db, add_data, field, value, message):
    before = (count(db, Engineer), count(db, JobRoleAssignment), count(db, LevelChange))
    response = admin_client.post("/admin/people/new", data={**add_data, field: value})
    assert response.status_code == 400
    assert message in field_error(response.text, field)
    assert (count(db, Engineer), count(db, JobRoleAssignment), count(db, LevelChange)) == before


def test_add_person_refuses_an_engineer_as_manager(admin_client, db, add_data):
    plain = factories.engineer(db, name="Eve Engineer")
    # The form offers managers and admins only; the rule holds in the service too.
    response = admin_client.post("/admin/people/new", data={**add_data, "manager": str(plain.id)})
    assert response.status_code == 400
    with pytest.raises(ValidationError) as exc:
        create_person(
            db, actor=None, today=TODAY, email="x@example.com", name="X", manager_id=plain.id
        )
    assert "Eve Engineer is not a manager or admin" in exc.value.errors["manager"]
    assert find_engineer(db, "x@example.com") is None


def test_add_person_reports_every_bad_field_at_once(admin_client, db, add_data):
    response = admin_client.post(
        "/admin/people/new", data={**add_data, "email": "bad", "experience_months": "-4"}
    )
    assert response.status_code == 400
    assert "not a valid email" in field_error(response.text, "email")
    assert "from 0 to 600" in field_error(response.text, "experience_months")


# --- editing ------------------------------------------------------------------


@pytest.fixture
def person(db):
    return factories.engineer(db, name="Pia Person", job_roles=("operations", "network"), level=1)


def edit_data(person, **changes):
    data = {
        "name": person.name,
        "email": person.email,
        "access_role": person.access_role,
        "job_roles": sorted(person.job_role_codes),
        "level": str(person.level),
        "team": str(person.team_id or ""),
        "manager": str(person.manager_id or ""),
        "hired_on": person.hired_on.isoformat() if person.hired_on else "",
        "experience_months": str(person.experience_months),
    }
    data.update(changes)
    return data


def test_an_admin_fixes_a_name_and_an_email_typed_wrong(admin_client, db, person):
    other = factories.engineer(db, name="Ada Other", email="ada.other@example.com")
    old_name, old_email = person.name, person.email
    page = admin_client.get(f"/admin/people/{person.id}").text
    assert f'value="{person.email}"' in page
    # Refused next to the field, and nothing saved.
    refused = admin_client.post(f"/admin/people/{person.id}", data=edit_data(person, name=" "))
    assert refused.status_code == 400
    assert field_error(refused.text, "name") == "a name is required"
    refused = admin_client.post(
        f"/admin/people/{person.id}",
        data=edit_data(person, name="Ana Fixed", email=" ADA.OTHER@example.com "),
    )
    assert refused.status_code == 400
    assert "already exists" in field_error(refused.text, "email")
    db.refresh(person)
    assert person.name != "Ana Fixed" and other.email == "ada.other@example.com"

    response = admin_client.post(
        f"/admin/people/{person.id}",
        data=edit_data(person, name="Ana Fixed", email=" Ana.Fixed@Example.com "),
    )
    assert response.status_code == 302
    db.refresh(person)
    assert (person.name, person.email) == ("Ana Fixed", "ana.fixed@example.com")
    # The account trail shows who the account was and is.
    trail = text(admin_client.get("/admin/audit"))
    assert f"Name: {old_name} → Ana Fixed" in trail
    assert f"Email: {old_email} → ana.fixed@example.com" in trail


def test_the_trail_names_the_teams_a_person_moved_between(admin_client, db, person):
    red = factories.team(db, name="Red Team")
    blue = factories.team(db, name="Blue Team")
    for team in (red, blue):
        response = admin_client.post(
            f"/admin/people/{person.id}", data=edit_data(person, team=str(team.id), manager="")
        )
        assert response.status_code == 302
        db.refresh(person)
    trail = text(admin_client.get("/admin/audit"))
    assert "Team: Red Team → Blue Team" in trail
    assert "Team: — → Red Team" in trail
    assert "Red Team → Blue Team" in admin_client.get("/admin/audit.csv").text


def test_edit_page_shows_current_values(admin_client, person):
    page = admin_client.get(f"/admin/people/{person.id}").text
    assert '<option selected value="operations">' in page
    assert '<option selected value="network">' in page
    assert 'value="2021-01-01"' in page


def test_level_change_writes_the_level_history(admin_client, admin, db, person):
    response = admin_client.post(f"/admin/people/{person.id}", data=edit_data(person, level="3"))
    assert response.status_code == 302
    assert fresh(db, person).level == 3
    change = db.scalars(
        select(LevelChange).where(
            LevelChange.engineer_id == person.id, LevelChange.from_level.is_not(None)
        )
    ).one()
    assert (change.from_level, change.to_level, change.changed_on) == (1, 3, TODAY)
    assert change.changed_by_id == admin.id
    page = text(admin_client.get(f"/admin/people/{person.id}"))
    day = '<td><time datetime="2026-11-29">Nov 29, 2026</time></td>'
    assert f"{day}<td>1</td>" in page and "Ada Admin" in page


def test_the_level_history_is_listed_newest_first(admin_client, admin, db, person):
    set_level(db, person, 2, admin, dt.date(2026, 12, 1))
    set_level(db, person, 4, admin, dt.date(2027, 2, 1))
    page = text(admin_client.get(f"/admin/people/{person.id}"))
    # The first row is the level recorded when the person was added.
    newest_first = [
        '<time datetime="2027-02-01">Feb 1, 2027</time></td><td>2</td>',
        '<time datetime="2026-12-01">Dec 1, 2026</time></td><td>1</td>',
        '<time datetime="2026-11-29">Nov 29, 2026</time></td><td>—</td>',
    ]
    at = [page.index(cells) for cells in newest_first]
    assert at == sorted(at)


def test_saving_without_a_level_change_writes_no_history(admin_client, db, person):
    before = count(db, LevelChange)
    response = admin_client.post(
        f"/admin/people/{person.id}", data=edit_data(person, experience_months="20")
    )
    assert response.status_code == 302
    assert fresh(db, person).experience_months == 20
    assert count(db, LevelChange) == before


def test_job_role_change_ends_and_opens_assignments(admin_client, db, person):
    response = admin_client.post(
        f"/admin/people/{person.id}", data=edit_data(person, job_roles=["network", "storage"])
    )
    assert response.status_code == 302
    person = fresh(db, person)
    history = {(a.job_role.code, a.started_on, a.ended_on) for a in person.role_assignments}
    assert history == {
        ("operations", D(2021, 1, 1), TODAY),  # removed: ended today
        ("network", D(2021, 1, 1), None),  # kept: untouched
        ("storage", TODAY, None),  # added: starts today
    }
    assert person.job_role_codes == {"network", "storage"}


def test_a_role_removed_and_given_back_opens_a_new_period(db, person):
    set_job_roles(db, person, ["network"], D(2026, 1, 1))
    set_job_roles(db, person, ["network", "operations"], TODAY)
    periods = sorted(
        (a.started_on, a.ended_on)
        for a in person.role_assignments
        if a.job_role.code == "operations"
    )
    assert periods == [(D(2021, 1, 1), D(2026, 1, 1)), (TODAY, None)]


def test_edit_team_manager_hire_date(admin_client, db, person):
    boss = factories.engineer(db, name="Mia Manager", access_role="manager")
    team = factories.team(db, name="Red Team")
    response = admin_client.post(
        f"/admin/people/{person.id}",
        data=edit_data(
            person,
            team=str(team.id),
            manager=str(boss.id),
            hired_on="2020-06-01",
            access_role="manager",
        ),
    )
    assert response.status_code == 302
    person = fresh(db, person)
    assert (person.team_id, person.manager_id, person.hired_on) == (team.id, boss.id, D(2020, 6, 1))
    assert person.access_role == "manager"


def test_a_person_moved_to_another_team_reports_to_its_manager(admin_client, db):
    maya = factories.engineer(db, name="Maya Lead", access_role="manager")
    omar = factories.engineer(db, name="Omar Lead", access_role="manager")
    kai = factories.engineer(db, name="Kai Lead", access_role="manager")
    atlas = factories.team(db, name="Atlas", manager=maya)
    borealis = factories.team(db, name="Borealis", manager=omar)
    zoe = factories.engineer(db, name="Zoe Mover", team=atlas, manager=maya)
    dotted = factories.engineer(db, name="Dot Ted", team=atlas, manager=kai)

    # The form sends the manager it showed: unchanged, it follows the team.
    moved = admin_client.post(f"/admin/people/{zoe.id}", data=edit_data(zoe, team=str(borealis.id)))
    assert moved.status_code == 302
    assert fresh(db, zoe).manager_id == omar.id
    # A manager named with the move is kept; so is one who was not the team's.
    admin_client.post(
        f"/admin/people/{zoe.id}", data=edit_data(zoe, team=str(atlas.id), manager=str(kai.id))
    )
    assert (fresh(db, zoe).team_id, fresh(db, zoe).manager_id) == (atlas.id, kai.id)
    admin_client.post(f"/admin/people/{dotted.id}", data=edit_data(dotted, team=str(borealis.id)))
    assert (fresh(db, dotted).team_id, fresh(db, dotted).manager_id) == (borealis.id, kai.id)


def test_person_cannot_be_their_own_manager(admin_client, db, person):
    person.access_role = "manager"
    db.flush()
    response = admin_client.post(
        f"/admin/people/{person.id}", data=edit_data(person, manager=str(person.id))
    )
    assert response.status_code == 400
    assert "choose one of the listed managers" in field_error(response.text, "manager")
    assert fresh(db, person).manager_id is None
    with pytest.raises(ValidationError) as exc:
        update_engineer(db, person, None, TODAY, manager_id=person.id)
    assert exc.value.errors["manager"] == "a person cannot be their own manager"


def test_reporting_lines_must_not_loop(db):
    top = factories.engineer(db, name="Top", access_role="manager")
    middle = factories.engineer(db, name="Middle", access_role="manager", manager=top)
    with pytest.raises(ValidationError) as exc:
        update_engineer(db, top, None, TODAY, manager_id=middle.id)
    assert "Middle reports to Top" in exc.value.errors["manager"]
    assert top.manager_id is None


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"team": "999999"}, "team", "choose one of the listed teams"),
        ({"level": "0"}, "level", "level must be from 1 to 5"),
        ({"experience_months": "601"}, "experience_months", "from 0 to 600"),
        ({"hired_on": "2026-12-01"}, "hired_on", "must not be in the future"),
        ({"hired_on": "0001-01-01"}, "hired_on", "hire date must not be before 1970-01-01"),
        ({"access_role": "boss"}, "access_role", "role must be one of"),
        ({"job_roles": ["pilot"]}, "job_roles", "choose job roles from the list"),
    ],
)
def test_edit_refuses_bad_input(admin_client, db, person, changes, field, message):
    before = (count(db, LevelChange), count(db, JobRoleAssignment))
    response = admin_client.post(
        f"/admin/people/{person.id}", data=edit_data(person, **{"level": "4", **changes})
    )
    assert response.status_code == 400
    assert message in field_error(response.text, field)
    person = fresh(db, person)
    assert person.level == 1  # nothing of the edit was kept
    assert (count(db, LevelChange), count(db, JobRoleAssignment)) == before


def test_service_refuses_an_unknown_team(db, person):
    before = count(db, LevelChange)
    with pytest.raises(ValidationError) as exc:
        update_engineer(db, person, None, TODAY, team_id=999999, level=3)
    assert "unknown team" in exc.value.errors["team"]
    assert person.level == 1 and count(db, LevelChange) == before


def test_hire_date_cannot_move_after_recorded_hours(admin_client, db, person):
    log_hours(db, person, factories.course(db, "FDL"), D(2022, 5, 2), Decimal(2), TODAY)
    response = admin_client.post(
        f"/admin/people/{person.id}", data=edit_data(person, hired_on="2023-01-01")
    )
    assert response.status_code == 400
    assert "first recorded hours or exam attempt (2022-05-02)" in field_error(
        response.text, "hired_on"
    )


def test_admin_cannot_drop_their_own_admin_role(admin_client, db, admin):
    response = admin_client.post(
        f"/admin/people/{admin.id}", data=edit_data(admin, access_role="engineer")
    )
    assert response.status_code == 400
    assert "cannot change your own access role" in field_error(response.text, "access_role")
    assert fresh(db, admin).access_role == "admin"


def test_a_manager_with_a_team_keeps_the_manager_role(admin_client, db):
    boss = factories.engineer(db, name="Mia Manager", access_role="manager")
    factories.team(db, name="Her Team", manager=boss)
    response = admin_client.post(
        f"/admin/people/{boss.id}", data=edit_data(boss, access_role="engineer")
    )
    assert response.status_code == 400
    assert "manages team Her Team" in field_error(response.text, "access_role")


# --- deactivation -------------------------------------------------------------


def test_deactivation_ends_the_persons_sessions(app, admin_client, db, person):
    theirs = app.test_client()
    sign_in(theirs, person.email)
    assert theirs.get("/profile").status_code == 200
    # Not the page's main action: its button is drawn apart from "Save changes".
    page = admin_client.get(f"/admin/people/{person.id}").text
    deactivate = f"/admin/people/{person.id}/deactivate"
    assert f'<a href="{deactivate}" role="button" class="secondary">Deactivate</a>' in page

    response = admin_client.post(f"/admin/people/{person.id}/deactivate")
    assert response.status_code == 302
    assert fresh(db, person).active is False

    response = theirs.get("/profile")
    assert response.status_code == 302
    assert urlsplit(response.headers["Location"]).path == "/login"
    # Nor can they sign in again.
    assert (
        theirs.post("/login", data={"email": person.email, "password": PASSWORD}).status_code == 401
    )
    assert "deactivated" in admin_client.get("/admin/people").text


def test_deactivating_asks_first_what_it_does_and_what_stays(app, admin_client, db, person):
    theirs = app.test_client()
    sign_in(theirs, person.email)
    url = f"/admin/people/{person.id}/deactivate"

    asked = confirmation(admin_client, url)

    assert asked.question == f"Deactivate {person.name}?"
    assert "They are signed out everywhere" in asked.text
    assert "Their records stay, and an admin can reactivate the account" in asked.text
    assert asked.back == f"/admin/people/{person.id}"
    assert fresh(db, person).active is True
    assert theirs.get("/profile").status_code == 200

    response = asked.confirm()

    assert response.status_code == 302 and response.location == asked.back
    assert fresh(db, person).active is False
    assert theirs.get("/profile").status_code == 302
    # Deactivated, nothing is left to ask about: back to the person's page.
    assert admin_client.get(url).location == asked.back
    other = factories.engineer(db, name="Olga Otero")
    spanish = {"Accept-Language": "es"}
    asked = confirmation(admin_client, f"/admin/people/{other.id}/deactivate", headers=spanish)
    assert asked.question == "¿Desactivar a Olga Otero?"
    assert "la cuenta se puede reactivar en cualquier momento" in asked.text


def test_reactivation_lets_the_person_sign_in_again(app, admin_client, db, person):
    admin_client.post(f"/admin/people/{person.id}/deactivate")
    response = admin_client.post(f"/admin/people/{person.id}/reactivate")
    assert response.status_code == 302
    assert fresh(db, person).active is True
    sign_in(app.test_client(), person.email)


def test_admin_cannot_deactivate_themselves(admin_client, db, admin):
    response = admin_client.post(f"/admin/people/{admin.id}/deactivate")
    assert response.status_code == 400
    assert "you cannot deactivate your own account" in response.text
    assert fresh(db, admin).active is True


# --- the language setting -------------------------------------------------------


def test_add_person_with_a_language(admin_client, db, add_data):
    response = admin_client.post("/admin/people/new", data={**add_data, "locale": "es"})
    assert response.status_code == 302
    assert db.scalars(
        select(Engineer).where(Engineer.email == "noor@example.com")
    ).one().locale == ("es")


def test_add_person_refuses_an_unknown_language(admin_client, db, add_data):
    before = count(db, Engineer)
    response = admin_client.post("/admin/people/new", data={**add_data, "locale": "fr"})
    assert response.status_code == 400
    assert field_error(response.text, "locale") == "choose one of the listed languages"
    assert count(db, Engineer) == before


def test_the_edit_form_shows_and_changes_the_language(admin_client, db, person):
    person.locale = "es"
    db.flush()
    page = admin_client.get(f"/admin/people/{person.id}").text
    assert re.search(
        r'<option[^>]*selected[^>]*value="es"|<option[^>]*value="es"[^>]*selected', page
    )
    response = admin_client.post(f"/admin/people/{person.id}", data=edit_data(person, locale="en"))
    assert response.status_code == 302
    assert fresh(db, person).locale == "en"
    response = admin_client.post(f"/admin/people/{person.id}", data=edit_data(person, locale="xx"))
    assert response.status_code == 400
    assert fresh(db, person).locale == "en"
