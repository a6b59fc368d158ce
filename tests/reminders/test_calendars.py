"""Calendar feeds: secret, revocable .ics URLs for an engineer and for a team."""

from __future__ import annotations

import datetime as dt
import re
from html import unescape
from urllib.parse import urlencode, urlsplit

import pytest
from flask.testing import FlaskClient
from icalendar import Calendar
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import ELSEWHERE, confirmation
from tests.reminders.helpers import MAIL, WINDOWS, days_before, holder, outbox
from tracker.people.models import Engineer, Team
from tracker.reminders import calendars
from tracker.reminders.services.daily_pass import plan

D = dt.date
BASE_URL = "http://127.0.0.1:5000"


def events(body: str | bytes) -> dict[str, dt.date]:
    """Parse a feed; return each event's summary with its (all-day) date."""
    calendar = Calendar.from_ical(body)
    found = {}
    for event in calendar.walk("VEVENT"):
        start = event.decoded("dtstart")
        assert isinstance(start, dt.date) and not isinstance(start, dt.datetime)
        assert event.decoded("dtend") == start + dt.timedelta(days=1)
        found[str(event["summary"])] = start
    return found


def uids(body: str | bytes) -> dict[str, str]:
    return {str(e["summary"]): str(e["uid"]) for e in Calendar.from_ical(body).walk("VEVENT")}


def path(url: str) -> str:
    return urlsplit(url).path


def feed_url(html: str) -> str:
    match = re.search(r'<a href="([^"]+)" class="feed-url">', html)
    assert match, "no feed URL on the page"
    return unescape(match.group(1))


@pytest.fixture
def ada(db: Session) -> Engineer:
    """An engineer with a current, a renewed, an open-ended and a lapsed certification."""
    who = factories.engineer(db, name="Ada Lovelace")
    factories.certification(db, who, "NCA-AIIO", D(2025, 3, 1), D(2027, 3, 1))
    old = factories.certification(db, who, "NCP-AII", D(2022, 6, 1), D(2024, 6, 1))
    new = factories.certification(db, who, "NCP-AII", D(2024, 5, 20), D(2026, 5, 20))
    new.renews_id = old.id
    factories.certification(db, who, "CISSP", D(2023, 1, 10))  # no expiry
    factories.certification(db, who, "CKA", D(2023, 1, 10), D(2026, 1, 10))  # lapsed, current
    db.flush()
    return who


# --- the feed itself -------------------------------------------------------------


def test_engineer_feed_has_one_event_per_current_certification_on_its_expiry(db, ada):
    body = calendars.engineer_feed(db, ada, BASE_URL)
    assert events(body) == {
        "Ada Lovelace: CKA valid through this day": D(2026, 1, 10),
        # The renewal, not the one it replaced.
        "Ada Lovelace: NCP-AII valid through this day": D(2026, 5, 20),
        "Ada Lovelace: NCA-AIIO valid through this day": D(2027, 3, 1),
    }
    calendar = Calendar.from_ical(body)
    assert str(calendar["version"]) == "2.0"
    assert "Ada Lovelace" in str(calendar["x-wr-calname"])


def test_a_newer_certification_replaces_the_old_one_even_without_a_renewal_link(db, ada):
    factories.certification(db, ada, "NCA-AIIO", D(2026, 11, 1), D(2028, 11, 1))
    assert events(calendars.engineer_feed(db, ada, BASE_URL))[
        "Ada Lovelace: NCA-AIIO valid through this day"
    ] == D(2028, 11, 1)


def test_event_uids_are_stable_per_certification(db, ada):
    first = uids(calendars.engineer_feed(db, ada, BASE_URL))
    factories.certification(db, ada, "CCSP", D(2025, 1, 1), D(2028, 1, 1))
    second = uids(calendars.engineer_feed(db, ada, BASE_URL))
    assert {k: second[k] for k in first} == first
    assert len(set(second.values())) == len(second)
    assert all(re.fullmatch(r"cert-\d+@127\.0\.0\.1", uid) for uid in second.values())


def test_an_engineer_without_expiring_certifications_gets_an_empty_calendar(db):
    who = factories.engineer(db)
    factories.certification(db, who, "CISSP", D(2023, 1, 10))
    assert events(calendars.engineer_feed(db, who, BASE_URL)) == {}


