"""The team page (/teams/<id>): seats, gaps, heat map, forecast, certifications, print view."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

import pytest
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import field_error, section, table, text
from tests.readiness.helpers import BEN_EXPIRY, DASH, FAR, D, Org, person, team_page
from tracker.people.services.persons import set_active
from tracker.progress.models import HourLog

TIMES = (
    "\N{MULTIPLICATION SIGN}"  # grouped open seats: 7 \N{MULTIPLICATION SIGN} Operations Engineer
)


pytestmark = pytest.mark.usefixtures("pinned_today")


def test_team_page_summary_and_seats(client: FlaskClient, auth, org: Org) -> None:
    """Template, slots filled / total, percent, each slot with who fills it."""
    auth.sign_in(org.mona)
    status, html = team_page(client, org.alpha)
    assert status == 200
    page = text(html)
    assert "Alpha" in page
    assert "50 GPUs → Small (10-100 GPUs) template" in page
    assert "2 of 4 seats filled · 50% ready on Nov 29, 2026" in page
    seats = [[cell[0] for cell in row] for row in table(html, header="Seat")[1:]]
    assert seats == [
        ["Infrastructure Lead", "4", "✖ open"],
        ["Operations Engineer", f"2{DASH}3", "✔ Ben"],
        ["Operations Engineer", f"2{DASH}3", "✖ open"],
        ["Network Specialist", "3", "✔ Ada"],
    ]
    # The form shows what was asked: the team's own fleet and today.
    assert 'name="gpus" type="text" value="50"' in html
    assert 'name="on" type="date" value="2026-11-29"' in html


def test_team_page_gaps_name_the_nearest_candidates_and_what_each_lacks(
    client: FlaskClient, auth, org: Org
) -> None:
    """Each unfilled slot with the nearest candidates and exactly what
    each lacks; Ada and Ben are placed, so Cy is the only candidate."""
    auth.sign_in(org.mona)
    _, html = team_page(client, org.alpha)
    gaps = section(html, "<h2>Gaps</h2>", "</section>")
    assert (
        "Infrastructure Lead (level 4, NVIDIA-PROFESSIONAL, VENDOR-EXPERT) open — nearest: "
        "Cy lacks job role Infrastructure Lead, level 4 (is 2), certification NVIDIA-PROFESSIONAL, "
        "certification VENDOR-EXPERT"
    ) in gaps
    assert (
        f"Operations Engineer (level 2{DASH}3, NVIDIA-ASSOCIATE+) open — nearest: "
        "Cy lacks valid NCA-AIIO (it was valid through 2026-06-01)"
    ) in gaps
    assert "Network Specialist" not in gaps  # Ada fills it
    assert "Ada lacks" not in gaps and "Ben lacks" not in gaps  # placed people are not offered
    # Training gives certifications, not a job role or a level: the lead's seat
    # (Cy is no lead, and level 2) says so; the operations seat is Cy's to train for.
    assert gaps.count("or hire") == 1
    lead, operations = gaps.split("Operations Engineer")
    assert "or hire (training gives certifications; none of them has the job role" in lead
    assert "hire" not in operations


def test_team_page_says_hire_where_nobody_is_left(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.admin)
    _, html = team_page(client, org.bravo)
    gaps = section(html, "<h2>Gaps</h2>", "</section>")
    assert "1 of 4 seats filled" in text(html)
    assert "Infrastructure Lead (level 4, NVIDIA-PROFESSIONAL, VENDOR-EXPERT) open — hire" in gaps
    assert f"Operations Engineer (level 2{DASH}3, NVIDIA-ASSOCIATE+) open — hire" in gaps
    assert "Network Specialist (level 3, NVIDIA-NETWORKING) open — hire" in gaps
    assert gaps.count("hire") == 3
    assert "nearest" not in gaps


def test_a_full_team_has_no_gaps(client: FlaskClient, auth, db: Session) -> None:
    boss = factories.engineer(db, name="Boss", access_role="manager")
    crew = factories.team(db, gpus=20, name="Full", manager=boss)
    person(
        db,
        "Lead",
        crew,
        roles=("lead",),
        level=4,
        certs={"NCP-AIO": FAR, "VENDOR-EXPERT": None},
    )
    person(db, "Op1", crew, certs={"NCA-AIIO": FAR})
    person(db, "Op2", crew, level=3, certs={"NCA-AIIO": FAR})
    person(db, "Net", crew, roles=("network",), level=3, certs={"NVIDIA-NETWORKING": None})
    auth.sign_in(boss)
    _, html = team_page(client, crew)
    assert "4 of 4 seats filled · 100%" in text(html)
    assert "Every seat is filled." in section(html, "<h2>Gaps</h2>", "</section>")


def test_team_wide_certifications_met_and_missing(client: FlaskClient, auth, org: Org) -> None:
    """DOMAIN 4: the medium template "additionally" lists CKA, RHCE and VCP-DCV; Ada's
    CKA meets the first for the team."""
    auth.sign_in(org.mona)
    status, html = team_page(client, org.alpha, "?gpus=500")
    assert status == 200
    page = text(html)
    assert "500 GPUs → Medium (100-1,000 GPUs) template" in page
    assert "of 10 seats filled" in page
    wide = section(html, "<h3>Team-wide certifications</h3>", "</ul>")
    # A name that carries its code in brackets is not followed by it again.
    assert "✔ met Certified Kubernetes Administrator (CKA): Ada" in wide
    assert "✖ missing Red Hat Certified Engineer (RHCE)" in wide
    assert "(CKA) (CKA)" not in wide and "(RHCE) (RHCE)" not in wide
    assert "✖ missing VMware Certified Professional - Data Center Virtualization (VCP-DCV)" in wide


def test_the_small_template_has_no_team_wide_certifications(
    client: FlaskClient, auth, org: Org
) -> None:
    auth.sign_in(org.mona)
    _, html = team_page(client, org.alpha)
    assert "Team-wide certifications" not in html


@pytest.mark.parametrize(
    ("gpus", "template", "total"),
    [
        (9, "Small (10-100 GPUs)", 4),
        (99, "Small (10-100 GPUs)", 4),
        (100, "Medium (100-1,000 GPUs)", 10),
        (1000, "Large (1,000+ GPUs)", 22),
    ],
)
def test_the_template_follows_the_fleet_asked_for(
    client: FlaskClient, auth, org: Org, gpus: int, template: str, total: int
) -> None:
    auth.sign_in(org.mona)
    status, html = team_page(client, org.alpha, f"?gpus={gpus}")
    assert status == 200
    page = text(html)
    assert f"{gpus:,} GPUs → {template} template" in page
    assert f"of {total} seats filled" in page
    assert f'name="gpus" type="text" value="{gpus}"' in html
    seats = table(html, header="Seat")[1:]
    assert len(seats) == total


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ("?gpus=-1", "gpus", "GPUs must be from 0 to 10,000,000"),
        ("?gpus=abc", "gpus", "must be a whole number"),
        ("?gpus=2.5", "gpus", "must be a whole number"),
        ("?on=not-a-date", "on", "must be a date written YYYY-MM-DD"),
        ("?on=2027-02-30", "on", "must be a date written YYYY-MM-DD"),
        ("?gpus=10&on=2027-13-01", "on", "must be a date written YYYY-MM-DD"),
    ],
)
def test_bad_query_answers_400_with_the_message_next_to_the_field(
    client: FlaskClient, auth, org: Org, query: str, field: str, message: str
) -> None:
    auth.sign_in(org.mona)
    status, html = team_page(client, org.alpha, query)
    assert status == 400
    assert message in field_error(html, field)
    assert f'aria-describedby="{field}-error" aria-invalid="true" id="{field}"' in html


@pytest.mark.parametrize("query", ["?on=9999-06-15", "?on=9999-12-31&print=1"])
def test_a_date_near_the_end_of_the_calendar_is_not_a_server_error(
    client: FlaskClient, auth, org: Org, query: str
) -> None:
    auth.sign_in(org.mona)
    status, html = team_page(client, org.alpha, query)
    assert status in (200, 400)
    if status == 400:
        assert field_error(html, "on")


def test_print_view_with_a_bad_query_names_the_problem(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.mona)
    status, html = team_page(client, org.alpha, "?print=1&gpus=-1")
    assert status == 400
    assert "GPUs must be from 0 to 10,000,000" in html


@pytest.mark.parametrize("path", ["", "/plan"])
def test_a_fleet_above_the_maximum_is_refused_with_a_true_message(
    client: FlaskClient, auth, org: Org, path: str
) -> None:
    auth.sign_in(org.mona)
    response = client.get(f"/teams/{org.alpha.id}{path}?gpus=20000000&target=2027-05-29")
    assert response.status_code == 400
    message = field_error(response.get_data(as_text=True), "gpus")
    assert "0 or more" not in message and "10,000,000" in message


def test_field_errors_have_unique_ids(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.mona)
    _, html = team_page(client, org.alpha, "?gpus=abc")
    assert html.count('id="gpus-error"') == 1


def test_readiness_on_a_date_changes_the_day_after_an_expiry(
    client: FlaskClient, auth, org: Org
) -> None:
    """DOMAIN 3: valid on its expiry date, expired the day after; Ben's seat goes."""
    auth.sign_in(org.mona)
    _, on_expiry = team_page(client, org.alpha, f"?on={BEN_EXPIRY.isoformat()}")
    status, day_after = team_page(
        client, org.alpha, f"?on={(BEN_EXPIRY + dt.timedelta(days=1)).isoformat()}"
    )
    assert status == 200
    assert "2 of 4 seats filled · 50% ready on Jan 15, 2027" in text(on_expiry)
    assert "1 of 4 seats filled · 25% ready on Jan 16, 2027" in text(day_after)
    assert "Ben lacks valid NCA-AIIO (it was valid through 2027-01-15)" in text(day_after)


