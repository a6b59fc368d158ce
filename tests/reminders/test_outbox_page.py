"""The admin outbox page: who may see it, filters, pages, failed rows and their retry."""

from __future__ import annotations

import datetime as dt
import itertools
import re
from html import unescape

import pytest
from flask.testing import FlaskClient
from sqlalchemy.orm import Session

from tests import factories
from tracker.reminders.models import Notification

_seq = itertools.count(1)
CREATED = dt.datetime(2026, 11, 1, 7, 0)


def notice(db: Session, **values: object) -> Notification:
    """Insert an outbox row directly; each one is created an hour after the last."""
    n = next(_seq)
    row = Notification(
        dedupe_key=f"test:{n}",
        kind="reminder",
        to_addrs=f"person{n}@example.com",
        cc_addrs="",
        subject=f"Notice {n}",
        body_text="text",
        body_html="<p>html</p>",
        message_id=f"<test.{n}@example.com>",
        status="pending",
        attempts=0,
        next_attempt_at=CREATED,
        created_at=CREATED + dt.timedelta(hours=n),
    )
    for key, value in values.items():
        setattr(row, key, value)
    db.add(row)
    db.flush()
    return row


def rows_shown(html: str) -> list[str]:
    """Return the ids of the outbox rows on the page, top to bottom."""
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return re.findall(r"<tr[^>]*>\s*<td>(\d+)</td>", body)


def ids(*rows: Notification) -> list[str]:
    return [str(r.id) for r in rows]


@pytest.fixture
def admin(db):
    return factories.engineer(db, access_role="admin")


@pytest.fixture
def admin_client(client: FlaskClient, auth, admin) -> FlaskClient:
    auth.sign_in(admin)
    return client


# --- who may see it -----------------------------------------------------------


def test_anonymous_is_sent_to_sign_in(client, db):
    row = notice(db, status="failed")
    for response in (client.get("/admin/outbox"), client.post(f"/admin/outbox/{row.id}/retry")):
        assert response.status_code == 302
        assert "/login" in response.headers["Location"]
    db.refresh(row)
    assert row.status == "failed"


@pytest.mark.parametrize("role", ["engineer", "manager"])
def test_engineers_and_managers_are_refused(client, auth, db, role):
    row = notice(db, status="failed")
    person = factories.engineer(db, access_role=role)
    auth.sign_in(person)
    assert client.get("/admin/outbox").status_code == 403
    assert client.post(f"/admin/outbox/{row.id}/retry").status_code == 403
    db.refresh(row)
    assert row.status == "failed"
    assert 'href="/admin/outbox"' not in client.get("/dashboard").text


def test_admin_sees_the_page_and_the_menu_links(admin_client):
    response = admin_client.get("/admin/outbox")
    assert response.status_code == 200
    assert "<h1>Outbox</h1>" in response.text
    # In the main menu and in the admin section's menu.
    assert response.text.count('href="/admin/outbox"') >= 2
    assert "The outbox is empty" in response.text


# --- the list -------------------------------------------------------------------


def test_rows_show_newest_first_with_their_details(admin_client, db):
    older = notice(
        db,
        kind="reminder",
        to_addrs="ada@example.com",
        cc_addrs="boss@example.com",
        subject="NCA-AIIO valid through 2027-03-01 (30 days from today)",
        status="sent",
        attempts=1,
        sent_at=dt.datetime(2026, 11, 2, 7, 5),
    )
    newer = notice(
        db,
        kind="digest",
        to_addrs="boss@example.com",
        subject="Weekly digest: 2 certifications expiring within 90 days",
        status="pending",
        attempts=2,
        next_attempt_at=dt.datetime(2026, 11, 29, 8, 30),
        last_error="451 4.3.0 try again later",
    )
    html = admin_client.get("/admin/outbox").text
    assert rows_shown(html) == ids(newer, older)
    text = unescape(html)
    for shown in (
        "ada@example.com",
        "cc: boss@example.com",
        "NCA-AIIO valid through 2027-03-01 (30 days from today)",
        "Nov 2, 2026 07:05",  # sent
        "Nov 29, 2026 08:30",  # next attempt of the pending row
        "451 4.3.0 try again later",
        "digest",
    ):
        assert shown in text, shown
    assert "2 notices" in text


def test_a_failed_row_is_marked_by_text_and_icon_and_shows_its_error(admin_client, db):
    row = notice(db, status="failed", attempts=1, last_error="550 5.1.1 no such user here")
    html = admin_client.get("/admin/outbox").text
    line = html.split(f"<td>{row.id}</td>", 1)[1].split("</tr>", 1)[0]
    assert re.search(r'<span aria-hidden="true">✖</span>\s*failed', line)
    assert "550 5.1.1 no such user here" in line
    assert f"Retry #{row.id}" in line
    assert f'action="/admin/outbox/{row.id}/retry' in line


def test_only_failed_rows_offer_a_retry(admin_client, db):
    rows = [notice(db, status=s) for s in ("pending", "sending", "sent")]
    html = admin_client.get("/admin/outbox").text
    assert "Retry" not in html
    assert rows_shown(html) == ids(*reversed(rows))


def test_a_script_in_a_subject_or_error_is_shown_as_text(admin_client, db):
    notice(
        db,
        status="failed",
        subject="<script>alert('subject')</script>",
        to_addrs="<img src=x onerror=alert(1)>@example.com",
        last_error="<script>alert('error')</script>",
    )
    html = admin_client.get("/admin/outbox").text
    assert "<script>" not in html
    assert "<img src=x" not in html
    assert "&lt;script&gt;alert(&#39;subject&#39;)&lt;/script&gt;" in html
    assert "&lt;script&gt;alert(&#39;error&#39;)&lt;/script&gt;" in html


