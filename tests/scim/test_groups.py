"""SCIM Groups are teams: displayName the team's name, members its people (one team each)."""

from __future__ import annotations

from tests import factories
from tests.scim.conftest import GROUP, error_of
from tracker.people.models import Engineer, Team
from tracker.scim.models import ScimGroup


def _group(name: str, *members: str, **more: object) -> dict:
    return {
        "schemas": [GROUP],
        "displayName": name,
        "members": [{"value": m} for m in members],
        **more,
    }


def _member_ids(body) -> list[str]:
    return [m["value"] for m in body.get("members", [])]


def test_create_makes_a_team_and_moves_its_members_in(scim, db):
    elsewhere = factories.team(db, name="Elsewhere")
    moved = factories.engineer(db, team=elsewhere)
    fresh = scim.create_user("fresh@example.com")
    response = scim.post("/Groups", _group("Platform", str(moved.id), fresh["id"], externalId="g1"))
    assert response.status_code == 201, response.get_data(as_text=True)
    body = response.get_json(force=True)
    db.expire_all()
    team = db.get(Team, int(body["id"]))
    assert team.name == "Platform" and team.gpus == 0
    assert {p.id for p in team.members} == {moved.id, int(fresh["id"])}
    assert moved.team_id == team.id
    assert sorted(_member_ids(body)) == sorted([str(moved.id), fresh["id"]])
    member = body["members"][0]
    assert member["type"] == "User" and member["$ref"].endswith(f"/Users/{member['value']}")
    assert body["meta"]["resourceType"] == "Group"
    assert response.headers["ETag"] == body["meta"]["version"]


def test_team_names_are_unique_regardless_of_case(scim, db):
    factories.team(db, name="Storage")
    error_of(scim.post("/Groups", _group("STORAGE")), 409, "uniqueness")


def test_a_member_that_is_no_user_is_refused_and_nothing_stored(scim, db):
    before = db.query(Team).count()
    error_of(scim.post("/Groups", _group("Ghosts", "999999")), 400, "invalidValue")
    error_of(
        scim.post(
            "/Groups",
            {
                "schemas": [GROUP],
                "displayName": "Nested",
                "members": [{"value": "1", "type": "Group"}],
            },
        ),
        400,
        "invalidValue",
    )
    assert db.query(Team).count() == before


def test_existing_teams_are_groups(scim, db):
    team = factories.team(db, name="Existing")
    person = factories.engineer(db, team=team)
    body = scim.get(f"/Groups/{team.id}").get_json(force=True)
    assert body["displayName"] == "Existing" and _member_ids(body) == [str(person.id)]
    error_of(scim.get("/Groups/999999"), 404)


def test_patch_add_members_moves_them_from_their_team(scim, db):
    first = factories.team(db, name="First")
    second = factories.team(db, name="Second")
    person = factories.engineer(db, team=first)
    response = scim.patch(
        f"/Groups/{second.id}",
        {"op": "add", "path": "members", "value": [{"value": str(person.id)}]},
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    db.expire_all()
    assert db.get(Engineer, person.id).team_id == second.id
    assert _member_ids(scim.get(f"/Groups/{first.id}").get_json(force=True)) == []


def test_patch_remove_a_member_by_filter_and_all_members(scim, db):
    team = factories.team(db, name="Shrinking")
    stay = factories.engineer(db, team=team)
    leave = factories.engineer(db, team=team)
    path = f"/Groups/{team.id}"
    response = scim.patch(path, {"op": "remove", "path": f'members[value eq "{leave.id}"]'})
    assert response.status_code == 200, response.get_data(as_text=True)
    assert _member_ids(response.get_json(force=True)) == [str(stay.id)]
    db.expire_all()
    assert db.get(Engineer, leave.id).team_id is None
    # Entra names the member to remove in the value.
    response = scim.patch(
        path, {"op": "Remove", "path": "members", "value": [{"value": str(stay.id)}]}
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    db.expire_all()
    assert db.get(Engineer, stay.id).team_id is None


def test_patch_replace_members_and_rename(scim, db):
    team = factories.team(db, name="Before")
    old = factories.engineer(db, team=team)
    new = factories.engineer(db)
    response = scim.patch(
        f"/Groups/{team.id}",
        {"op": "replace", "path": "members", "value": [{"value": str(new.id)}]},
        {"op": "replace", "value": {"displayName": "After"}},
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    db.expire_all()
    assert team.name == "After"
    assert [p.id for p in team.members] == [new.id]
    assert old.team_id is None


def test_put_replaces_name_members_and_external_id(scim, db):
    team = factories.team(db, name="Put Team")
    old = factories.engineer(db, team=team)
    new = factories.engineer(db)
    response = scim.put(f"/Groups/{team.id}", _group("Put Team 2", str(new.id), externalId="x9"))
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json(force=True)
    db.expire_all()
    assert body["displayName"] == "Put Team 2" and body["externalId"] == "x9"
    assert _member_ids(body) == [str(new.id)] and old.team_id is None


def test_delete_empties_and_hides_the_team_but_keeps_it(scim, db):
    team = factories.team(db, name="Doomed", gpus=128)
    person = factories.engineer(db, team=team)
    assert scim.delete(f"/Groups/{team.id}").status_code == 204
    db.expire_all()
    assert db.get(Team, team.id).gpus == 128
    assert person.team_id is None
    assert db.get(ScimGroup, team.id).deleted_at is not None
    error_of(scim.get(f"/Groups/{team.id}"), 404)
    listed = scim.get('/Groups?filter=displayName eq "Doomed"').get_json(force=True)
    assert listed["totalResults"] == 0
    # Created again, the team comes back.
    again = scim.post("/Groups", _group("Doomed"))
    assert again.status_code == 201 and again.get_json(force=True)["id"] == str(team.id)


def test_deleted_users_are_not_members(scim, db):
    team = factories.team(db, name="With Ghost")
    person = scim.create_user("ghost@example.com")
    scim.patch(
        f"/Groups/{team.id}", {"op": "add", "path": "members", "value": [{"value": person["id"]}]}
    )
    scim.delete(f"/Users/{person['id']}")
    assert _member_ids(scim.get(f"/Groups/{team.id}").get_json(force=True)) == []