def heat(html: str) -> tuple[list[str], dict[str, dict[str, tuple[str, str]]]]:
    """Return the heat map's columns and name -> column -> (text, class)."""
    rows = table(html, css_class="heatmap")
    columns = [cell[0] for cell in rows[0][1:]]
    cells = {}
    for row in rows[1:]:
        name = row[0][0].rsplit(" L", 1)[0]
        cells[name] = dict(zip(columns, [(t, c) for t, c in row[1:]], strict=True))
    return columns, cells


def test_heat_map_shows_each_state_by_text_icon_and_colour(
    client: FlaskClient, auth, org: Org
) -> None:
    """Valid, expiring within 90 days, expired, missing; shown by text
    or icon as well as colour."""
    auth.sign_in(org.mona)
    _, html = team_page(client, org.alpha)
    columns, cells = heat(html)
    assert columns[:2] == ["NCA-AIIO", "NCP-AII"]  # the paths' exams first
    assert {"NVIDIA-PROFESSIONAL", "NVIDIA-ASSOCIATE+", "NVIDIA-NETWORKING"} <= set(columns)
    assert list(cells) == ["Ada", "Ben", "Cy"]
    assert cells["Ada"]["NCA-AIIO"] == ("✔ valid · 773 days left", "cell-valid")
    assert cells["Ada"]["NVIDIA-NETWORKING"] == ("✔ valid", "cell-valid")
    assert cells["Ben"]["NCA-AIIO"] == ("⚠ expiring · 47 days left", "cell-expiring")
    assert cells["Cy"]["NCA-AIIO"] == ("✖ expired · 181 days ago", "cell-expired")
    assert cells["Cy"]["NCP-AII"] == ("○ missing", "cell-missing")
    # A group column: Ben's NCA-AIIO stands for "NVIDIA Associate or higher".
    assert cells["Ben"]["NVIDIA-ASSOCIATE+"][1] == "cell-expiring"
    # The colour classes come with the icon and word, never alone.
    assert 'class="status status-expiring"><span aria-hidden="true">⚠</span> expiring' in html
    assert "✔ valid · ⚠ expiring within 90 days · ✖ expired · ○ missing" in text(html)
    # Levels are shown beside the names.
    assert "Ada L3" in [row[0][0] for row in table(html, css_class="heatmap")[1:]]