def test_team_feed_covers_every_active_member(db, ada):
    manager = factories.engineer(db, access_role="manager", name="Grace Hopper")
    team = factories.team(db, manager=manager)
    ada.team_id = team.id
    alan = factories.engineer(db, name="Alan Turing", team=team)
    factories.certification(db, alan, "NCA-AIIO", D(2025, 9, 1), D(2027, 9, 1))
    gone = factories.engineer(db, name="Gone Person", team=team)
    factories.certification(db, gone, "NCA-AIIO", D(2025, 9, 1), D(2027, 10, 1))
    gone.active = False
    outsider = factories.engineer(db, name="Out Sider")
    factories.certification(db, outsider, "CKA", D(2025, 9, 1), D(2027, 11, 1))
    db.flush()
    assert events(calendars.team_feed(db, team, BASE_URL)) == {
        "Ada Lovelace: CKA valid through this day": D(2026, 1, 10),
        "Ada Lovelace: NCP-AII valid through this day": D(2026, 5, 20),
        "Ada Lovelace: NCA-AIIO valid through this day": D(2027, 3, 1),
        "Alan Turing: NCA-AIIO valid through this day": D(2027, 9, 1),
    }
    # The same certification has the same UID in both feeds (and in the reminder's .ics).
    mine = uids(calendars.engineer_feed(db, ada, BASE_URL))
    team_uids = uids(calendars.team_feed(db, team, BASE_URL))
    assert (
        team_uids["Ada Lovelace: CKA valid through this day"]
        == mine["Ada Lovelace: CKA valid through this day"]
    )


def test_new_tokens_are_long_random_and_url_safe():
    tokens = {calendars.new_token() for _ in range(20)}
    assert len(tokens) == 20
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{43}", t) for t in tokens)


# --- the URLs ----------------------------------------------------------------------


def test_engineer_feed_url_needs_no_sign_in(client, db, ada):
    token = calendars.replace_token(db, ada)
    response = client.get(f"/calendar/engineer/{token}.ics")
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "text/calendar; charset=utf-8"
    assert "no-cache" in response.headers["Cache-Control"]
    assert events(response.data) == events(calendars.engineer_feed(db, ada, BASE_URL))


def test_team_feed_url_needs_no_sign_in(client, db, ada):
    team = factories.team(db)
    ada.team_id = team.id
    token = calendars.replace_token(db, team)
    response = client.get(f"/calendar/team/{token}.ics")
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "text/calendar; charset=utf-8"
    assert "Ada Lovelace: NCA-AIIO valid through this day" in events(response.data)


@pytest.mark.parametrize(
    "url",
    [
        "/calendar/engineer/{token}x.ics",
        "/calendar/engineer/{token}",
        "/calendar/engineer/short.ics",
        "/calendar/engineer/{token}%27%20OR%201=1.ics",
        "/calendar/team/{token}.ics",  # an engineer's token is not a team's
        "/calendar/team/None.ics",
    ],
)
def test_unknown_tokens_answer_404(client, db, ada, url):
    token = calendars.replace_token(db, ada)
    assert client.get(url.format(token=token)).status_code == 404


def test_a_team_without_a_token_has_no_feed(client, db):
    factories.team(db)  # calendar_token is NULL
    assert client.get("/calendar/team/.ics").status_code == 404


def test_a_deactivated_engineers_feed_answers_404(client, db, ada):
    token = calendars.replace_token(db, ada)
    ada.active = False
    db.flush()
    assert client.get(f"/calendar/engineer/{token}.ics").status_code == 404


# --- the profile's calendar section ----------------------------------------------------


@pytest.fixture
def ada_client(client: FlaskClient, auth, ada) -> FlaskClient:
    auth.sign_in(ada)
    return client


def test_profile_offers_to_create_a_feed(ada_client, db, ada):
    html = ada_client.get("/profile").text
    assert "Calendar feed" in html
    assert "Create calendar link" in html
    assert 'action="/calendar/mine/token"' in html
    assert "Remove link" not in html


