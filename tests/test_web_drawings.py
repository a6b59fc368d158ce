"""Drawings remembered (tracker.web.drawings): never the drawing of other arguments.

The menu, a page's query form and a year's chart are drawn once and shown
again; each test changes what the drawing shows and sees it change.
"""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from flask import render_template_string, url_for
from flask.testing import FlaskClient
from flask_wtf import FlaskForm
from sqlalchemy import select, update
from sqlalchemy.orm import Session
from wtforms import StringField

from tests import factories
from tests.readiness.helpers import Org, build_org, chart
from tracker.catalog.models.team_templates import TeamTemplate
from tracker.people.services.persons import set_level
from tracker.people.services.teams import update_team
from tracker.progress.services.hours import log_hours
from tracker.readiness.models import OrganisationSnapshot
from tracker.web.converters import id_url
from tracker.web.drawings import BlankQuery

SPANISH = {"Accept-Language": "es"}

pytestmark = pytest.mark.usefixtures("pinned_today")


@pytest.fixture
def org(db: Session) -> Org:
    return build_org(db)


def current_links(html: str) -> list[str]:
    return re.findall(r'<a href="([^"]+)" aria-current="page">', html)


def test_the_menu_marks_the_page_shown_in_its_language(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.admin)
    assert current_links(client.get("/teams").get_data(as_text=True)) == ["/teams"]
    assert current_links(client.get("/hours").get_data(as_text=True)) == ["/hours"]
    organisation = client.get("/organisation").get_data(as_text=True)
    assert '<summary aria-current="page">Manage</summary>' in organisation
    spanish = client.get("/organisation", headers=SPANISH).get_data(as_text=True)
    assert '<summary aria-current="page">Manage</summary>' not in spanish
    assert '<summary aria-current="page">' in spanish


def test_the_menu_is_the_access_roles(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.admin)
    assert 'href="/admin/people"' in client.get("/hours").get_data(as_text=True)
    auth.logout()
    auth.sign_in(org.mona)
    manager = client.get("/hours").get_data(as_text=True)
    assert 'href="/admin/people"' not in manager
    assert 'href="/teams"' in manager


def test_a_query_form_shows_the_query_asked(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.admin)
    for name in ("alp", "bra", "alp"):
        html = client.get(f"/organisation?name={name}").get_data(as_text=True)
        assert re.search(rf'name="name"[^>]*value="{name}"', html), name
    team = f"/teams/{org.alpha.id}"
    assert 'value="30"' in client.get(f"{team}?gpus=30").get_data(as_text=True)
    assert 'value="31"' in client.get(f"{team}?gpus=31").get_data(as_text=True)
    # The form's defaults are the team's own fleet, not the last query's.
    assert 'value="31"' not in client.get(team).get_data(as_text=True)


def test_a_refused_query_shows_its_error_then_the_next_query_none(
    client: FlaskClient, auth, org: Org
) -> None:
    auth.sign_in(org.admin)
    refused = client.get("/organisation?sort=cost")
    assert refused.status_code == 400
    assert 'aria-invalid="true"' in refused.get_data(as_text=True)
    assert 'aria-invalid="true"' not in client.get("/organisation").get_data(as_text=True)


def test_the_years_chart_follows_its_snapshots(
    client: FlaskClient, auth, db: Session, org: Org
) -> None:
    auth.sign_in(org.admin)
    before = chart(client.get("/organisation").get_data(as_text=True))
    db.execute(
        update(OrganisationSnapshot)
        .where(OrganisationSnapshot.day == factories.TODAY)
        .values(filled=0, percent_tenths=0)
    )
    after = chart(client.get("/organisation").get_data(as_text=True))
    assert after != before
    assert "(0%); lowest 0%" in " ".join(after.split())


def test_an_id_url_is_url_for_s_with_each_id(app) -> None:
    with app.test_request_context("/", base_url="http://tracker.example/mounted"):
        engineer_url = id_url("progress.engineer", "engineer_id")
        for engineer_id in (1, 7, 987654321, 2147483647):
            assert engineer_url(engineer_id) == url_for(
                "progress.engineer", engineer_id=engineer_id
            )
        assert engineer_url(7) == "/mounted/engineers/7"
        with_query = id_url("readiness.team", "team_id", gpus=8)
        assert (
            with_query(3)
            == url_for("readiness.team", team_id=3, gpus=8)
            == "/mounted/teams/3?gpus=8"
        )


