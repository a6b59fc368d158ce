"""The plan to a target (docs/domain.md section 7): the planning service and its page.

Every date is fixed; TODAY (2026-11-29) is the date the services are told it is, and
the date pinned in app.config for the page.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from decimal import Decimal

import pytest
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import field_error, section, table, text
from tests.readiness.helpers import DASH, FAR, TODAY, D, Org, person, team_page
from tracker.errors import ValidationError
from tracker.i18n import translate
from tracker.people.models import Team
from tracker.progress.services.hours import log_hours
from tracker.readiness.rules import SANE_WEEKLY_HOURS
from tracker.readiness.services.planning import Plan, load_catalog, plan_to_target

pytestmark = pytest.mark.usefixtures("pinned_today")


# --- the planning service -------------------------------------------------------------


def costs_by_code(plan: Plan) -> dict[str, tuple[int | None, int | None, str]]:
    return {c.strategy.code: (c.low, c.high, c.note) for c in plan.costs}


def financial_team(db: Session):
    """DOMAIN 7: "5 traditional IT engineers, no GPU experience, must run 500 H100
    GPUs within 6 months" - level 1 operations engineers hired on TODAY."""
    crew = factories.team(db, gpus=0)
    for n in range(1, 6):
        person(db, f"Fin {n}", crew, level=1, hired_on=TODAY)
    return crew


def test_financial_services_case(db: Session) -> None:
    """DOMAIN 7 (financial services) with DOMAIN 4 (medium template for 500 GPUs)
    and DOMAIN 5 ("Bootcamp ... 15,000-25,000 per participant"; "Vendor
    partnership ... 50-70 % off list price for groups of 10 or more";
    "Apprenticeship ... mostly senior time: about 20 % productivity loss")."""
    crew = financial_team(db)

    plan = plan_to_target(db, crew, 500, D(2027, 5, 29), TODAY)

    assert plan.template.code == "medium"
    assert len(plan.seats) == 10
    assert plan.ready == []
    # Four operations seats, each a trainee on the Foundations path.
    assert len(plan.trainees) == 4
    assert {p.seat.slot.job_role.code for p in plan.trainees} == {"operations"}
    assert len({p.member.id for p in plan.trainees}) == 4
    for p in plan.trainees:
        t = p.training
        assert [path.code for path in t.paths] == ["FOUNDATIONS"]
        assert t.remaining_hours == Decimal(48)
        assert t.to_level == 2  # level 2 needs NCA-AIIO and 6 months: met on the target
        assert t.hours_per_week == Decimal("1.9")  # 48 h over 181 days
        assert not t.overloaded
    # Six seats need hires.
    hires = Counter(p.seat.slot.job_role.code for p in plan.hires)
    assert hires == {"architect": 1, "senior": 2, "network": 2, "storage": 1}
    # Costs by strategy.
    costs = costs_by_code(plan)
    assert costs["bootcamp"] == (4 * 15000, 4 * 25000, "4 x $15,000-$25,000 a participant")
    low, high, note = costs["vendor-partnership"]
    assert (low, high) == (4 * 15000, 4 * 25000)
    assert "no discount" in note and "10" in note
    low, high, note = costs["apprenticeship"]
    assert (low, high) == (None, None)
    assert "senior" in note
    assert costs["internal-track"][:2] == (None, None)
    # Yearly cost from the level salary bands of each seat, beside the template's range.
    # architect L5 250-400k; 2 seniors L4 175-250k; 4 operations L2-3 95-175k;
    # 2 network L3-4 125-250k; storage L3 125-175k.
    assert plan.yearly_cost == (1_355_000, 2_275_000)
    assert (plan.template.cost_min, plan.template.cost_max) == (1_200_000, 1_600_000)
    assert [p.salary_range for p in plan.seats if p.seat.slot.job_role.code == "architect"] == [
        (250_000, 400_000)
    ]


def test_financial_case_prefers_trainees_with_fewer_hours_left(db: Session) -> None:
    crew = financial_team(db)
    keen = person(db, "Keen", crew, level=1, hired_on=TODAY)
    log_hours(db, keen, factories.course(db, "FDL"), TODAY, Decimal(8), TODAY)

    plan = plan_to_target(db, crew, 500, D(2027, 5, 29), TODAY)

    hours = {p.member.name: p.training.remaining_hours for p in plan.trainees}
    assert hours["Keen"] == Decimal(40)
    assert len(hours) == 4