def test_creating_replacing_and_removing_the_own_feed(app, ada_client, db, ada):
    stranger = app.test_client()  # a calendar program: no session
    response = ada_client.post("/calendar/mine/token")
    assert response.status_code == 302 and response.headers["Location"] == "/profile"
    db.refresh(ada)
    first = ada.calendar_token
    assert first and len(first) == 43

    html = ada_client.get("/profile").text
    assert "Calendar feed created" in html
    url = feed_url(html)
    assert url == f"{app.config['BASE_URL'].rstrip('/')}/calendar/engineer/{first}.ics"
    assert "Replace link" in html and "Remove link" in html
    assert stranger.get(path(url)).status_code == 200

    # Replacing revokes the old URL at once.
    assert ada_client.post("/calendar/mine/token").status_code == 302
    db.refresh(ada)
    assert ada.calendar_token not in (None, first)
    assert stranger.get(path(url)).status_code == 404
    new_url = feed_url(ada_client.get("/profile").text)
    assert new_url != url
    assert stranger.get(path(new_url)).status_code == 200

    # Removing revokes it too, and the page offers to create one again.
    assert ada_client.post("/calendar/mine/token/remove").status_code == 302
    db.refresh(ada)
    assert ada.calendar_token is None
    html = ada_client.get("/profile").text
    assert "Calendar feed removed" in html and "Create calendar link" in html
    assert stranger.get(path(new_url)).status_code == 404


def test_the_profile_still_shows_the_feed_after_a_refused_form(ada_client, db, ada):
    token = calendars.replace_token(db, ada)
    response = ada_client.post("/profile/password", data={"current": "", "new": ""})
    assert response.status_code == 400
    assert f"/calendar/engineer/{token}.ics" in response.text


@pytest.mark.parametrize("url", ["/calendar/mine/token", "/calendar/mine/token/remove"])
def test_managing_a_feed_needs_sign_in(client, db, ada, url):
    token = calendars.replace_token(db, ada)
    response = client.post(url)
    assert response.status_code == 302 and "/login" in response.headers["Location"]
    db.refresh(ada)
    assert ada.calendar_token == token


def test_managing_a_feed_needs_the_csrf_token(ada_client, db, ada, request):
    request.getfixturevalue("csrf_enabled")
    assert ada_client.post("/calendar/mine/token").status_code == 400
    db.refresh(ada)
    assert ada.calendar_token is None

    html = ada_client.get("/profile").text
    match = re.search(r'name="feed-replace-csrf_token"[^>]*value="([^"]+)"', html)
    assert match
    token = unescape(match.group(1))
    response = ada_client.post("/calendar/mine/token", data={"feed-replace-csrf_token": token})
    assert response.status_code == 302
    db.refresh(ada)
    assert ada.calendar_token is not None

    saved = ada.calendar_token
    assert ada_client.post("/calendar/mine/token/remove").status_code == 400
    db.refresh(ada)
    assert ada.calendar_token == saved


def test_another_user_cannot_revoke_someone_elses_feed(client, auth, db, ada):
    token = calendars.replace_token(db, ada)
    mallory = factories.engineer(db, access_role="admin")
    auth.sign_in(mallory)
    assert client.post("/calendar/mine/token/remove").status_code == 302
    assert client.post("/calendar/mine/token").status_code == 302
    db.refresh(ada)
    db.refresh(mallory)
    assert ada.calendar_token == token
    assert mallory.calendar_token not in (None, token)
    assert client.get(f"/calendar/engineer/{token}.ics").status_code == 200
    # Nobody else's profile shows Ada's feed.
    assert token not in client.get("/profile").text


# --- the team page's calendar section ---------------------------------------------------


@pytest.fixture
def team(db, ada) -> Team:
    manager = factories.engineer(db, access_role="manager", name="Grace Hopper")
    team = factories.team(db, manager=manager)
    ada.team_id = team.id
    db.flush()
    return team