def test_a_form_with_a_csrf_token_is_drawn_for_its_session_alone(app, csrf_enabled) -> None:
    """A query form that carries a CSRF token is never remembered: its token is the
    session's own."""

    class Guarded(FlaskForm):
        name = StringField("Name")

    drawn = []
    for _ in range(2):
        with app.test_request_context("/"):
            drawn.append(
                render_template_string("{{ query_form(form, '/x', 'Go') }}", form=Guarded())
            )
    tokens = [re.search(r'name="csrf_token"[^>]*value="([^"]+)"', d).group(1) for d in drawn]
    assert tokens[0] != tokens[1]


def band_options(html: str) -> list[str]:
    select = re.search(r'<select[^>]*name="band".*?</select>', html, re.S).group(0)
    return re.findall(r"<option[^>]*>([^<]*)</option>", select)


def test_the_blank_organisation_form_follows_the_catalogs_bands(
    client: FlaskClient, auth, db: Session, org: Org
) -> None:
    """The organisation page asked nothing draws its form once per catalog and language:
    a band renamed, or the page in Spanish, shows at the next request."""
    auth.sign_in(org.admin)
    template = db.scalars(select(TeamTemplate).order_by(TeamTemplate.min_gpus)).first()
    english = band_options(client.get("/organisation").get_data(as_text=True))
    assert template.name in english
    spanish = band_options(client.get("/organisation", headers=SPANISH).get_data(as_text=True))
    assert spanish != english
    assert template.name_es in spanish
    template.name = "Renamed band"
    db.flush()
    renamed = band_options(client.get("/organisation").get_data(as_text=True))
    assert "Renamed band" in renamed
    assert len(renamed) == len(english)
    # A query draws its own form, and the blank one is still the catalog's.
    asked = client.get("/organisation?name=alp").get_data(as_text=True)
    assert "Renamed band" in band_options(asked)


def test_a_blank_query_form_is_never_one_with_a_csrf_token(app, csrf_enabled) -> None:
    class Guarded(FlaskForm):
        name = StringField("Name")

    with app.test_request_context("/"), pytest.raises(TypeError, match="CSRF"):
        render_template_string(
            "{{ query_form(form, '/x', 'Go') }}", form=BlankQuery(Guarded, "guarded")
        )


def organisation_row(html: str, team: str) -> str:
    return re.search(rf"<tr><th scope=\"row\"><a [^>]*>{team}</a></th>.*?</tr>", html).group(0)


def test_the_organisation_table_follows_names_and_language(
    client: FlaskClient, auth, db: Session, org: Org
) -> None:
    auth.sign_in(org.admin)
    before = organisation_row(client.get("/organisation").get_data(as_text=True), "Alpha")
    assert "<td>Mona</td>" in before
    update_team(db, org.alpha, name="Alpha One", gpus=org.alpha.gpus, manager_id=org.otto.id)
    org.otto.name = "Otto Renamed"
    db.flush()
    after = organisation_row(client.get("/organisation").get_data(as_text=True), "Alpha One")
    assert "<td>Otto Renamed</td>" in after
    assert " of " in after
    spanish = client.get("/organisation", headers=SPANISH).get_data(as_text=True)
    assert " de " in organisation_row(spanish, "Alpha One")
    assert "Puestos cubiertos" in spanish


def test_the_heat_map_and_path_progress_follow_their_members(
    client: FlaskClient, auth, db: Session, org: Org
) -> None:
    auth.sign_in(org.admin)
    team = f"/teams/{org.alpha.id}"
    before = client.get(team).get_data(as_text=True)
    assert re.search(r">Ada</a> <small class=\"muted\">L3</small>", before)
    set_level(db, org.ada, 4, org.admin, factories.TODAY)
    org.ada.name = "Ada Renamed"
    db.flush()
    after = client.get(team).get_data(as_text=True)
    assert re.search(r">Ada Renamed</a> <small class=\"muted\">L4</small>", after)
    assert f'<header><a href="/engineers/{org.ada.id}">Ada Renamed</a></header>' in after
    bar = rf'<progress id="p-{org.ada.id}-[^"]+" value="([^"]+)"'
    bars = re.findall(bar, after)
    log_hours(
        db, org.ada, factories.course(db, "FDL"), factories.TODAY, Decimal(8), factories.TODAY
    )
    logged = client.get(team).get_data(as_text=True)
    assert re.findall(bar, logged) != bars
