"""A career on the pages: the dashboard's section, the career page and its forms."""

from __future__ import annotations

import datetime as dt

import pytest
from sqlalchemy import select

from tests import factories
from tests.careers.conftest import People
from tests.careers.helpers import page
from tests.helpers import count
from tracker.careers.models import Evidence, SkillAssessment
from tracker.careers.services.rotation import rotation as rotation_of
from tracker.careers.services.skills import current_assessment
from tracker.people.models import LevelChange
from tracker.people.services.persons import set_level

D = dt.date
TODAY = factories.TODAY  # 2026-11-29


# --- the dashboard ----------------------------------------------------------------


def test_the_dashboard_says_what_stands_between_you_and_the_next_level(client, auth, people):
    auth.sign_in(people.junior)
    html = page(client, "/dashboard")
    assert "What stands between you and level 2 (Operational)" in html
    assert "<li>a valid NCA-AIIO</li>" in html
    assert f'href="/careers/engineers/{people.junior.id}"' in html


def test_a_manager_sees_it_for_their_report(client, db, auth, people: People):
    factories.certification(db, people.junior, "NCA-AIIO", D(2026, 1, 1), D(2028, 1, 1))
    auth.sign_in(people.manager)
    html = page(client, f"/engineers/{people.junior.id}")
    assert "What stands between Jules Junior and level 2 (Operational)" in html
    assert "Meets the rule for level 2" in html


def test_the_top_of_the_ladder(client, db, auth, people: People):
    set_level(db, people.junior, 5, people.manager, TODAY)
    auth.sign_in(people.junior)
    assert "Level 5: the top of the ladder" in page(client, "/dashboard")


def test_the_nav_lists_the_new_pages_by_role(client, auth, people):
    auth.sign_in(people.junior)
    html = page(client, "/dashboard")
    assert 'href="/careers/"' in html and 'href="/careers/bonuses"' in html
    assert "/careers/promotions" not in html and "/careers/bonuses/amounts" not in html
    client.post("/logout")
    auth.sign_in(people.manager)
    html = page(client, "/dashboard")
    assert 'href="/careers/promotions"' in html and 'href="/careers/apprenticeships"' in html
    assert "/careers/bonuses/amounts" not in html
    client.post("/logout")
    auth.sign_in(people.admin)
    assert 'href="/careers/bonuses/amounts"' in page(client, "/dashboard")


# --- the career page -----------------------------------------------------------------


def test_the_career_page(client, db, auth, people: People):
    auth.sign_in(people.junior)
    response = client.get("/careers/")
    assert response.status_code == 302
    assert response.headers["Location"].endswith(f"/careers/engineers/{people.junior.id}")
    html = page(client, f"/careers/engineers/{people.junior.id}")
    assert "Your career" in html
    assert "What stands between you and level 2 (Operational)" in html
    assert "48 months of experience; recorded evidence" in html  # the ladder's level 5 rule
    assert "Set the level" not in html  # one's own level is the manager's to set
    assert "Infiniband" not in html and "InfiniBand / RDMA" in html


def test_the_career_and_admin_pages_note_a_level_other_than_the_rules(
    client, db, auth, people: People
):
    # Level 2 without the NCA-AIIO its rule asks for: above the rules' level 1.
    above = factories.engineer(db, name="Al Above", team=people.team, level=2, hired_on=None)
    above.experience_months = 14
    # Level 1 with what level 2 asks (6 months and a valid NCA-AIIO): below.
    below = factories.engineer(db, name="Bo Below", team=people.team, level=1, hired_on=None)
    below.experience_months = 8
    factories.certification(db, below, "NCA-AIIO", dt.date(2026, 1, 1), dt.date(2028, 1, 1))
    db.flush()
    auth.sign_in(people.manager)
    above_note = (
        "The level set, 2, is above the one the ladder's rules give today, 1: level 2 asks"
        " for a valid NCA-AIIO. A manager sets the level; the rules are a guide."
    )
    below_note = (
        "The ladder's rules give level 2 today: each of its requirements is met. The level"
        " set is 1; a manager sets the level, and the rules are a guide."
    )
    assert above_note in page(client, f"/careers/engineers/{above.id}")
    assert below_note in page(client, f"/careers/engineers/{below.id}")
    factories.certification(db, above, "NCA-AIIO", dt.date(2026, 1, 1), dt.date(2028, 1, 1))
    db.flush()
    assert 'id="level-note"' not in page(client, f"/careers/engineers/{above.id}")
    auth.logout()
    auth.sign_in(people.admin)
    assert below_note in page(client, f"/admin/people/{below.id}")
    assert 'id="level-note"' not in page(client, f"/admin/people/{above.id}")


