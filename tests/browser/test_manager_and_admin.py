"""A manager reads a team's readiness in the browser; an admin opens the outbox, erases a person.

Omar Haddad (omar@example.com) manages "Borealis Cluster" (480 GPUs, the
Medium template) and "Cygnus Supercompute" (2048 GPUs, Large).
"""

from __future__ import annotations

import csv
import io
import re

from axe_playwright_python.base import AXE_SCRIPT
from playwright.sync_api import expect

from tests.browser.conftest import open_link, sign_in, snap
from tests.browser.crawling import check
from tests.live import LiveServer, free_port

STATES = ("valid", "expiring", "expired", "missing")


def test_a_manager_reads_the_team_page_changes_the_fleet_and_downloads_the_csv(page):
    sign_in(page, "omar@example.com")
    open_link(page, "Teams")
    teams = page.locator("main table tbody tr")
    assert sorted(teams.locator("td:first-child").all_inner_texts()) == [
        "Borealis Cluster",
        "Cygnus Supercompute",
    ]
    # Each team's readiness bar has its percentage beside it, on the same line.
    for row in teams.all():
        bar, figure = row.locator("progress").evaluate(
            """bar => {
                const text = document.createRange();
                text.selectNodeContents(bar.parentElement);
                text.setStartAfter(bar);
                const [b, t] = [bar.getBoundingClientRect(), text.getBoundingClientRect()];
                return [[b.left, b.right, (b.top + b.bottom) / 2], [t.left, t.top, t.bottom]];
            }"""
        )
        assert figure[0] >= bar[1] and figure[1] <= bar[2] <= figure[2], (bar, figure)
    snap(page, "teams")

    open_link(page, "Borealis Cluster")
    summary = page.locator("main hgroup p")
    assert "480 GPUs" in summary.inner_text()
    assert "Medium (100-1,000 GPUs)" in summary.inner_text()

    # The heat map: one row per member, one state per certification, in words.
    heat_map = page.locator("table.heatmap")
    members = heat_map.locator("tbody th[scope=row]").all_inner_texts()
    assert any("Grace Liu" in name for name in members), members
    cells = heat_map.locator("tbody td")
    assert cells.count() >= len(members)
    for text in cells.all_inner_texts():
        assert any(state in text for state in STATES), text

    # The gaps: each open seat with the nearest candidates and what they lack.
    gaps = page.locator("ul.gaps > li")
    assert gaps.count() >= 1
    assert "lacks" in gaps.first.inner_text() or "hire" in gaps.first.inner_text()
    snap(page, "borealis at 480 gpus")

    # On paper nothing scrolls: the print view's heat map fits an A4 page's width.
    team_url = page.url
    page.set_viewport_size({"width": 718, "height": 1000})
    page.emulate_media(media="print")
    try:
        page.goto(team_url + ("&" if "?" in team_url else "?") + "print=1")
        widths = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
        )
        assert widths[0] <= widths[1], widths
    finally:
        page.emulate_media(media="screen")
        page.set_viewport_size({"width": 1280, "height": 900})
        page.goto(team_url)

    # A larger fleet needs the Large template.
    page.get_by_label("Fleet size (GPUs)").fill("2000")
    page.get_by_role("button", name="Show readiness").click()
    page.wait_for_url(re.compile(r".*gpus=2000.*"))
    assert "2,000 GPUs" in summary.inner_text()
    assert "Large (1,000+ GPUs)" in summary.inner_text()
    assert "Medium" not in summary.inner_text()
    snap(page, "borealis at 2000 gpus")

    with page.expect_download() as download_info:
        page.get_by_role("link", name="Heat map CSV").click()
    download = download_info.value
    assert download.suggested_filename.startswith("heatmap-team-")
    with open(download.path(), encoding="utf-8") as handle:
        rows = list(csv.reader(io.StringIO(handle.read())))
    header = rows[0]
    assert header[:3] == ["engineer", "email", "level"]
    assert "NCA-AIIO" in header
    names = [row[0] for row in rows[1:]]
    assert "Grace Liu" in names and len(names) == len(members)
    for row in rows[1:]:
        for cell in row[3:]:
            assert cell.split(" ")[0] in STATES, cell


def test_an_admin_opens_the_outbox(page, server: LiveServer):
    # The daily pass queues the demo's due reminders; the SMTP server is down,
    # so they wait in the outbox with the reason.
    server.tracker_with(
        {"TRACKER_SMTP_PORT": str(free_port()), "TRACKER_SMTP_TIMEOUT": "2"}, "remind"
    )
    sign_in(page, "admin@example.com")
    # The admin's pages open from the menu's "Admin" group.
    page.locator("header nav summary", has_text="Admin").click()
    snap(page, "admin menu open")
    open_link(page, "Outbox")
    assert page.get_by_role("heading", name="Outbox", level=1).is_visible()
    rows = page.locator("table.outbox tbody tr")
    assert rows.count() >= 1
    first = rows.first.inner_text()
    assert "pending" in first and "cannot connect" in first, first
    snap(page, "outbox")

    page.get_by_label("Status").select_option("pending")
    page.get_by_role("button", name="Filter").click()
    page.wait_for_url(re.compile(r".*status=pending.*"))
    assert "match" in page.locator("main").inner_text()
    snap(page, "outbox filtered")


def test_an_admin_erases_a_departed_persons_data(page, server: LiveServer):
    # A person of their own: the demo's people stay as the other tests read them.
    email = "leaving.person@example.com"
    server.tracker(
        "user", "add", email, "--name", "Leaving Person", "--password", "leaving-person-pw"
    )
    page.context.add_init_script(AXE_SCRIPT)
    sign_in(page, "admin@example.com")
    page.goto("/admin/people?q=leaving")
    open_link(page, "Leaving Person")
    person_page = page.url
    # Both are links drawn as buttons (role=button): each opens a page that asks first.
    page.get_by_role("button", name="Deactivate").click()
    page.wait_for_url("**/deactivate")
    page.locator("main form [type=submit]").click()
    page.wait_for_url(person_page)

    page.get_by_role("button", name="Erase personal data").click()
    page.wait_for_url("**/erase")
    assert page.get_by_role("heading", level=1).inner_text().startswith("Erase Leaving Person")
    _assert_passes_axe(page, "erase page")
    snap(page, "erase page")
    page.get_by_label("The person's e-mail address").fill("someone.else@example.com")
    page.locator("main form [type=submit]").click()
    expect(page.locator(".field-error")).to_be_visible()
    _assert_passes_axe(page, "erase page with a wrong address")

    page.get_by_label("The person's e-mail address").fill(email)
    page.locator("main form [type=submit]").click()
    page.wait_for_url(person_page)
    main = page.locator("main").inner_text()
    assert "Leaving Person" not in main and "personal data erased" in main, main
    _assert_passes_axe(page, "erased person's page")
    snap(page, "erased")


def _assert_passes_axe(page, label: str) -> None:
    visit = check(page, label, 200)
    assert not visit.problems, "\n".join(visit.problems)