def test_the_teams_manager_creates_replaces_and_removes_its_feed(app, client, auth, db, team):
    auth.sign_in(team.manager)
    html = client.get(f"/teams/{team.id}").text
    assert "Calendar feed" in html and "Create calendar link" in html

    response = client.post(f"/calendar/team/{team.id}/token")
    assert response.status_code == 302
    assert response.headers["Location"] == f"/teams/{team.id}"
    url = feed_url(client.get(f"/teams/{team.id}").text)
    db.refresh(team)
    assert url == f"{app.config['BASE_URL'].rstrip('/')}/calendar/team/{team.calendar_token}.ics"
    assert "Ada Lovelace: NCA-AIIO valid through this day" in events(client.get(path(url)).data)

    assert client.post(f"/calendar/team/{team.id}/token").status_code == 302
    assert client.get(path(url)).status_code == 404
    url = feed_url(client.get(f"/teams/{team.id}").text)
    assert client.get(path(url)).status_code == 200

    assert client.post(f"/calendar/team/{team.id}/token/remove").status_code == 302
    db.refresh(team)
    assert team.calendar_token is None
    assert client.get(path(url)).status_code == 404


def test_the_team_feeds_buttons_come_back_to_the_what_if_asked(db, client, auth, team):
    auth.sign_in(team.manager)
    asked = f"/teams/{team.id}?gpus=512&on=2027-01-15"
    action, fields = _button(client.get(asked).text, "Create calendar link")
    created = client.post(action, data=fields)
    assert created.status_code == 302 and created.headers["Location"] == asked

    page = client.get(asked).text
    assert 'value="512"' in page  # the page still answers the question asked
    action, fields = _button(page, "Replace link")
    replaced = client.post(action, data=fields)
    assert replaced.status_code == 302 and replaced.headers["Location"] == asked

    remove = re.search(r'<a href="([^"]*)" role="button" class="inline-button">Remove link', page)
    assert remove
    removal = confirmation(client, unescape(remove.group(1)))
    assert removal.back == f"{asked}#calendar-feed"
    removed = removal.confirm()
    assert removed.status_code == 302 and removed.headers["Location"] == asked
    db.refresh(team)
    assert team.calendar_token is None


def _button(html: str, label: str) -> tuple[str, dict[str, str]]:
    """Return where the page's form with the button `label` posts, and its hidden fields."""
    for form in re.findall(r"<form [^>]*>.*?</form>", html, re.S):
        if f">{label}</button>" in form:
            action = re.search(r'action="([^"]*)"', form)
            assert action
            hidden = re.findall(r'<input [^>]*name="([^"]*)"[^>]*value="([^"]*)"', form)
            return unescape(action.group(1)), {n: unescape(v) for n, v in hidden}
    raise AssertionError(f"no form with a {label!r} button")


@pytest.mark.parametrize("elsewhere", ELSEWHERE)
def test_a_team_feeds_way_back_off_this_site_is_ignored(db, client, auth, team, elsewhere):
    auth.sign_in(team.manager)
    query = urlencode({"back": elsewhere})

    created = client.post(f"/calendar/team/{team.id}/token?{query}")
    assert created.headers["Location"] == f"/teams/{team.id}"
    assert confirmation(client, f"/calendar/team/{team.id}/token/remove?{query}").back == (
        f"/teams/{team.id}#calendar-feed"
    )
    removed = client.post(f"/calendar/team/{team.id}/token/remove?{query}")
    assert removed.headers["Location"] == f"/teams/{team.id}"


def test_an_admin_may_manage_any_teams_feed(client, auth, db, team):
    admin = factories.engineer(db, access_role="admin")
    auth.sign_in(admin)
    assert client.post(f"/calendar/team/{team.id}/token").status_code == 302
    db.refresh(team)
    assert team.calendar_token is not None


@pytest.mark.parametrize("role", ["engineer", "manager"])
@pytest.mark.parametrize("action", ["token", "token/remove"])
def test_others_cannot_touch_a_teams_feed(client, auth, db, team, role, action):
    token = calendars.replace_token(db, team)
    other = factories.engineer(db, access_role=role)
    auth.sign_in(other)
    assert client.post(f"/calendar/team/{team.id}/{action}").status_code == 403
    db.refresh(team)
    assert team.calendar_token == token


def test_managing_a_team_feed_needs_sign_in_and_a_known_team(client, auth, db, team):
    response = client.post(f"/calendar/team/{team.id}/token")
    assert response.status_code == 302 and "/login" in response.headers["Location"]
    auth.sign_in(team.manager)
    assert client.post(f"/calendar/team/{team.id + 1000}/token").status_code == 404


