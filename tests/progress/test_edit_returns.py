"""Editing an hour entry returns to the page of the list its Edit link was on.

The link names that page (`?back=`, the page and its query); the edit page's
Cancel and its save go back there, when it is a path of this site.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from html import unescape
from urllib.parse import urlencode

import pytest

from tests import factories
from tests.helpers import ELSEWHERE, drawn_form
from tests.progress.helpers import log_entries, page
from tracker.progress.models import HourLog
from tracker.progress.rules import HOUR_LOG_PAGE_SIZE

pytestmark = pytest.mark.usefixtures("pinned_today")


def edit_links(client, url: str) -> list[str]:
    """Return the links of the Edit buttons on a page of the hours list."""
    html = client.get(url).get_data(as_text=True)
    return [unescape(link) for link in re.findall(r'<a href="(/hours/\d+/edit[^"]*)"', html)]


def cancel_link(html: str) -> str:
    """Return where the edit form's Cancel link leads."""
    found = re.search(r'</button>\s*<a href="([^"]*)">Cancel</a>', html)
    assert found, "no Cancel next to the form's button"
    return unescape(found.group(1))


def test_saving_an_edit_from_page_3_lands_on_page_3(db, client, auth, alice):
    log_entries(db, alice, 2 * HOUR_LOG_PAGE_SIZE + 3)
    auth.sign_in(alice)
    links = edit_links(client, "/hours?page=3")
    assert len(links) == 3
    assert all(link.endswith("?back=/hours?page%3D3") for link in links)
    entry_id = int(re.findall(r"/hours/(\d+)/edit", links[0])[0])

    edit = client.get(links[0]).get_data(as_text=True)
    assert cancel_link(edit) == "/hours?page=3"
    sent = drawn_form(edit, links[0])  # the form posts to its own link, ?back= and all
    sent["note"] = "revised"
    response = client.post(links[0], data=sent)

    assert response.status_code == 302 and response.headers["Location"] == "/hours?page=3"
    landed = page(client.get(response.headers["Location"]))
    assert "Entry updated." in landed.flashes
    assert "Page 3 of 3" in landed.text
    assert any(" 0.5 revised Edit " in row for row in landed.rows), landed.rows
    db.expire_all()
    assert db.get(HourLog, entry_id).note == "revised"


def test_an_edit_refused_keeps_the_way_back(db, client, auth, alice):
    log_entries(db, alice, HOUR_LOG_PAGE_SIZE + 1)
    auth.sign_in(alice)
    [link] = edit_links(client, "/hours?page=2")
    sent = drawn_form(client.get(link).get_data(as_text=True), link)
    sent["hours"] = "0"

    refused = client.post(link, data=sent)

    assert refused.status_code == 400
    html = refused.get_data(as_text=True)
    assert cancel_link(html) == "/hours?page=2"
    sent = drawn_form(html, link)
    sent["hours"] = "1.5"
    saved = client.post(link, data=sent)
    assert saved.headers["Location"] == "/hours?page=2"
    db.expire_all()
    assert db.get(HourLog, int(link.split("/")[2])).hours == Decimal("1.5")


@pytest.mark.parametrize("elsewhere", ELSEWHERE)
def test_a_way_back_off_this_site_is_ignored(db, client, auth, alice, elsewhere):
    log_entries(db, alice, 1)
    auth.sign_in(alice)
    [entry_link] = edit_links(client, "/hours")
    url = entry_link.split("?")[0]
    link = f"{url}?" + urlencode({"back": elsewhere})

    edit = client.get(link).get_data(as_text=True)
    assert cancel_link(edit) == "/hours"
    # The form posts to the entry's plain URL: the foreign way back is not carried on.
    sent = drawn_form(edit, url)
    sent["hours"] = "2"
    response = client.post(link, data=sent)

    assert response.status_code == 302 and response.headers["Location"] == "/hours"
    db.expire_all()
    assert db.get(HourLog, int(url.split("/")[2])).hours == 2


def test_an_edit_without_a_way_back_returns_to_the_list(db, client, auth, alice):
    log_entries(db, alice, 1)
    auth.sign_in(alice)
    [link] = edit_links(client, "/hours")
    url = link.split("?")[0]

    edit = client.get(url).get_data(as_text=True)
    assert cancel_link(edit) == "/hours"
    sent = drawn_form(edit, url)
    sent["logged_on"] = (factories.TODAY - dt.timedelta(days=3)).isoformat()

    assert client.post(url, data=sent).headers["Location"] == "/hours"