def test_heat_map_columns_follow_the_template(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.mona)
    _, html = team_page(client, org.alpha, "?gpus=500")
    columns, cells = heat(html)
    assert columns[-3:] == ["CKA", "RHCE", "VCP-DCV"]
    assert cells["Ada"]["CKA"][1] == "cell-valid"
    assert cells["Ben"]["CKA"] == ("○ missing", "cell-missing")


def test_heat_map_leaves_out_deactivated_engineers(
    client: FlaskClient, auth, db: Session, org: Org
) -> None:
    set_active(db, org.cy, False)
    auth.sign_in(org.mona)
    _, html = team_page(client, org.alpha)
    assert list(heat(html)[1]) == ["Ada", "Ben"]
    assert "Cy" not in text(html)


def test_forecast_chart_is_an_svg_with_a_title_and_a_description_of_12_months(
    client: FlaskClient, auth, org: Org
) -> None:
    """Readiness at the start of each of the next 12 months, drawn as a
    chart; Ben's NCA-AIIO lapses on 2027-01-15, so February drops to 1 of 4."""
    auth.sign_in(org.mona)
    _, html = team_page(client, org.alpha)
    svg = re.search(r"<svg\b.*?</svg>", html, re.S)
    assert svg is not None
    chart = svg.group(0)
    assert 'role="img"' in chart
    assert re.search(r"<title[^>]*>Readiness forecast</title>", chart)
    desc = re.search(r"<desc[^>]*>(.*?)</desc>", chart, re.S)
    assert desc is not None
    description = " ".join(desc.group(1).split())
    assert "next 12 months" in description
    listed = description.split(": ", 1)[1].rstrip(".").split("; ")
    assert len(listed) == 12
    assert listed[0] == "Dec 2026 2 of 4 (50%)"
    assert listed[1] == "Jan 2027 2 of 4 (50%)"
    assert listed[2] == "Feb 2027 1 of 4 (25%)"
    assert listed[-1] == "Nov 2027 1 of 4 (25%)"
    assert chart.count("<rect ") == 12
    assert chart.count("bar-drop") == 1  # the drop is marked