@pytest.mark.parametrize(("who", "status"), [("senior", 403), ("other_manager", 403)])
def test_the_career_page_is_private(client, auth, people: People, who, status):
    auth.sign_in(getattr(people, who))
    page(client, f"/careers/engineers/{people.junior.id}", status)
    assert (
        client.post(
            f"/careers/engineers/{people.junior.id}/skills",
            data={"skill-speciality": "nccl", "skill-proficiency": "4"},
        ).status_code
        == status
    )


def test_a_manager_sets_a_level_and_the_history_shows_it(client, db, auth, people: People):
    auth.sign_in(people.manager)
    url = f"/careers/engineers/{people.junior.id}"
    assert "Set the level" in page(client, url)
    response = client.post(f"{url}/level", data={"level-level": "2"})
    assert response.status_code == 302
    change = db.scalars(select(LevelChange).where(LevelChange.from_level.is_not(None))).one()
    assert (change.from_level, change.to_level, change.changed_on) == (1, 2, TODAY)
    assert change.changed_by_id == people.manager.id
    html = page(client, url)
    assert '<td><time datetime="2026-11-29">Nov 29, 2026</time></td><td>1</td>' in html
    assert "Maya Manager" in html


@pytest.mark.parametrize("value", ["9", "0", "x", ""])
def test_a_bad_level_is_refused_on_the_page(client, db, auth, people: People, value):
    auth.sign_in(people.manager)
    before = count(db, LevelChange)
    response = client.post(
        f"/careers/engineers/{people.junior.id}/level", data={"level-level": value}
    )
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert "level must be from 1 to 5" in html or "a level is required" in html
    assert count(db, LevelChange) == before
    assert people.junior.level == 1


def test_nobody_sets_their_own_level_on_the_page(client, db, auth, people: People):
    auth.sign_in(people.admin)
    before = count(db, LevelChange)
    response = client.post(f"/careers/engineers/{people.admin.id}/level", data={"level-level": "5"})
    assert response.status_code == 403
    login_again = client.post(
        f"/careers/engineers/{people.junior.id}/level", data={"level-level": "2"}
    )
    assert login_again.status_code == 302
    assert count(db, LevelChange) == before + 1


def test_evidence_is_recorded_and_escaped(client, db, auth, people: People):
    auth.sign_in(people.senior)
    url = f"/careers/engineers/{people.senior.id}"
    response = client.post(
        f"{url}/evidence",
        data={
            "evidence-kind": "patent",
            "evidence-title": "<script>alert(1)</script>",
            "evidence-occurred_on": "2025-01-01",
        },
    )
    assert response.status_code == 302
    html = page(client, url)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>alert(1)" not in html


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"evidence-occurred_on": "2026-11-30"}, "date must not be in the future"),
        ({"evidence-occurred_on": "someday"}, "must be a date written YYYY-MM-DD"),
        ({"evidence-kind": "talk"}, "kind must be a patent, a publication or a deployment led"),
        ({"evidence-title": ""}, "a title is required"),
        ({"evidence-title": "t" * 301}, "title must be at most 300 characters"),
    ],
)
def test_bad_evidence_is_refused_on_the_page(client, db, auth, people: People, change, message):
    auth.sign_in(people.senior)
    data = {
        "evidence-kind": "publication",
        "evidence-title": "NCCL at scale",
        "evidence-occurred_on": "2025-01-01",
        **change,
    }
    response = client.post(f"/careers/engineers/{people.senior.id}/evidence", data=data)
    assert response.status_code == 400
    assert message in response.get_data(as_text=True)
    assert count(db, Evidence) == 0


