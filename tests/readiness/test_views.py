"""The managers' readiness pages: teams, team page, CSVs, plan, ROI.

The rules themselves are covered by test_services.py and test_plan.py; these tests
drive the pages: who may see them, what they show, the CSV downloads, bad input,
and a bounded number of SQL queries. TODAY (2026-11-29) is pinned in app.config.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from decimal import Decimal
from html.parser import HTMLParser

import pytest
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import count_statements
from tests.readiness.helpers import BEN_EXPIRY, FAR, D, Org, build_org, grow, person
from tracker.catalog.services.snapshot import forget_snapshots
from tracker.people.models import Team
from tracker.people.services.persons import set_active
from tracker.progress.models import HourLog

TODAY = factories.TODAY  # 2026-11-29
DASH = "\N{EN DASH}"  # the pages write ranges as 2\N{EN DASH}3
TIMES = (
    "\N{MULTIPLICATION SIGN}"  # grouped open seats: 7 \N{MULTIPLICATION SIGN} Operations Engineer
)


pytestmark = pytest.mark.usefixtures("pinned_today")


# --- reading HTML -------------------------------------------------------------


class _Tables(HTMLParser):
    """Collect every <table>: its class and its rows of (text, class) cells."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[dict] = []
        self._stack: list[dict] = []
        self._cell: list | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "table":
            table = {"class": attributes.get("class") or "", "rows": []}
            self.tables.append(table)
            self._stack.append(table)
        elif tag == "tr" and self._stack:
            self._stack[-1]["rows"].append([])
        elif tag in ("td", "th") and self._stack:
            self._cell = [[], attributes.get("class") or ""]
            self._stack[-1]["rows"][-1].append(self._cell)

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self._stack:
            self._stack.pop()
        elif tag in ("td", "th"):
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell[0].append(data)


def tables(html: str) -> list[dict]:
    """Return the page's tables; each cell as (whitespace-collapsed text, class)."""
    parser = _Tables()
    parser.feed(html)
    for table in parser.tables:
        table["rows"] = [
            [(" ".join("".join(parts).split()), cls) for parts, cls in row] for row in table["rows"]
        ]
    return parser.tables


def table(html: str, css_class: str | None = None, header: str | None = None) -> list[list]:
    """Return the rows of the table with `css_class`, or whose first header cell is `header`."""
    for t in tables(html):
        if css_class is not None and css_class in t["class"].split():
            return t["rows"]
        if header is not None and t["rows"] and t["rows"][0] and t["rows"][0][0][0] == header:
            return t["rows"]
    raise AssertionError(f"no table {css_class or header!r} on the page")


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def text(html: str) -> str:
    """Return the page's visible text with whitespace collapsed."""
    parser = _Text()
    parser.feed(html)
    return " ".join("".join(parser.parts).split())


def section(html: str, start: str, end: str) -> str:
    """Return the text between two markers of the raw HTML."""
    assert start in html, start
    after = html.split(start, 1)[1]
    assert end in after, end
    return text(after.split(end, 1)[0])


def field_error(html: str, field: str) -> str:
    """Return the error messages drawn next to a form field (empty when none)."""
    return " ".join(
        re.findall(rf'<small id="{field}-error" class="field-error">([^<]*)</small>', html)
    )


def read_csv(body: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(body)))


# --- the scene ----------------------------------------------------------------


@pytest.fixture
def org(db: Session) -> Org:
    return build_org(db)


# --- 1. permissions -----------------------------------------------------------

TEAM_PAGES = [
    "/teams/{id}",
    "/teams/{id}?print=1",
    "/teams/{id}/heatmap.csv",
    "/teams/{id}/gaps.csv",
    "/teams/{id}/plan",
    "/teams/{id}/plan?gpus=500&target=2027-05-29",
]


