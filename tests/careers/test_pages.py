"""The careers pages: dashboard section, career page forms, promotions, coverage,
apprenticeships, the bonus ledger with its CSV and the bonus amounts; who may see what."""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from decimal import Decimal

import pytest
from flask.testing import FlaskClient
from sqlalchemy import select

from tests import factories
from tests.careers.conftest import People
from tests.helpers import count
from tracker.careers.models import Apprenticeship, CertificationBonus, Evidence, SkillAssessment
from tracker.careers.services.bonuses import set_bonus
from tracker.careers.services.rotation import rotation as rotation_of
from tracker.careers.services.skills import assess, current_assessment, find_speciality
from tracker.people.models import LevelChange
from tracker.people.services.persons import set_level

D = dt.date
TODAY = factories.TODAY  # 2026-11-29


def page(client: FlaskClient, url: str, status: int = 200) -> str:
    response = client.get(url)
    assert response.status_code == status, url
    return response.get_data(as_text=True)


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


# --- promotions and coverage ---------------------------------------------------------------


def test_promotions_page(client, db, auth, people: People):
    factories.certification(db, people.junior, "NCA-AIIO", D(2026, 1, 1), D(2028, 1, 1))
    auth.sign_in(people.manager)
    html = page(client, "/careers/promotions")
    ready, others = html.split("<h2>Not yet")
    assert "Jules Junior" in ready and "level 2 · Operational" in ready
    assert "Remy Report" in others and "a valid NCP-AII" in others
    assert "Otto Outsider" not in html
    client.post("/logout")
    auth.sign_in(people.junior)
    page(client, "/careers/promotions", 403)


def test_promotions_name_the_top_of_the_ladder_apart(client, db, auth, people: People):
    factories.engineer(db, name="Tess Top", team=people.team, level=5)
    auth.sign_in(people.manager)
    html = page(client, "/careers/promotions")
    others, top = html.split("<h2>Not yet")[1].split("<h2>At the top of the ladder (1)")
    assert "Tess Top" not in others
    assert "Tess Top" in top and "Sasha Senior" not in top


def test_coverage_page(client, db, auth, people: People):
    p = people
    assess(db, p.senior, find_speciality(db, "mig"), 4, p.manager)
    assess(db, p.junior, find_speciality(db, "mig"), 2, p.junior)
    auth.sign_in(people.manager)
    assert f'href="/careers/teams/{p.team.id}/skills"' in page(client, f"/teams/{p.team.id}")
    html = page(client, f"/careers/teams/{p.team.id}/skills")
    assert "Single points of failure (1)" in html
    assert "MIG partitioning: only Sasha Senior" in html
    # What nobody holds is worse than one holder, and said as plainly.
    # Held means at 3 or above: the junior's self-assessed 2 is no holder, and it says so.
    nobody = re.search(r"(\d+) specialities nobody holds at 3 or above: ([^<]*)\.", html)
    assert nobody and int(nobody.group(1)) == html.count("✖ nobody") > 0
    assert "MIG partitioning" not in nobody.group(2)
    client.post("/logout")
    auth.sign_in(people.other_manager)
    page(client, f"/careers/teams/{p.team.id}/skills", 403)
    page(client, "/careers/teams/999999/skills", 404)


# --- apprenticeships ----------------------------------------------------------------------


def pairing(people: People, **change) -> dict[str, str]:
    data = {
        "junior": str(people.junior.id),
        "senior": str(people.senior.id),
        "path": "",
        "starts_on": "2026-12-01",
        "months": "3",
        "note": "",
    }
    data.update(change)
    return data