def test_financial_case_without_enough_time_for_level_2_hires_everyone(db: Session) -> None:
    """DOMAIN 1 rule: "Level 2: a valid NCA-AIIO and 6 months." Five months after
    hiring, nobody can reach the operations seats' level 2."""
    crew = financial_team(db)
    plan = plan_to_target(db, crew, 500, D(2027, 4, 29), TODAY)
    assert plan.trainees == []
    assert len(plan.hires) == 10
    assert all(c.low in (0, None) for c in plan.costs)


def level2_trainee_team(db: Session, **extra: object):
    """A small team with one level-2 operations engineer without a certification."""
    crew = factories.team(db, gpus=50)
    who = person(db, "Trainee", crew, level=2, experience_months=12, **extra)
    return crew, who


def test_an_overloaded_plan(db: Session) -> None:
    """The hours per week each needs to finish in time, flagged
    where that exceeds a sane weekly load."""
    crew, _ = level2_trainee_team(db)
    plan = plan_to_target(db, crew, 50, TODAY + dt.timedelta(weeks=2), TODAY)
    (trainee,) = plan.trainees
    assert trainee.training.remaining_hours == Decimal(48)
    assert trainee.training.to_level is None
    assert trainee.training.hours_per_week == Decimal("24.0")
    assert trainee.training.hours_per_week > SANE_WEEKLY_HOURS
    assert trainee.training.overloaded is True


@pytest.mark.parametrize(
    ("days", "per_week", "overloaded"), [(28, "10.0", False), (27, "10.4", True)]
)
def test_overload_threshold(db: Session, days: int, per_week: str, overloaded: bool) -> None:
    """SANE_WEEKLY_HOURS = 10: exactly 10 h a week is not an excess; more is."""
    crew, who = level2_trainee_team(db)
    log_hours(db, who, factories.course(db, "FDL"), TODAY, Decimal(8), TODAY)
    plan = plan_to_target(db, crew, 50, TODAY + dt.timedelta(days=days), TODAY)
    (trainee,) = plan.trainees
    assert trainee.training.remaining_hours == Decimal(40)
    assert trainee.training.hours_per_week == Decimal(per_week)
    assert trainee.training.overloaded is overloaded


def test_people_already_ready_stay_ready(db: Session) -> None:
    crew, _ = level2_trainee_team(db)
    person(db, "Ready", crew, level=2, certs={"NCA-AIIO": FAR})
    plan = plan_to_target(db, crew, 50, D(2027, 5, 29), TODAY)
    assert [(p.member.name, p.training) for p in plan.ready] == [("Ready", None)]
    assert [p.member.name for p in plan.trainees] == ["Trainee"]
    assert len(plan.hires) == 2  # lead and network


def test_a_certification_lapsing_before_the_target_needs_training(db: Session) -> None:
    """Readiness is judged on the target date, assuming no renewals."""
    crew = factories.team(db, gpus=50)
    person(db, "Lapsing", crew, level=2, certs={"NCA-AIIO": D(2027, 1, 31)})
    plan = plan_to_target(db, crew, 50, D(2027, 5, 29), TODAY)
    assert plan.ready == []
    assert [p.member.name for p in plan.trainees] == ["Lapsing"]


def test_nobody_to_train(db: Session) -> None:
    crew = factories.team(db, gpus=50)
    person(db, "Ready", crew, level=2, certs={"NCA-AIIO": FAR})
    plan = plan_to_target(db, crew, 50, D(2027, 5, 29), TODAY)
    assert plan.trainees == []
    assert all((c.low, c.high) == (0, 0) for c in plan.costs)