@pytest.mark.parametrize("page", TEAM_PAGES)
@pytest.mark.parametrize(("who", "status"), [("mona", 200), ("admin", 200), ("otto", 403)])
def test_a_team_page_is_for_its_manager_and_admins(
    client: FlaskClient, auth, org: Org, page: str, who: str, status: int
) -> None:
    auth.sign_in(getattr(org, who))
    response = client.get(page.format(id=org.alpha.id))
    assert response.status_code == status
    if status == 403:
        # Hidden values (the random CSRF token) could hold "Ada" by chance.
        shown = re.sub(r'value="[^"]*"', "", response.get_data(as_text=True))
        assert "Alpha" not in shown
        assert "Ada" not in shown


READINESS_PAGES = [
    ("GET", "/teams"),
    ("GET", "/organisation"),
    ("GET", "/roi"),
    ("POST", "/roi"),
    *(("GET", p) for p in TEAM_PAGES),
]


@pytest.mark.parametrize(("method", "page"), READINESS_PAGES)
def test_engineers_get_403_on_every_readiness_page(
    client: FlaskClient, auth, org: Org, method: str, page: str
) -> None:
    """Engineers get 403; Ben is in Alpha, and still may not see it."""
    auth.sign_in(org.ben)
    response = client.open(page.format(id=org.alpha.id), method=method, data={})
    assert response.status_code == 403


@pytest.mark.parametrize(("method", "page"), READINESS_PAGES)
def test_anonymous_visitors_are_sent_to_sign_in(
    client: FlaskClient, org: Org, method: str, page: str
) -> None:
    response = client.open(page.format(id=org.alpha.id), method=method, data={})
    assert response.status_code == 302
    assert response.headers["Location"].startswith("/login")


@pytest.mark.parametrize(("who", "status"), [("admin", 200), ("mona", 403), ("otto", 403)])
def test_the_organisation_page_is_for_admins(
    client: FlaskClient, auth, org: Org, who: str, status: int
) -> None:
    auth.sign_in(getattr(org, who))
    assert client.get("/organisation").status_code == status


@pytest.mark.parametrize(
    "page", ["/teams/{id}", "/teams/{id}/heatmap.csv", "/teams/{id}/gaps.csv", "/teams/{id}/plan"]
)
@pytest.mark.parametrize("who", ["mona", "admin"])
def test_an_unknown_team_is_404(client: FlaskClient, auth, org: Org, page: str, who: str) -> None:
    auth.sign_in(getattr(org, who))
    assert client.get(page.format(id=org.bravo.id + 1000)).status_code == 404


@pytest.mark.parametrize(
    ("who", "shown", "hidden"),
    [
        ("mona", ["Alpha"], ["Bravo"]),
        ("otto", ["Bravo"], ["Alpha"]),
        ("admin", ["Alpha", "Bravo"], []),
    ],
)
def test_teams_lists_the_managers_own_teams_and_every_team_for_an_admin(
    client: FlaskClient, auth, org: Org, who: str, shown: list[str], hidden: list[str]
) -> None:
    auth.sign_in(getattr(org, who))
    response = client.get("/teams")
    assert response.status_code == 200
    rows = table(response.get_data(as_text=True), header="Team")[1:]
    assert [row[0][0] for row in rows] == shown
    html = response.get_data(as_text=True)
    for name in hidden:
        assert name not in html


def test_teams_shows_each_teams_readiness_today(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.admin)
    html = client.get("/teams").get_data(as_text=True)
    rows = {row[0][0]: [cell[0] for cell in row] for row in table(html, header="Team")[1:]}
    assert rows["Alpha"] == ["Alpha", "50", "Small (10-100 GPUs)", "2 / 4", "50%", "Mona"]
    assert rows["Bravo"] == ["Bravo", "40", "Small (10-100 GPUs)", "1 / 4", "25%", "Otto"]
    assert f'href="/teams/{org.alpha.id}"' in html
    assert 'href="/organisation"' in html  # an admin is offered the organisation page


def test_a_manager_is_not_offered_the_organisation_page(
    client: FlaskClient, auth, org: Org
) -> None:
    auth.sign_in(org.mona)
    assert 'href="/organisation"' not in client.get("/teams").get_data(as_text=True)


# --- 2. the team page ---------------------------------------------------------


def team_page(client: FlaskClient, team: Team, query: str = "") -> tuple[int, str]:
    response = client.get(f"/teams/{team.id}{query}")
    return response.status_code, response.get_data(as_text=True)


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