# --- filters ----------------------------------------------------------------------


@pytest.fixture
def mixed(db):
    return {
        "failed": notice(db, status="failed", to_addrs="grace@example.com", subject="CKA expired"),
        "sent": notice(db, status="sent", to_addrs="alan@example.com", subject="NCP-AII in 7 days"),
        "digest": notice(
            db, kind="digest", to_addrs="boss@example.com", cc_addrs="", subject="Weekly digest"
        ),
        "cc": notice(
            db,
            kind="escalation",
            to_addrs="boss@example.com",
            cc_addrs="grace@example.com",
            subject="Escalation: readiness drops",
        ),
    }


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ({"status": "failed"}, ["failed"]),
        ({"status": "sent"}, ["sent"]),
        ({"kind": "digest"}, ["digest"]),
        ({"kind": "reminder", "status": "pending"}, []),
        ({"q": "GRACE@"}, ["cc", "failed"]),  # recipient, to or cc, any case
        ({"q": "weekly DIGEST"}, ["digest"]),  # subject
        ({"q": "grace", "kind": "escalation"}, ["cc"]),
        ({"q": "%"}, []),  # a literal percent sign, not a wildcard
        ({"status": "", "kind": "", "q": ""}, ["cc", "digest", "sent", "failed"]),
    ],
)
def test_filters(admin_client, mixed, query, expected):
    response = admin_client.get("/admin/outbox", query_string=query)
    assert response.status_code == 200
    assert rows_shown(response.text) == ids(*(mixed[name] for name in expected))
    if not expected:
        assert "No notice matches these filters." in response.text


def test_the_filter_form_is_drawn_by_the_form_macro_and_keeps_its_values(admin_client, mixed):
    html = admin_client.get("/admin/outbox", query_string={"status": "failed", "q": "grace"}).text
    assert '<form method="get" action="/admin/outbox"' in html
    assert '<label for="status">Status</label>' in html
    assert '<option selected value="failed">failed</option>' in html
    assert 'value="grace"' in html
    assert "csrf_token" not in html.split('<form method="get"', 1)[1].split("</form>", 1)[0]


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"status": "lost"}, "status must be one of pending, sending, sent, failed"),
        ({"kind": "spam"}, "kind must be one of reminder, expired, escalation, digest"),
        ({"q": "x" * 201}, "search at most 200 characters"),
    ],
)
def test_a_bad_filter_answers_400_next_to_its_field(admin_client, mixed, query, message):
    response = admin_client.get("/admin/outbox", query_string=query)
    assert response.status_code == 400
    assert message in unescape(response.text)


def test_pages_of_fifty_keep_the_filters(admin_client, db):
    rows = [notice(db, kind="digest") for _ in range(51)]
    notice(db, kind="reminder")
    first = admin_client.get("/admin/outbox", query_string={"kind": "digest"})
    assert rows_shown(first.text) == ids(*reversed(rows[1:]))
    assert "page 1 of 2" in first.text
    older = re.search(r'href="([^"]+)" rel="next"', first.text)
    assert older
    link = unescape(older.group(1))
    assert "kind=digest" in link and "page=2" in link
    second = admin_client.get(link)
    assert rows_shown(second.text) == ids(rows[0])
    assert 'rel="prev"' in second.text and 'rel="next"' not in second.text
    # Past the end: the last page.
    assert rows_shown(admin_client.get("/admin/outbox?kind=digest&page=9").text) == ids(rows[0])
    assert admin_client.get("/admin/outbox?page=nonsense").status_code == 200


# --- retry ----------------------------------------------------------------------------


def test_retrying_a_failed_row_puts_it_back_in_the_queue(admin_client, db):
    row = notice(db, status="failed", attempts=1, last_error="550 mailbox unavailable")
    response = admin_client.post(f"/admin/outbox/{row.id}/retry?status=failed&q=person")
    assert response.status_code == 302
    assert response.headers["Location"] == "/admin/outbox?status=failed&q=person"
    db.refresh(row)
    assert row.status == "pending"
    assert row.next_attempt_at <= dt.datetime.now(dt.UTC).replace(tzinfo=None)
    page = admin_client.get("/admin/outbox").text
    assert f"Notice #{row.id} queued again" in page
    line = page.split(f"<td>{row.id}</td>", 1)[1].split("</tr>", 1)[0]
    assert "pending" in line and "Retry" not in line


@pytest.mark.parametrize("status", ["sent", "pending", "sending"])
def test_retrying_a_row_that_has_not_failed_answers_400(admin_client, db, status):
    row = notice(db, status=status, attempts=1)
    response = admin_client.post(f"/admin/outbox/{row.id}/retry")
    assert response.status_code == 400
    assert f"Notice #{row.id} is {status}: only a failed notice can be retried" in unescape(
        response.text
    )
    db.refresh(row)
    assert row.status == status


def test_retrying_an_unknown_row_answers_404(admin_client, db):
    row = notice(db, status="failed")
    assert admin_client.post(f"/admin/outbox/{row.id + 1000}/retry").status_code == 404


def test_retry_needs_the_csrf_token(admin_client, db, request):
    row = notice(db, status="failed")
    request.getfixturevalue("csrf_enabled")
    assert admin_client.post(f"/admin/outbox/{row.id}/retry").status_code == 400
    db.refresh(row)
    assert row.status == "failed"

    html = admin_client.get("/admin/outbox").text
    field = f"retry-{row.id}-csrf_token"
    token = re.search(rf'name="{field}"[^>]*value="([^"]+)"', html)
    assert token
    response = admin_client.post(
        f"/admin/outbox/{row.id}/retry", data={field: unescape(token.group(1))}
    )
    assert response.status_code == 302
    db.refresh(row)
    assert row.status == "pending"
