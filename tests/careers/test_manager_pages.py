"""The managers' careers pages: promotions, a team's skill coverage, apprenticeships."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from sqlalchemy import select

from tests import factories
from tests.careers.conftest import People
from tests.careers.helpers import page, pairing
from tests.helpers import count
from tracker.careers.models import Apprenticeship
from tracker.careers.services.skills import assess, find_speciality

D = dt.date


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