@pytest.mark.parametrize("page", ["heatmap.csv", "gaps.csv"])
@pytest.mark.parametrize("query", ["?gpus=-1", "?gpus=abc", "?on=not-a-date"])
def test_csv_with_a_bad_query_is_400(
    client: FlaskClient, auth, org: Org, page: str, query: str
) -> None:
    auth.sign_in(org.mona)
    response = client.get(f"/teams/{org.alpha.id}/{page}{query}")
    assert response.status_code == 400
    assert response.mimetype == "text/html"
    assert "gpus must be a whole number" in response.get_data(as_text=True)


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


def test_organisation_page_shows_every_team_in_a_summary_table(
    client: FlaskClient, auth, org: Org
) -> None:
    """One row per team, each opening the team: Ben's NCA-AIIO lapses in 47 days;
    Ada's lasts past 90 days and Cy's has already lapsed, so neither counts."""
    auth.sign_in(org.admin)
    html = client.get("/organisation").get_data(as_text=True)
    assert "Every team on Nov 29, 2026: 3 of 8 seats filled." in text(html)
    rows = [[cell[0] for cell in row][:6] for row in table(html, "summary")]
    assert rows == [
        ["Team ▲", "Manager", "Fleet band", "Seats filled", "Ready", "Lapsing within 90 days"],
        ["Alpha", "Mona", "Small (10-100 GPUs)", "2 of 4", "50%", "1"],
        ["Bravo", "Otto", "Small (10-100 GPUs)", "1 of 4", "25%", "0"],
    ]
    assert f'href="/teams/{org.alpha.id}">Alpha</a></th>' in html
    # The gaps are the team page's: the organisation page draws no team's seats.
    assert "<article" not in html and "nearest:" not in html


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


# --- 3. CSV downloads ---------------------------------------------------------


def test_heat_map_csv(client: FlaskClient, auth, org: Org) -> None:
    """CSV export of the heat map."""
    auth.sign_in(org.mona)
    response = client.get(f"/teams/{org.alpha.id}/heatmap.csv")
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"] == (
        f'attachment; filename="heatmap-team-{org.alpha.id}-2026-11-29.csv"'
    )
    rows = read_csv(response.get_data(as_text=True))
    header = rows[0]
    assert header[:3] == ["engineer", "email", "level"]
    assert header[3:5] == ["NCA-AIIO", "NCP-AII"]
    assert "NVIDIA-NETWORKING" in header
    by_name = {row[0]: dict(zip(header, row, strict=True)) for row in rows[1:]}
    assert list(by_name) == ["Ada", "Ben", "Cy"]
    assert by_name["Ada"]["email"] == org.ada.email
    assert by_name["Ada"]["level"] == "3"
    assert by_name["Ada"]["NCA-AIIO"] == "valid (2029-01-10)"
    assert by_name["Ada"]["NVIDIA-NETWORKING"] == "valid"
    assert by_name["Ben"]["NCA-AIIO"] == "expiring (2027-01-15)"
    assert by_name["Cy"]["NCA-AIIO"] == "expired (2026-06-01)"
    assert by_name["Cy"]["NCP-AII"] == "missing"
    words = {cell.split(" ")[0] for row in rows[1:] for cell in row[3:]}
    assert words == {"valid", "expiring", "expired", "missing"}


def test_heat_map_csv_has_one_row_per_active_member(
    client: FlaskClient, auth, db: Session, org: Org
) -> None:
    set_active(db, org.cy, False)
    person(db, "Dee", org.alpha, roles=("storage",), level=1)
    auth.sign_in(org.mona)
    rows = read_csv(client.get(f"/teams/{org.alpha.id}/heatmap.csv").get_data(as_text=True))
    assert [row[0] for row in rows[1:]] == ["Ada", "Ben", "Dee"]
    assert all(len(row) == len(rows[0]) for row in rows)