def test_self_assessment_then_the_managers_confirmation(client, db, auth, people: People):
    url = f"/careers/engineers/{people.junior.id}"
    auth.sign_in(people.junior)
    response = client.post(
        f"{url}/skills", data={"skill-speciality": "nccl", "skill-proficiency": "3"}
    )
    assert response.status_code == 302
    row = db.scalars(select(SkillAssessment)).one()
    assert (row.proficiency, row.confirmed) == (3, False)
    assert "self-assessed" in page(client, url)
    # The engineer cannot confirm their own.
    assert client.post(f"{url}/skills/nccl/confirm").status_code == 403
    client.post("/logout")

    auth.sign_in(people.manager)
    html = page(client, url)
    assert f'action="{url}/skills/nccl/confirm"' in html
    assert client.post(f"{url}/skills/nccl/confirm").status_code == 302
    newest = current_assessment(db, people.junior.id, row.speciality_id)
    assert (newest.proficiency, newest.confirmed, newest.assessed_by_id) == (
        3,
        True,
        people.manager.id,
    )
    html = page(client, url)
    assert "✔ confirmed" in html and "Proficiency history (2)" in html
    assert f'action="{url}/skills/nccl/confirm"' not in html


def test_confirming_nothing_or_an_unknown_speciality(client, db, auth, people: People):
    auth.sign_in(people.manager)
    url = f"/careers/engineers/{people.junior.id}"
    response = client.post(f"{url}/skills/nccl/confirm")
    assert response.status_code == 400
    assert "has no proficiency in NCCL collectives to confirm" in response.get_data(as_text=True)
    assert client.post(f"{url}/skills/cobol/confirm").status_code == 404
    assert count(db, SkillAssessment) == 0


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"skill-speciality": "nccl", "skill-proficiency": "7"}, "proficiency must be from 0"),
        ({"skill-speciality": "nccl", "skill-proficiency": "two"}, "proficiency must be from 0"),
        ({"skill-speciality": "cobol", "skill-proficiency": "2"}, "choose one of the listed"),
        ({"skill-proficiency": "2"}, "a speciality is required"),
    ],
)
def test_bad_proficiency_is_refused_on_the_page(client, db, auth, people: People, data, message):
    auth.sign_in(people.junior)
    response = client.post(f"/careers/engineers/{people.junior.id}/skills", data=data)
    assert response.status_code == 400
    assert message in response.get_data(as_text=True)
    assert count(db, SkillAssessment) == 0


def test_the_rotation_flags_work_across_domains(client, db, auth, people: People):
    from tracker.people.services.persons import set_job_roles

    set_job_roles(db, people.senior, ["network"], D(2024, 6, 1))
    set_job_roles(db, people.senior, ["storage", "network"], D(2025, 6, 1))
    rotation = rotation_of(people.senior)
    assert [a.job_role.code for a in rotation.assignments] == ["operations", "network", "storage"]
    assert rotation.across_domains
    assert not rotation_of(people.junior).across_domains
    auth.sign_in(people.manager)
    html = page(client, f"/careers/engineers/{people.senior.id}")
    assert "Has worked across 3 domains" in html
    assert '<time datetime="2021-01-01">Jan 1, 2021</time>' in html
    assert '<time datetime="2024-06-01">Jun 1, 2024</time>' in html
    assert "Has worked across" not in page(client, f"/careers/engineers/{people.junior.id}")
    promotions = page(client, "/careers/promotions")
    # The roles by their names (in the reader's language), not their codes.
    assert "Network Specialist, Storage Specialist <span" in promotions
    assert "(across domains)" in promotions


def test_forms_refuse_a_missing_csrf_token(client, db, auth, people: People, request):
    auth.sign_in(people.junior)
    request.getfixturevalue("csrf_enabled")
    response = client.post(
        f"/careers/engineers/{people.junior.id}/skills",
        data={"skill-speciality": "nccl", "skill-proficiency": "3"},
    )
    assert response.status_code == 400
    assert count(db, SkillAssessment) == 0
