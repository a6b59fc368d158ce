"""Team pages and rules: the list, adding and editing."""

from __future__ import annotations

import pytest

from tests import factories
from tests.admin.helpers import field_error
from tests.helpers import count
from tracker.errors import ValidationError
from tracker.people.models import Team
from tracker.people.services.teams import create_team, find_team, update_team


@pytest.fixture
def boss(db):
    return factories.engineer(db, name="Mia Manager", access_role="manager")


def test_teams_list_shows_gpus_manager_and_members(admin_client, db, boss):
    team = factories.team(db, name="Blue Team", gpus=1200, manager=boss)
    for _ in range(3):
        factories.engineer(db, team=team)
    # Deactivated people are in no count.
    factories.engineer(db, team=team).active = False
    db.flush()
    factories.team(db, name="Empty Team", gpus=0)
    page = admin_client.get("/admin/teams").text
    row = page[page.index("Blue Team") :].split("</tr>")[0]
    assert "1,200" in row and "Mia Manager" in row and "<td>3</td>" in row
    empty = page[page.index("Empty Team") :].split("</tr>")[0]
    assert "<td>0</td>" in empty


def test_add_team(admin_client, db, boss):
    response = admin_client.post(
        "/admin/teams/new", data={"name": " Night Shift ", "gpus": "96", "manager": str(boss.id)}
    )
    assert response.status_code == 302
    team = find_team(db, "night shift")
    assert (team.name, team.gpus, team.manager_id) == ("Night Shift", 96, boss.id)


def test_add_team_with_a_fleet_grouped_as_english_writes_it(admin_client, db):
    response = admin_client.post("/admin/teams/new", data={"name": "Big", "gpus": "12,288"})
    assert response.status_code == 302
    assert find_team(db, "Big").gpus == 12288


def test_add_team_without_manager(admin_client, db):
    response = admin_client.post("/admin/teams/new", data={"name": "Lab", "gpus": "0"})
    assert response.status_code == 302
    assert find_team(db, "Lab").manager_id is None


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("name", "", "a name is required"),
        ("name", "x" * 121, "name must be at most 120 characters"),
        ("name", "EXISTING", "a team named 'Existing' already exists"),
        ("gpus", "-1", "fleet size must be a whole number of GPUs from 0"),
        ("gpus", "lots", "must be a whole number"),
        ("gpus", "1,00", "must be a whole number"),
        ("gpus", "1.000", "must be a whole number"),
        ("gpus", "", "a fleet size is required"),
        ("manager", "999999", "choose one of the listed managers"),
    ],
)
def test_add_team_refuses_bad_input(admin_client, db, boss, field, value, message):
    factories.team(db, name="Existing")
    before = count(db, Team)
    data = {"name": "New Team", "gpus": "10", "manager": str(boss.id), field: value}
    response = admin_client.post("/admin/teams/new", data=data)
    assert response.status_code == 400
    assert message in field_error(response.text, field)
    assert count(db, Team) == before


def test_team_manager_must_be_a_manager_or_admin(admin_client, db):
    plain = factories.engineer(db, name="Eve Engineer")
    response = admin_client.post(
        "/admin/teams/new", data={"name": "T", "gpus": "1", "manager": str(plain.id)}
    )
    assert response.status_code == 400
    with pytest.raises(ValidationError) as exc:
        create_team(db, "T", 1, plain.id)
    assert "Eve Engineer is not a manager or admin" in exc.value.errors["manager"]
    assert find_team(db, "T") is None


def test_edit_team(admin_client, db, boss, admin):
    team = factories.team(db, name="Old Name", gpus=10)
    page = admin_client.get(f"/admin/teams/{team.id}").text
    assert 'value="Old Name"' in page
    response = admin_client.post(
        f"/admin/teams/{team.id}",
        data={"name": "New Name", "gpus": "500", "manager": str(admin.id)},
    )
    assert response.status_code == 302
    db.expire_all()
    team = db.get(Team, team.id)
    assert (team.name, team.gpus, team.manager_id) == ("New Name", 500, admin.id)


def test_edit_team_keeps_its_own_name_and_refuses_another_teams(admin_client, db):
    team = factories.team(db, name="Alpha", gpus=10)
    factories.team(db, name="Beta")
    assert (
        admin_client.post(
            f"/admin/teams/{team.id}", data={"name": "ALPHA", "gpus": "12"}
        ).status_code
        == 302
    )
    response = admin_client.post(f"/admin/teams/{team.id}", data={"name": "beta", "gpus": "12"})
    assert response.status_code == 400
    assert "a team named 'Beta' already exists" in field_error(response.text, "name")
    db.expire_all()
    assert db.get(Team, team.id).name == "ALPHA"


def test_edit_team_refuses_negative_fleet(admin_client, db):
    team = factories.team(db, name="Gamma", gpus=10)
    response = admin_client.post(f"/admin/teams/{team.id}", data={"name": "Gamma", "gpus": "-5"})
    assert response.status_code == 400
    assert "from 0" in field_error(response.text, "gpus")
    db.expire_all()
    assert db.get(Team, team.id).gpus == 10


def test_a_team_keeps_a_manager_who_lost_the_role_until_changed(db, boss):
    team = factories.team(db, name="Delta", manager=boss)
    boss.access_role = "engineer"  # as if changed before this rule existed
    db.flush()
    update_team(db, team, name="Delta", gpus=20, manager_id=boss.id)
    assert (team.gpus, team.manager_id) == (20, boss.id)
    update_team(db, team, name="Delta", gpus=20, manager_id=None)
    with pytest.raises(ValidationError) as exc:
        update_team(db, team, name="Delta", gpus=20, manager_id=boss.id)
    assert "not a manager or admin" in exc.value.errors["manager"]