def test_heat_map_csv_for_another_fleet_and_date(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.mona)
    response = client.get(f"/teams/{org.alpha.id}/heatmap.csv?gpus=500&on=2027-01-16")
    assert "heatmap-team-" in response.headers["Content-Disposition"]
    assert "-2027-01-16.csv" in response.headers["Content-Disposition"]
    rows = read_csv(response.get_data(as_text=True))
    header = rows[0]
    assert header[-3:] == ["CKA", "RHCE", "VCP-DCV"]
    ben = dict(zip(header, rows[2], strict=True))
    assert ben["engineer"] == "Ben"
    assert ben["NCA-AIIO"] == "expired (2027-01-15)"


def test_gaps_csv(client: FlaskClient, auth, org: Org) -> None:
    """CSV export ... of the readiness gaps."""
    auth.sign_in(org.mona)
    response = client.get(f"/teams/{org.alpha.id}/gaps.csv")
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert response.headers["Content-Disposition"] == (
        f'attachment; filename="gaps-team-{org.alpha.id}-2026-11-29.csv"'
    )
    assert read_csv(response.get_data(as_text=True)) == [
        ["template", "slot", "role", "min_level", "max_level", "candidate", "lacks"],
        [
            "small",
            "Infrastructure Lead",
            "lead",
            "4",
            "4",
            "Cy",
            "job role Infrastructure Lead; level 4 (is 2); certification NVIDIA-PROFESSIONAL; "
            "certification VENDOR-EXPERT",
        ],
        [
            "small",
            "Operations Engineer",
            "operations",
            "2",
            "3",
            "Cy",
            "valid NCA-AIIO (it was valid through 2026-06-01)",
        ],
    ]


def test_gaps_csv_says_hire_where_nobody_is_left(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.otto)
    rows = read_csv(client.get(f"/teams/{org.bravo.id}/gaps.csv").get_data(as_text=True))
    assert rows[1:] == [
        ["small", "Infrastructure Lead", "lead", "4", "4", "hire", ""],
        ["small", "Operations Engineer", "operations", "2", "3", "hire", ""],
        ["small", "Network Specialist", "network", "3", "3", "hire", ""],
    ]


def test_gaps_csv_lists_missing_team_wide_certifications(
    client: FlaskClient, auth, org: Org
) -> None:
    auth.sign_in(org.mona)
    rows = read_csv(client.get(f"/teams/{org.alpha.id}/gaps.csv?gpus=500").get_data(as_text=True))
    assert rows[1][0] == "medium"
    team_wide = [row for row in rows if row[1] == "team-wide"]
    assert team_wide == [
        ["medium", "team-wide", "", "", "", "nobody", "certification RHCE"],
        ["medium", "team-wide", "", "", "", "nobody", "certification VCP-DCV"],
    ]


@pytest.mark.parametrize(
    "name",
    [
        '=HYPERLINK("http://evil.example","x")',
        "+SUM(1,2)",
        "-2+3",
        "@SUM(A1)",
    ],
)
def test_csv_cells_that_start_a_formula_are_neutralised(
    client: FlaskClient, auth, db: Session, name: str
) -> None:
    """A name a spreadsheet would run as a formula gets a leading apostrophe."""
    boss = factories.engineer(db, name="Boss", access_role="manager")
    crew = factories.team(db, gpus=20, name="Injected", manager=boss)
    person(db, name, crew, level=1)
    auth.sign_in(boss)

    heat_rows = read_csv(client.get(f"/teams/{crew.id}/heatmap.csv").get_data(as_text=True))
    gap_rows = read_csv(client.get(f"/teams/{crew.id}/gaps.csv").get_data(as_text=True))

    assert heat_rows[1][0] == "'" + name
    candidates = {row[5] for row in gap_rows[1:]}
    assert candidates == {"'" + name}
    for row in heat_rows[1:] + gap_rows[1:]:
        for cell in row:
            assert cell[:1] not in ("=", "+", "-", "@"), row


def test_csv_email_that_starts_a_formula_is_neutralised(
    client: FlaskClient, auth, db: Session
) -> None:
    boss = factories.engineer(db, name="Boss", access_role="manager")
    crew = factories.team(db, gpus=20, name="Injected", manager=boss)
    person(db, "Eq", crew, email="=1+1@example.com")
    auth.sign_in(boss)
    rows = read_csv(client.get(f"/teams/{crew.id}/heatmap.csv").get_data(as_text=True))
    assert rows[1][1] == "'=1+1@example.com"