def test_a_manager_pairs_a_junior_with_a_senior(client, db, auth, people: People):
    auth.sign_in(people.manager)
    assert "Pair a junior with a senior" in page(client, "/careers/apprenticeships")
    response = client.post("/careers/apprenticeships", data=pairing(people))
    assert response.status_code == 302
    row = db.scalars(select(Apprenticeship)).one()
    assert (row.junior_id, row.senior_id, row.ends_on) == (
        people.junior.id,
        people.senior.id,
        D(2027, 3, 1),
    )
    html = page(client, "/careers/apprenticeships")
    assert "$10,625" in html and "20% x $212,500 (level 4 midpoint) x 3/12" in html
    assert "$10,625" in page(client, f"/careers/engineers/{people.junior.id}")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"months": "13"}, "months must be from 1 to 12"),
        ({"months": "0"}, "months must be from 1 to 12"),
        ({"months": ""}, "a number of months is required"),
        ({"senior": "junior"}, "two different people"),
        ({"junior": "senior", "senior": "manager"}, "level must be above the junior&#39;s"),
        ({"junior": "outsider"}, "choose one of your people"),
        ({"starts_on": ""}, "a date is required"),
        ({"path": "999999"}, "choose one of the listed paths"),
    ],
)
def test_bad_pairings_are_refused_on_the_page(client, db, auth, people: People, change, message):
    auth.sign_in(people.manager)
    for key, value in change.items():
        if value in ("junior", "senior", "manager", "outsider"):
            change[key] = str(getattr(people, value).id)
    response = client.post("/careers/apprenticeships", data=pairing(people, **change))
    assert response.status_code == 400
    assert message in response.get_data(as_text=True)
    assert count(db, Apprenticeship) == 0


def test_engineers_do_not_pair(client, auth, people: People):
    auth.sign_in(people.senior)
    page(client, "/careers/apprenticeships", 403)
    assert client.post("/careers/apprenticeships", data=pairing(people)).status_code == 403


# --- bonuses ----------------------------------------------------------------------------


def csv_rows(client: FlaskClient, url: str) -> list[list[str]]:
    response = client.get(url)
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    return list(csv.reader(io.StringIO(response.get_data(as_text=True))))


def test_the_ledger_page_and_csv_for_an_admin(client, auth, people, earned: People):
    auth.sign_in(people.admin)
    html = page(client, "/careers/bonuses?quarter=2026-Q4")
    assert "Certification bonuses · 2026-Q4" in html
    assert "Jules Junior" in html and "$1,500" in html
    assert page(client, "/careers/bonuses").count("2026-Q4") >= 1  # today's quarter
    rows = csv_rows(client, "/careers/bonuses.csv?quarter=2026-Q4")
    assert rows[0] == [
        "quarter",
        "engineer",
        "email",
        "certification",
        "name",
        "passed_on",
        "renewal",
        "amount",
    ]
    assert rows[1] == [
        "2026-Q4",
        "Jules Junior",
        earned.junior.email,
        "NCA-AIIO",
        "NVIDIA Certified Associate - AI Infrastructure and Operations",
        "2026-10-01",
        "no",
        "500.00",
    ]
    assert [r[1] for r in rows[1:]] == ["Jules Junior", "Remy Report", "'=HYPERLINK(evil)"]
    assert csv_rows(client, "/careers/bonuses.csv?quarter=2026-Q3") == [rows[0]]


def test_managers_and_engineers_see_their_rows(client, auth, people, earned: People):
    auth.sign_in(people.manager)
    rows = csv_rows(client, "/careers/bonuses.csv?quarter=2026-Q4")
    assert [r[1] for r in rows[1:]] == ["Jules Junior", "Remy Report"]
    html = page(client, "/careers/bonuses?quarter=2026-Q4")
    assert "HYPERLINK" not in html
    client.post("/logout")
    auth.sign_in(people.junior)
    rows = csv_rows(client, "/careers/bonuses.csv?quarter=2026-Q4")
    assert [r[1] for r in rows[1:]] == ["Jules Junior"]


@pytest.mark.parametrize("quarter", ["2026-Q5", "2026Q4", "last"])
def test_a_malformed_quarter_is_400(client, auth, people, earned: People, quarter):
    auth.sign_in(people.admin)
    response = client.get(f"/careers/bonuses?quarter={quarter}")
    assert response.status_code == 400
    assert "quarter must be written YYYY-Qn" in response.get_data(as_text=True)
    assert client.get(f"/careers/bonuses.csv?quarter={quarter}").status_code == 400


@pytest.mark.parametrize("quarter", ["0001-Q1", "9999-Q4"])
def test_a_quarter_of_a_year_out_of_range_says_the_range(
    client, auth, people, earned: People, quarter
):
    auth.sign_in(people.admin)
    rule = "the year must be from 1970 to 2999 (quarters 1970-Q1 to 2999-Q4)"
    response = client.get(f"/careers/bonuses?quarter={quarter}")
    assert response.status_code == 400
    assert rule in response.get_data(as_text=True)
    assert "YYYY-Qn, Q1 to Q4" not in response.get_data(as_text=True)
    download = client.get(f"/careers/bonuses.csv?quarter={quarter}")
    assert download.status_code == 400
    assert rule in download.get_data(as_text=True)