def test_forecast_follows_the_fleet_asked_for(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.mona)
    _, html = team_page(client, org.alpha, "?gpus=1000")
    desc = re.search(r"<desc[^>]*>(.*?)</desc>", html, re.S)
    assert desc is not None
    assert desc.group(1).count("of 22") == 12


def test_certifications_expiring_soonest_first(client: FlaskClient, auth, org: Org) -> None:
    """Certifications expiring soonest first (names sort the other way)."""
    auth.sign_in(org.mona)
    _, html = team_page(client, org.alpha)
    rows = [[cell[0] for cell in row] for row in table(html, header="Valid through")[1:]]
    assert [row[:3] for row in rows[:2]] == [
        ["Jun 1, 2026", "Cy", "NCA-AIIO"],
        ["Jan 15, 2027", "Ben", "NCA-AIIO"],
    ]
    # Ada's two expire on the same day; either may come first.
    assert sorted(row[:3] for row in rows[2:]) == [
        ["Jan 10, 2029", "Ada", "CKA"],
        ["Jan 10, 2029", "Ada", "NCA-AIIO"],
    ]
    assert rows[0][3].startswith("✖ expired")
    assert rows[1][3].startswith("⚠ expiring")
    assert rows[2][3].startswith("✔ valid")
    # A certification without an expiry is not listed (Ada's networking one).
    assert all(row[2] != "NVIDIA-NETWORKING" for row in rows)