# --- 4. the plan to a target --------------------------------------------------


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


# --- 5. the ROI calculator ----------------------------------------------------


def roi_form(investment: list[tuple[str, object]], returns: list[tuple[str, object]]) -> dict:
    data: dict[str, object] = {}
    for kind, lines in (("investment", investment), ("returns", returns)):
        for i, (label, amount) in enumerate(lines):
            data[f"{kind}-{i}-label"] = label
            data[f"{kind}-{i}-amount"] = amount
    return data


def roi_result(html: str) -> str:
    return section(html, '<div role="status"><article class="roi-result">', "</article>")


def test_roi_page_is_prefilled_with_the_documents_example(
    client: FlaskClient, auth, org: Org
) -> None:
    """DOMAIN 6: the example answers 365 % and 465 %."""
    auth.sign_in(org.mona)
    response = client.get("/roi")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    result = roi_result(html)
    assert "Investment $145,000 · yearly returns $675,000" in result
    assert "First-year ROI 365% · ongoing ROI 465%" in result
    for name, value in [
        ("investment-0-amount", "75000"),
        ("investment-1-amount", "20000"),
        ("investment-2-amount", "50000"),
        ("returns-0-amount", "100000"),
        ("returns-1-amount", "200000"),
        ("returns-2-amount", "75000"),
        ("returns-3-amount", "300000"),
    ]:
        assert re.search(rf'name="{name}"[^>]*value="{value}"', html), name
    assert 'value="Training (5 engineers x 15,000)"' in html


def test_roi_post_computes_other_lines(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.admin)
    data = roi_form(
        [("Courses", 60000), ("Labs", 40000)],
        [("Downtime", 150000), ("Contractors", 100000)],
    )
    response = client.post("/roi", data=data)
    assert response.status_code == 200
    result = roi_result(response.get_data(as_text=True))
    assert "Investment $100,000 · yearly returns $250,000" in result
    assert "First-year ROI 150% · ongoing ROI 250%" in result


def test_roi_post_of_the_example_answers_365_and_465(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.mona)
    data = roi_form(
        [("Training", 75000), ("Exams", 20000), ("Bootcamp", 50000)],
        [("Downtime", 100000), ("Contractors", 200000), ("Efficiency", 75000), ("Fast", 300000)],
    )
    response = client.post("/roi", data=data)
    assert response.status_code == 200
    assert "First-year ROI 365% · ongoing ROI 465%" in roi_result(response.get_data(as_text=True))


@pytest.mark.parametrize(
    ("amount", "message"),
    [
        (-1, "amount must be from 0 to 10,000,000,000"),
        ("lots", "must be a whole number"),
        ("1.5", "must be a whole number"),
        ("1,00", "must be a whole number"),
        ("", "an amount is required"),
    ],
)
def test_roi_post_with_a_bad_amount_is_400(
    client: FlaskClient, auth, org: Org, amount: object, message: str
) -> None:
    auth.sign_in(org.mona)
    data = roi_form([("Training", 75000)], [("Downtime", 100000), ("Other", amount)])
    response = client.post("/roi", data=data)
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert message in field_error(html, "returns-1-amount")
    assert "roi-result" not in html


def test_roi_post_reads_amounts_grouped_as_english_writes_them(
    client: FlaskClient, auth, org: Org
) -> None:
    auth.sign_in(org.mona)
    data = roi_form([("Training", "75,000")], [("Downtime", "1,000,000")])
    response = client.post("/roi", data=data)
    assert response.status_code == 200
    assert "Investment $75,000 · yearly returns $1,000,000" in roi_result(
        response.get_data(as_text=True)
    )


def test_roi_post_names_a_line_without_its_name(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.mona)
    response = client.post("/roi", data=roi_form([("Training", 1)], [("x" * 201, 1)]))
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert field_error(html, "returns-0-label") == "“Line” must be at most 200 characters"
    response = client.post("/roi", data=roi_form([("", 1)], [("Downtime", 1)]))
    assert field_error(response.get_data(as_text=True), "investment-0-label") == (
        "“Line” is required"
    )