def test_an_admin_sets_bonus_amounts(client, db, auth, people: People):
    auth.sign_in(people.admin)
    assert "No bonus set." in page(client, "/careers/bonuses/amounts")
    response = client.post(
        "/careers/bonuses/amounts",
        data={
            "credential": "NCP-AII",
            "amount": "1250.50",
            "renewals_earn": "y",
            "effective_on": "2026-10-01",
        },
    )
    assert response.status_code == 302
    row = db.scalars(select(CertificationBonus)).one()
    assert (row.credential.code, row.amount, row.renewals_earn, row.effective_on) == (
        "NCP-AII",
        Decimal("1250.50"),
        True,
        D(2026, 10, 1),
    )
    html = page(client, "/careers/bonuses/amounts")
    assert "NCP-AII: bonus $1,250.50 (renewals earn it too), for certifications passed" in html
    assert "$1,250.50" in html and "from 2026-10-01" in html
    # The form offers today as the date a new amount takes effect.
    assert 'value="2026-11-29"' in html


def test_the_amounts_page_keeps_earlier_amounts_with_their_dates(client, db, auth, people):
    for amount, day in (("500", D(2025, 1, 1)), ("800", D(2026, 6, 1))):
        set_bonus(
            db, factories.credential(db, "NCA-AIIO"), Decimal(amount), effective_on=day, today=TODAY
        )
    auth.sign_in(people.admin)
    html = page(client, "/careers/bonuses/amounts")
    current, earlier = html.split("<h2>Earlier amounts")
    assert "$800" in current and "from 2026-06-01" in current
    assert "$500" in earlier and "from 2025-01-01 to 2026-05-31" in earlier


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"credential": "NCP-AII", "amount": "-1"}, "“Amount (USD)” must be at least 0"),
        ({"credential": "NCP-AII", "amount": "2000000"}, "at most 1000000"),
        ({"credential": "NCP-AII", "amount": "1.234"}, "“Amount (USD)” must have at most 2"),
        ({"credential": "NCP-AII", "amount": ""}, "an amount is required"),
        ({"credential": "NVIDIA-PROFESSIONAL", "amount": "5"}, "choose one of the listed"),
        ({"credential": "NOPE", "amount": "5"}, "choose one of the listed certifications"),
        (
            {"credential": "NCP-AII", "amount": "5", "effective_on": ""},
            "effective from is required (YYYY-MM-DD)",
        ),
        (
            {"credential": "NCP-AII", "amount": "5", "effective_on": "2026-11-30"},
            "effective from must not be after today (2026-11-29)",
        ),
        ({"credential": "NCP-AII", "amount": "5", "effective_on": "1969-12-31"}, "1970-01-01"),
        ({"credential": "NCP-AII", "amount": "5", "effective_on": "29/11/2026"}, "date"),
    ],
)
def test_bad_bonus_amounts_are_refused(client, db, auth, people: People, data, message):
    auth.sign_in(people.admin)
    response = client.post("/careers/bonuses/amounts", data={"effective_on": "2026-11-01", **data})
    assert response.status_code == 400
    assert message in response.get_data(as_text=True)
    assert count(db, CertificationBonus) == 0


def test_only_admins_set_bonus_amounts(client, db, auth, people: People):
    auth.sign_in(people.manager)
    page(client, "/careers/bonuses/amounts", 403)
    response = client.post(
        "/careers/bonuses/amounts", data={"credential": "NCP-AII", "amount": "5"}
    )
    assert response.status_code == 403
    assert count(db, CertificationBonus) == 0


def test_forms_refuse_a_missing_csrf_token(client, db, auth, people: People, request):
    auth.sign_in(people.junior)
    request.getfixturevalue("csrf_enabled")
    response = client.post(
        f"/careers/engineers/{people.junior.id}/skills",
        data={"skill-speciality": "nccl", "skill-proficiency": "3"},
    )
    assert response.status_code == 400
    assert count(db, SkillAssessment) == 0
