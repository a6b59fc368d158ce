"""Editing a person: name and email, team and manager, level and role history, its refusals."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from sqlalchemy import select

from tests import factories
from tests.admin.helpers import edit_data, field_error, text
from tests.factories import TODAY
from tests.helpers import count, fresh
from tracker.errors import ValidationError
from tracker.people.models import JobRoleAssignment, LevelChange
from tracker.people.services.persons import set_job_roles, set_level, update_engineer
from tracker.progress.services.hours import log_hours

D = dt.date


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