def test_roi_post_with_no_investment_is_400(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.mona)
    response = client.post("/roi", data=roi_form([("Nothing", 0)], [("Downtime", 100)]))
    assert response.status_code == 400
    html = response.get_data(as_text=True)
    assert "the investment must be more than 0" in html
    assert "roi-result" not in html


def test_roi_post_does_not_silently_drop_lines(client: FlaskClient, auth, org: Org) -> None:
    auth.sign_in(org.mona)
    data = roi_form([(f"Line {i}", 1000) for i in range(25)], [("Downtime", 100000)])
    response = client.post("/roi", data=data)
    html = response.get_data(as_text=True)
    if response.status_code == 200:
        assert "Investment $25,000" in roi_result(html)
    else:
        assert response.status_code == 400
        assert "roi-result" not in html


def test_roi_post_needs_a_csrf_token(
    client: FlaskClient, auth, org: Org, csrf_enabled: None
) -> None:
    data = roi_form([("Training", 75000)], [("Downtime", 100000)])
    form = client.get("/login").get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', form)
    assert token is not None
    response = client.post(
        "/login",
        data={"email": org.mona.email, "password": factories.PASSWORD, "csrf_token": token[1]},
    )
    assert response.status_code == 302

    refused = client.post("/roi", data=data)
    assert refused.status_code == 400
    assert "roi-result" not in refused.get_data(as_text=True)

    page = client.get("/roi").get_data(as_text=True)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page)
    assert token is not None
    accepted = client.post("/roi", data={**data, "csrf_token": token[1]})
    assert accepted.status_code == 200
    assert "First-year ROI 33% · ongoing ROI 133%" in roi_result(accepted.get_data(as_text=True))


# --- 7. a bounded number of SQL queries ---------------------------------------


@pytest.mark.parametrize(
    "page", ["/teams/{id}", "/teams/{id}?gpus=1000", "/organisation", "/teams"]
)
def test_pages_issue_the_same_queries_for_a_ten_times_larger_organisation(
    client: FlaskClient, auth, db: Session, page: str
) -> None:
    """The team and organisation pages ... issue a bounded number of
    SQL queries, independent of the number of engineers and records.

    The small organisation: 3 teams of 3 engineers. The larger one: the same 3 teams
    with 30 engineers each, and 27 more teams of 3 (ten times the teams, more than ten
    times the engineers, certifications and hour logs). Signing in is not counted, nor
    bringing the teams' stored readiness up to date after the organisation grew (a
    request that does it first; test_current counts what that costs).
    """
    admin = factories.engineer(db, name="Admin", access_role="admin")
    teams = [factories.team(db, gpus=50 * (n + 1), name=f"Q{n}", manager=admin) for n in range(3)]
    for n, crew in enumerate(teams):
        grow(db, crew, 3, f"S{n}-")
    auth.sign_in(admin)
    url = page.format(id=teams[0].id)

    def get() -> str:
        response = client.get(url)
        assert response.status_code == 200
        return response.get_data(as_text=True)

    def cold_and_warm() -> tuple[tuple[int, int], str]:
        """Count a request with no copy of the catalog in the process, then one with it."""
        get()
        forget_snapshots()
        cold, html = count_statements(db, get)
        warm, _ = count_statements(db, get)
        assert warm < cold  # the second reads the catalog from the process's copy
        return (cold, warm), html

    few, small_html = cold_and_warm()
    for n, crew in enumerate(teams):
        grow(db, crew, 27, f"L{n}-")
    for n in range(27):
        boss = factories.engineer(db, name=f"Boss {n}", access_role="manager")
        grow(db, factories.team(db, gpus=2000, name=f"R{n:02d}", manager=boss), 3, f"R{n}-")
    many, large_html = cold_and_warm()

    # The pages did grow.
    if page.startswith("/teams/"):
        assert "L0-026" in large_html and "L0-026" not in small_html
    else:
        assert "R26" in large_html and "R26" not in small_html
    assert few == many, f"{few} statements for the small organisation, {many} for the large"
    assert 0 < few[1] < few[0] <= 40