def test_apprenticeship_cost_with_a_senior(db: Session) -> None:
    """DOMAIN 5: "Apprenticeship | juniors shadow seniors 3-6 months ... about 20 %
    productivity loss" - costed from the senior's level salary midpoint."""
    crew, _ = level2_trainee_team(db)
    person(db, "Senior", crew, roles=("senior",), level=4)
    plan = plan_to_target(db, crew, 50, D(2027, 5, 29), TODAY)
    assert len(plan.trainees) == 1
    low, high, note = costs_by_code(plan)["apprenticeship"]
    yearly = (175_000 + 250_000) // 2 * 20 // 100  # level 4 midpoint, 20 %
    assert (low, high) == (yearly * 13 // 52, yearly * 26 // 52)
    assert "20% of Senior's time (level 4 midpoint $212,500)" in note
    assert "(punto medio del nivel 4: 212.500\N{NO-BREAK SPACE}US$)" in translate(note, "es")


@pytest.mark.parametrize("target", [TODAY, TODAY - dt.timedelta(days=1)])
def test_target_date_must_be_after_today(db: Session, target: dt.date) -> None:
    crew = factories.team(db, gpus=50)
    with pytest.raises(ValidationError) as caught:
        plan_to_target(db, crew, 50, target, TODAY)
    assert list(caught.value.errors) == ["target"]


@pytest.mark.parametrize("gpus", [-1, True, 1.5, "500"])
def test_fleet_size_must_be_a_whole_number(db: Session, gpus: object) -> None:
    crew = factories.team(db, gpus=50)
    with pytest.raises(ValidationError) as caught:
        plan_to_target(db, crew, gpus, D(2027, 5, 29), TODAY)  # type: ignore[arg-type]
    assert list(caught.value.errors) == ["gpus"]


def ops_and_storage_team(db: Session, size: int):
    """Level-3 engineers able to work operations or storage, no certifications.

    On the large template they can train for the 8 operations and 2 storage seats.
    """
    crew = factories.team(db, gpus=1000)
    for n in range(size):
        person(
            db,
            f"Crew {n:02d}",
            crew,
            roles=("operations", "storage"),
            level=3,
            experience_months=24,
        )
    return crew


def test_vendor_discount_with_ten_or_more_trainees(db: Session) -> None:
    """DOMAIN 5: "Vendor partnership ... 50-70 % off list price for groups of 10 or more"."""
    crew = ops_and_storage_team(db, 12)
    plan = plan_to_target(db, crew, 1000, D(2027, 5, 29), TODAY)
    assert plan.template.code == "large"
    assert len(plan.trainees) == 10
    assert Counter(p.seat.slot.job_role.code for p in plan.trainees) == {
        "operations": 8,
        "storage": 2,
    }
    costs = costs_by_code(plan)
    assert costs["bootcamp"][:2] == (150_000, 250_000)
    low, high, note = costs["vendor-partnership"]
    assert (low, high) == (150_000 * 30 // 100, 250_000 * 50 // 100)
    assert "50-70% off list price" in note


def test_no_vendor_discount_with_nine_trainees(db: Session) -> None:
    crew = ops_and_storage_team(db, 9)
    plan = plan_to_target(db, crew, 1000, D(2027, 5, 29), TODAY)
    assert len(plan.trainees) == 9
    low, high, note = costs_by_code(plan)["vendor-partnership"]
    assert (low, high) == (9 * 15_000, 9 * 25_000)
    assert "no discount" in note


def test_load_catalog(db: Session) -> None:
    catalog = load_catalog(db)
    assert [t.code for t in catalog.templates] == ["small", "medium", "large"]
    assert sorted(catalog.levels) == [1, 2, 3, 4, 5]
    assert set(catalog.strategies) == {
        "bootcamp",
        "apprenticeship",
        "vendor-partnership",
        "internal-track",
    }
    associate = factories.credential(db, "NVIDIA-ASSOCIATE+")
    assert catalog.path_for(associate).code == "FOUNDATIONS"
    assert catalog.path_for(factories.credential(db, "NCP-AII")).code == "PROFESSIONAL"
    assert catalog.path_for(factories.credential(db, "NVIDIA-NETWORKING")) is None


# --- the plan page --------------------------------------------------------------------


@pytest.fixture
def financial(db: Session, org: Org) -> Team:
    """DOMAIN 7: "5 traditional IT engineers, no GPU experience, must run 500 H100 GPUs
    within 6 months" - level 1 operations engineers hired on TODAY, Mona's team."""
    crew = factories.team(db, gpus=0, name="Financial", manager=org.mona)
    for n in range(1, 6):
        person(db, f"Fin {n}", crew, level=1, hired_on=TODAY)
    return crew


def test_plan_for_the_financial_services_case(
    client: FlaskClient, auth, org: Org, financial: Team
) -> None:
    auth.sign_in(org.mona)
    response = client.get(f"/teams/{financial.id}/plan?gpus=500&target=2027-05-29")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    page = text(html)
    assert (
        "Medium (100-1,000 GPUs) for 500 GPUs by May 29, 2027: 0 ready, 4 to train, 6 to hire."
    ) in page
    trainees = [[cell[0] for cell in row] for row in table(html, header="Engineer")[1:]]
    assert len(trainees) == 4
    for row in trainees:
        assert row[0].startswith("Fin ")
        assert row[1:5] == ["Operations Engineer", "Foundations", "48", "1.9"]
        assert row[5] == "promote to 2 once the rule is met"
    assert "above 10 h a week" not in page
    hires = section(html, "<h2>Hires</h2>", "</ul>")
    assert hires.count("/yr") == 6
    assert f"Infrastructure Architect (level 5), $250,000{DASH}$400,000/yr" in hires
    costs = {row[0][0]: [cell[0] for cell in row] for row in table(html, header="Strategy")[1:]}
    assert costs["Bootcamp immersion"][1] == f"$60,000{DASH}$100,000"
    assert costs["Vendor partnership"][1] == f"$60,000{DASH}$100,000"
    assert "no discount" in costs["Vendor partnership"][2]
    assert "senior" in costs["Apprenticeship"][2]
    assert costs["Apprenticeship"][1] == "—"
    assert f"$1,355,000{DASH}$2,275,000" in page
    assert f"$1,200,000{DASH}$1,600,000" in page
    # The form keeps what was asked.
    assert 'name="gpus" required type="text" value="500"' in html
    assert 'name="target" required type="date" value="2027-05-29"' in html


def test_plan_without_a_query_shows_the_form_only(
    client: FlaskClient, auth, org: Org, financial: Team
) -> None:
    auth.sign_in(org.mona)
    response = client.get(f"/teams/{financial.id}/plan")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "<h2>Hires</h2>" not in html
    assert 'class="field-error"' not in html


@pytest.mark.parametrize(("query", "gpus"), [("?gpus=500", "500"), ("", "0"), ("?gpus=abc", "0")])
def test_plan_opened_from_the_team_page_shows_the_form_without_errors(
    client: FlaskClient, auth, org: Org, financial: Team, query: str, gpus: str
) -> None:
    """The team page's link carries the fleet size it shows and no target date: the form
    starts from that fleet size (the team's own without one) and says nothing is wrong."""
    auth.sign_in(org.mona)
    _, team_html = team_page(client, financial, "?gpus=500")
    assert f'href="/teams/{financial.id}/plan?gpus=500"' in team_html
    response = client.get(f"/teams/{financial.id}/plan{query}")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert 'class="field-error"' not in html
    assert "aria-invalid" not in html
    assert "a target date is required" not in html
    assert f'name="gpus" required type="text" value="{gpus}"' in html
    # Six months ahead of today (2026-11-29), ready to plan.
    assert 'name="target" required type="date" value="2027-05-29"' in html
    assert "<h2>Hires</h2>" not in html


def test_plan_flags_an_overloaded_week(client: FlaskClient, auth, db: Session, org: Org) -> None:
    """Flagged where that exceeds a sane weekly load (48 h in 2 weeks)."""
    crew = factories.team(db, gpus=50, name="Rushed", manager=org.mona)
    person(db, "Rush", crew, level=2, experience_months=12)
    auth.sign_in(org.mona)
    response = client.get(f"/teams/{crew.id}/plan?gpus=50&target=2026-12-13")
    assert response.status_code == 200
    rows = [[cell[0] for cell in row] for row in table(response.get_data(as_text=True), "compact")]
    (rush,) = [row for row in rows if row and row[0] == "Rush"]
    assert rush[3] == "48"
    assert rush[4] == "24 ⚠ above 10 h a week"


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ("?target=2027-05-29", "gpus", "a target fleet size is required"),
        ("?gpus=&target=2027-05-29", "gpus", "a target fleet size is required"),
        ("?gpus=abc&target=2027-05-29", "gpus", "must be a whole number"),
        ("?gpus=-5&target=2027-05-29", "gpus", "GPUs must be from 0 to 10,000,000"),
        ("?gpus=500&target=", "target", "a target date is required"),
        ("?gpus=500&target=soon", "target", "must be a date written YYYY-MM-DD"),
        ("?gpus=500&target=2026-01-01", "target", "the target date must be after today"),
        ("?gpus=500&target=2026-11-29", "target", "the target date must be after today"),
    ],
)
def test_plan_bad_input_answers_400_with_the_message_next_to_the_field(
    client: FlaskClient, auth, org: Org, financial: Team, query: str, field: str, message: str
) -> None:
    auth.sign_in(org.mona)
    response = client.get(f"/teams/{financial.id}/plan{query}")
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert message in field_error(html, field)
    assert f'aria-describedby="{field}-error" aria-invalid="true" id="{field}"' in html
    assert "<h2>Hires</h2>" not in html