def test_a_renewed_certification_is_listed_once_with_its_new_expiry(
    client: FlaskClient, auth, db: Session, org: Org
) -> None:
    factories.certification(db, org.ben, "NCA-AIIO", D(2026, 11, 1), D(2028, 11, 1))
    auth.sign_in(org.mona)
    _, html = team_page(client, org.alpha)
    rows = [[cell[0] for cell in row] for row in table(html, header="Valid through")[1:]]
    assert [row[:2] for row in rows if row[1] == "Ben"] == [["Nov 1, 2028", "Ben"]]


def test_path_progress_bars(client: FlaskClient, auth, db: Session, org: Org) -> None:
    """Path progress bars."""
    db.add(
        HourLog(
            engineer_id=org.ben.id,
            course_id=factories.course(db, "FDL").id,
            logged_on=D(2026, 11, 2),
            hours=Decimal(8),
        )
    )
    db.flush()
    auth.sign_in(org.mona)
    _, html = team_page(client, org.alpha)
    progress = section(html, "<h2>Path progress</h2>", "</main>")
    assert "Ben Foundations 8 / 48 h Professional 0 / 136 h" in progress
    assert "Ada Foundations 0 / 48 h" in progress
    assert f'<progress id="p-{org.ben.id}-FOUNDATIONS" value="8' in html


def test_print_view_has_no_navigation(client: FlaskClient, auth, org: Org) -> None:
    """A print-friendly page."""
    auth.sign_in(org.mona)
    status, html = team_page(client, org.alpha, "?print=1&gpus=500")
    assert status == 200
    assert "<nav" not in html
    assert "<form" not in html  # neither the query form nor the sign-out button
    page = text(html)
    assert "Alpha · readiness on Nov 29, 2026" in page
    assert "500 GPUs · Medium (100-1,000 GPUs) · " in page
    assert "Cy lacks" in page
    assert 'class="compact heatmap"' in html
    assert "<svg" in html and "<desc" in html
    _, normal = team_page(client, org.alpha)
    assert "<nav" in normal


def test_team_page_links_to_its_downloads_for_the_same_query(
    client: FlaskClient, auth, org: Org
) -> None:
    auth.sign_in(org.mona)
    _, html = team_page(client, org.alpha, "?gpus=500&on=2027-01-16")
    base = f"/teams/{org.alpha.id}"
    assert f'href="{base}/heatmap.csv?gpus=500&amp;on=2027-01-16"' in html
    assert f'href="{base}/gaps.csv?gpus=500&amp;on=2027-01-16"' in html
    assert f'href="{base}?gpus=500&amp;on=2027-01-16&amp;print=1"' in html


def test_identical_open_seats_show_once_with_how_many_are_open(
    client: FlaskClient, auth, db: Session, org: Org
) -> None:
    """At 2,000 GPUs Alpha has 8 operations seats and Ben fills one: the other 7 ask
    the same and have the same candidates, so they are drawn once."""
    org.alpha.gpus = 2000
    db.flush()
    auth.sign_in(org.admin)
    _, html = team_page(client, org.alpha)
    alpha = section(html, "<h2>Gaps</h2>", "</section>")
    assert (
        f"7 {TIMES} Operations Engineer (level 2{DASH}3, NVIDIA-ASSOCIATE+) open — nearest: "
        "Cy lacks valid NCA-AIIO (it was valid through 2026-06-01)"
    ) in alpha
    assert alpha.count("Operations Engineer") == 1
    assert alpha.count("Cy lacks valid NCA-AIIO") == 1
    # Every other slot's seats are grouped too; a lone open seat gets no count.
    assert f"4 {TIMES} Senior Engineer" in alpha and f"2 {TIMES} Infrastructure Architect" in alpha
    assert "Security Specialist (level 4, SECURITY-CERT) open" in alpha
    assert f"1 {TIMES}" not in alpha
    # Cy is the only one free: the operations seats are his to train for, no other is.
    assert alpha.count("or hire") == 6