def test_a_feed_unchanged_since_the_calendars_copy_answers_304(client, db, ada):
    token = calendars.replace_token(db, ada)
    url = f"/calendar/engineer/{token}.ics"
    first = client.get(url)
    etag = first.headers["ETag"]

    again = client.get(url, headers={"If-None-Match": etag})

    assert again.status_code == 304 and again.data == b""
    assert again.headers["ETag"] == etag
    assert "no-cache" in again.headers["Cache-Control"]
    # A new certification changes the feed: the calendar gets the whole of it.
    factories.certification(db, ada, "RHCE", D(2026, 11, 1), D(2028, 11, 1))
    db.flush()
    changed = client.get(url, headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag
    assert any("RHCE" in summary for summary in events(changed.data))


# --- the same event in mail and feeds ----------------------------------------------------


def _event_of(body: str | bytes) -> dict[str, object]:
    """Parse a one-certification calendar; return its event's properties, decoded."""
    (event,) = Calendar.from_ical(body).walk("VEVENT")
    return {name: event.decoded(name) for name in event}


@pytest.mark.parametrize("locale", ["en", "es"])
def test_a_mailed_ics_and_the_feeds_carry_the_same_event(db, locale):
    """A manager who subscribes to the team's feed and is mailed the escalation (and the
    reminder's copy) gets one event, not two versions of it with one UID."""
    own = factories.engineer(db, name="Own Boss", access_role="manager", locale=locale)
    lead = factories.engineer(db, name="Team Lead", access_role="manager", locale=locale)
    # The small template's two operations seats: the lapse leaves one no one can fill.
    crew = factories.team(db, gpus=64, manager=lead, name="Ops")
    ana, cert = holder(
        db, name="Ana Ops", team=crew, manager=own, level=2, job_roles=("operations",)
    )
    ana.locale = locale
    plan(db, days_before(90), WINDOWS, MAIL)
    plan(db, days_before(30), WINDOWS, MAIL)
    mailed = {n.kind: n for n in outbox(db) if n.certification_id == cert.id}
    assert {"reminder", "escalation"} <= set(mailed)
    assert lead.email in mailed["escalation"].to_addrs
    assert lead.email in mailed["reminder"].cc_addrs
    team = _event_of(calendars.team_feed(db, crew, MAIL.base_url))
    mine = _event_of(calendars.engineer_feed(db, ana, MAIL.base_url))
    assert team == mine
    assert team["UID"] == f"cert-{cert.id}@tracker.example.com".encode()
    for kind in ("escalation", "reminder"):
        assert _event_of(mailed[kind].ics or "") == team, kind


def test_removing_the_own_feed_asks_first(app, ada_client, db, ada):
    token = calendars.replace_token(db, ada)
    assert 'href="/calendar/mine/token/remove" role="button"' in ada_client.get("/profile").text

    asked = confirmation(ada_client, "/calendar/mine/token/remove")

    assert asked.question == "Remove the link to your calendar feed?"
    assert "The link stops working at once" in asked.text
    assert "The certifications and their dates stay as they are" in asked.text
    assert asked.back == "/profile#calendar-feed"
    db.refresh(ada)
    assert ada.calendar_token == token
    assert app.test_client().get(f"/calendar/engineer/{token}.ics").status_code == 200

    response = asked.confirm()

    assert response.status_code == 302 and response.headers["Location"] == "/profile"
    db.refresh(ada)
    assert ada.calendar_token is None
    # No link left: nothing to ask about, back to the profile.
    response = ada_client.get("/calendar/mine/token/remove")
    assert response.status_code == 302 and response.headers["Location"] == "/profile#calendar-feed"


def test_removing_a_teams_feed_asks_first(client, auth, db, team):
    token = calendars.replace_token(db, team)
    auth.sign_in(team.manager)
    url = f"/calendar/team/{team.id}/token/remove?back=/teams/{team.id}"
    assert f'href="{url}"' in client.get(f"/teams/{team.id}").text

    asked = confirmation(client, url)

    assert asked.question == f"Remove the link to {team.name}'s calendar feed?"
    assert asked.back == f"/teams/{team.id}#calendar-feed"
    db.refresh(team)
    assert team.calendar_token == token
    assert asked.confirm().status_code == 302
    db.refresh(team)
    assert team.calendar_token is None
