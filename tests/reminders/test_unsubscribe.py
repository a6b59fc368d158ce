"""The weekly digest's one-click unsubscribe: the signed link, its headers, its page.

RFC 2369 (List-Unsubscribe), RFC 8058 (List-Unsubscribe-Post: a POST of
List-Unsubscribe=One-Click, no cookie, no CSRF token), as Gmail and Yahoo ask
of bulk mail. The digest is delivered over real SMTP and read back with the
strict parser; the link is then used as a mail client would.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest
from flask import Flask
from itsdangerous import URLSafeSerializer
from sqlalchemy.orm import Session

from tests import factories
from tests.factories import KEYS, SECRET_KEY
from tests.helpers import count, csrf_protection
from tests.reminders.conftest import SmtpServer
from tests.reminders.helpers import (
    BASE_URL,
    MAIL,
    WINDOWS,
    account_changes,
    days_before,
    holder,
    html_text,
    outbox,
    run,
    strict,
    text_links,
)
from tracker.audit.models import AccountEvent
from tracker.config import SecretKeys
from tracker.people.models import Engineer
from tracker.reminders.jobs import mail_settings
from tracker.reminders.rules import DIGEST_LIST, UNSUBSCRIBE_PATH, UNSUBSCRIBE_SALT
from tracker.reminders.services.daily_pass import plan
from tracker.reminders.services.delivery import deliver
from tracker.reminders.services.unsubscribe import (
    subscriber,
    unsubscribe_token,
    unsubscribe_url,
)

ONE_CLICK = {"List-Unsubscribe": "One-Click"}
# The pass's day: 90 days before the expiry, the boss's digest among its notices.
DAY = days_before(90)


@pytest.fixture
def boss(db: Session) -> Engineer:
    """A manager whose report's certification expires within the digest's horizon."""
    manager = factories.engineer(db, name="Boss", access_role="manager")
    holder(db, manager=manager)
    return manager


def _flipped(signature: str) -> str:
    """Return the signature with its first character changed.

    Not the last: base64 leaves that one's low bits unused, so some changes to it
    decode to the very same signature.
    """
    return ("A" if signature[0] != "A" else "B") + signature[1:]


def _link(person: Engineer) -> str:
    return f"{UNSUBSCRIBE_PATH}/{unsubscribe_token(SECRET_KEY, person.id)}"


def _digest_off(db: Session, person: Engineer) -> bool:
    db.expire(person)
    return not person.weekly_digest


# --- the token ----------------------------------------------------------------------


def test_the_token_names_the_person_and_the_list_and_nothing_else_opens():
    token = unsubscribe_token(SECRET_KEY, 42)
    assert subscriber(KEYS, token) == 42
    assert unsubscribe_url("https://t.example.com/", SECRET_KEY, 42) == (
        f"https://t.example.com/mail/unsubscribe/{token}"
    )
    # Never expires: the same person and list give the same token, whenever.
    assert unsubscribe_token(SECRET_KEY, 42) == token
    payload, signature = token.rsplit(".", 1)
    other = unsubscribe_token(SECRET_KEY, 43).rsplit(".", 1)[0]
    flipped = _flipped(signature)
    refused = [
        "",
        "garbage",
        payload,  # cut short
        f"{payload}.{flipped}",  # tampered signature
        f"{other}.{signature}",  # another person's payload under this signature
        unsubscribe_token("another deployment's key", 42),
        # Signed by this key for something else: another salt, another list.
        URLSafeSerializer(SECRET_KEY, salt="tracker.record-version").dumps([42, DIGEST_LIST]),
        URLSafeSerializer(SECRET_KEY, salt=UNSUBSCRIBE_SALT).dumps([42, "newsletter"]),
        URLSafeSerializer(SECRET_KEY, salt=UNSUBSCRIBE_SALT).dumps([2**31, DIGEST_LIST]),
        URLSafeSerializer(SECRET_KEY, salt=UNSUBSCRIBE_SALT).dumps([True, DIGEST_LIST]),
        URLSafeSerializer(SECRET_KEY, salt=UNSUBSCRIBE_SALT).dumps({"id": 42}),
    ]
    assert [subscriber(KEYS, bad) for bad in refused] == [None] * len(refused)


# --- the delivered digest -------------------------------------------------------------


def test_a_delivered_digest_carries_the_one_click_headers_and_its_footer(
    app: Flask, db: Session, factory, smtp: SmtpServer, boss: Engineer
):
    plan(db, DAY, WINDOWS, MAIL)
    db.flush()
    deliver(factory, smtp.settings, dt.datetime.combine(DAY, dt.time(8, 30)))
    received = {r.subject.split(":")[0]: r for r in smtp.mailbox.received}
    digest = strict(received["Weekly digest"].content)
    expected = f"{BASE_URL}{_link(boss)}"

    assert digest["List-Unsubscribe"] == f"<{expected}>"
    assert digest["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    # On one line, as written: an encoded word or a fold inside <...> is no URL.
    head = received["Weekly digest"].content.split(b"\r\n\r\n")[0].decode("ascii")
    assert f"\r\nList-Unsubscribe: <{expected}>\r\n" in head
    assert "\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n" in head

    # The body's last line links the same page, in the text and the HTML.
    text = digest.get_body(("plain",)).get_content()  # type: ignore[union-attr]
    html = digest.get_body(("html",)).get_content()  # type: ignore[union-attr]
    assert text.rstrip().splitlines()[-1] == (
        f"You get this digest every week. Stop getting it <{expected}>"
    )
    assert text_links(text)[-1] == expected
    said, links = html_text(html)
    assert said.endswith(f"You get this digest every week. Stop getting it <{expected}>")
    assert links[-1] == expected

    # Other mail is not bulk: no List-Unsubscribe on the reminder nor the escalation.
    others = [
        strict(r.content) for r in smtp.mailbox.received if r is not received["Weekly digest"]
    ]
    assert others
    assert all(m["List-Unsubscribe"] is None for m in others)
    assert all(m["List-Unsubscribe-Post"] is None for m in others)

    # The mail client's one click, as RFC 8058 has it: the header's URL, its POST body,
    # no cookie, no CSRF token (protection on).
    with csrf_protection(app):
        answer = app.test_client(use_cookies=False).post(
            expected.removeprefix(BASE_URL), data=ONE_CLICK
        )
    assert answer.status_code == 200
    assert "Set-Cookie" not in answer.headers
    assert _digest_off(db, boss)


def test_the_digest_footer_is_in_the_managers_language(db: Session):
    boss = factories.engineer(db, name="Jefa", access_role="manager", locale="es")
    holder(db, manager=boss)
    run(db, DAY)
    (digest,) = outbox(db, "digest")
    link = f"{BASE_URL}{_link(boss)}"
    assert digest.unsubscribe_url == link
    assert (digest.body_text or "").rstrip().splitlines()[-1] == (
        f"Recibes este resumen cada semana. Dejar de recibirlo <{link}>"
    )
    assert f'<a href="{link}">Dejar de recibirlo</a>' in digest.body_html


def test_only_the_digest_is_queued_with_an_unsubscribe_link(db: Session, boss: Engineer):
    run(db, DAY)
    kinds = {n.kind: n.unsubscribe_url for n in outbox(db)}
    assert kinds.pop("digest") == f"{BASE_URL}{_link(boss)}"
    assert kinds and set(kinds.values()) == {None}


# --- the page -----------------------------------------------------------------------------


def test_the_link_asks_first_and_changes_nothing(app: Flask, db: Session, boss: Engineer):
    events = count(db, AccountEvent)
    page = app.test_client().get(_link(boss))
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "<h1>Stop the weekly digest?</h1>" in text
    assert "your people's certifications expiring within 90 days" in text
    # The button posts the one-click body to the page itself; no token of a session.
    form = re.search(r'<form method="post">(.*?)</form>', text, re.S)
    assert form is not None
    assert '<input name="List-Unsubscribe" type="hidden" value="One-Click">' in form.group(1)
    assert "csrf_token" not in form.group(1)
    # Nobody's address: the page says which mail, not whose.
    assert boss.email not in text
    assert page.headers["Cache-Control"] == "no-store"
    assert "noindex" in page.headers["X-Robots-Tag"]
    assert not _digest_off(db, boss)
    assert count(db, AccountEvent) == events


@pytest.mark.parametrize(
    "content_type", ["application/x-www-form-urlencoded", "multipart/form-data"]
)
def test_one_click_turns_the_digest_off_once_and_is_idempotent(
    app: Flask, db: Session, boss: Engineer, content_type: str
):
    client = app.test_client(use_cookies=False)
    with csrf_protection(app):
        first = client.post(_link(boss), data=ONE_CLICK, content_type=content_type)
        again = client.post(_link(boss), data=ONE_CLICK, content_type=content_type)
    for answer in (first, again):
        assert answer.status_code == 200
        text = answer.get_data(as_text=True)
        assert "<h1>Weekly digest off</h1>" in text
        # The way back: the profile, where it is turned on again.
        assert 'href="/profile#weekly-digest"' in text
    assert _digest_off(db, boss)
    (event,) = account_changes(db, boss)
    assert (event.kind, event.method, event.actor_id) == ("updated", "unsubscribe", None)
    assert event.detail == {"weekly_digest": {"from": True, "to": False}}
    # Off, the link's page says so and offers no button.
    page = app.test_client().get(_link(boss)).get_data(as_text=True)
    assert "<h1>Weekly digest off</h1>" in page and "<form" not in page.split("<main")[1]


def test_the_next_weeks_pass_skips_who_unsubscribed(app: Flask, db: Session, boss: Engineer):
    with csrf_protection(app):
        app.test_client(use_cookies=False).post(_link(boss), data=ONE_CLICK)
    assert run(db, DAY).count("digest") == 0


@pytest.mark.parametrize(
    "body",
    [{}, {"List-Unsubscribe": "one-click"}, {"List-Unsubscribe": "One-Click\x00"}, {"x": "y"}],
    ids=["empty", "lower case", "NUL", "another field"],
)
def test_a_post_without_the_one_click_body_is_refused_and_stores_nothing(
    app: Flask, db: Session, boss: Engineer, body
):
    events = count(db, AccountEvent)
    answer = app.test_client(use_cookies=False).post(_link(boss), data=body)
    assert answer.status_code == 400
    assert not _digest_off(db, boss)
    assert count(db, AccountEvent) == events


def _bad_links(boss: Engineer) -> list[str]:
    token = unsubscribe_token(SECRET_KEY, boss.id)
    payload, signature = token.rsplit(".", 1)
    flipped = _flipped(signature)
    return [
        f"{UNSUBSCRIBE_PATH}/garbage",
        f"{UNSUBSCRIBE_PATH}/{payload}",
        f"{UNSUBSCRIBE_PATH}/{payload}.{flipped}",
        f"{UNSUBSCRIBE_PATH}/{unsubscribe_token('another key', boss.id)}",
        # Well signed, but nobody has this id.
        f"{UNSUBSCRIBE_PATH}/{unsubscribe_token(SECRET_KEY, 999_999)}",
    ]


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_a_bad_or_tampered_link_is_a_clear_404_and_stores_nothing(
    app: Flask, db: Session, boss: Engineer, method: str
):
    events = count(db, AccountEvent)
    for url in _bad_links(boss):
        answer = app.test_client(use_cookies=False).open(url, method=method, data=ONE_CLICK)
        assert answer.status_code == 404, url
        assert "This unsubscribe link is not valid" in answer.get_data(as_text=True)
    assert not _digest_off(db, boss)
    assert count(db, AccountEvent) == events


def test_the_pages_speak_the_readers_language(app: Flask, db: Session, boss: Engineer):
    spanish = {"Accept-Language": "es"}
    client = app.test_client(use_cookies=False)
    assert "¿Dejar de recibir el resumen semanal?" in client.get(_link(boss), headers=spanish).text
    done = client.post(_link(boss), data=ONE_CLICK, headers=spanish)
    assert "Resumen semanal desactivado" in done.text
    bad = client.get(f"{UNSUBSCRIBE_PATH}/garbage", headers=spanish)
    assert "Este enlace de baja no es válido" in bad.text


def test_the_pages_speak_the_persons_language_whatever_the_browser_asks(
    app: Flask, db: Session, boss: Engineer
):
    boss.locale = "es"
    db.flush()
    english = {"Accept-Language": "en"}
    client = app.test_client(use_cookies=False)

    asked = client.get(_link(boss), headers=english).text
    assert '<html lang="es">' in asked
    assert "¿Dejar de recibir el resumen semanal?" in asked
    assert "Stop the weekly digest" not in asked
    done = client.post(_link(boss), data=ONE_CLICK, headers=english).text
    assert '<html lang="es">' in done and "Resumen semanal desactivado" in done
    assert _digest_off(db, boss)
    # A link that names nobody names no language: the browser's.
    for url in _bad_links(boss):
        bad = client.get(url, headers=english)
        assert bad.status_code == 404
        assert "This unsubscribe link is not valid" in bad.text


@pytest.mark.parametrize("body", [{}, {"List-Unsubscribe": "one-click"}], ids=["none", "wrong"])
def test_the_refusal_of_a_post_without_one_click_speaks_the_persons_language(
    app: Flask, db: Session, boss: Engineer, body
):
    boss.locale = "es"
    db.flush()
    english = {"Accept-Language": "en"}
    client = app.test_client(use_cookies=False)
    refused = client.post(_link(boss), data=body, headers=english)
    assert refused.status_code == 400
    assert '<html lang="es">' in refused.text and "Solicitud incorrecta" in refused.text
    assert "Una solicitud de baja debe llevar List-Unsubscribe=One-Click" in refused.text
    assert "must carry" not in refused.text and "Bad Request" not in refused.text
    assert refused.headers["Cache-Control"] == "no-store"
    assert not _digest_off(db, boss)
    # A link that names nobody names no language: the browser's.
    tampered = client.post(f"{UNSUBSCRIBE_PATH}/garbage", data=body, headers=english)
    assert tampered.status_code == 404 and '<html lang="en">' in tampered.text


def test_an_english_readers_page_is_english_in_a_spanish_browser(
    app: Flask, db: Session, boss: Engineer
):
    boss.locale = "en"
    db.flush()
    asked = app.test_client(use_cookies=False).get(_link(boss), headers={"Accept-Language": "es"})
    assert "<h1>Stop the weekly digest?</h1>" in asked.text


# --- the secret key rotated ---------------------------------------------------------


def test_a_link_mailed_before_the_key_was_rotated_still_turns_the_digest_off(
    app: Flask, db: Session, boss: Engineer, rotated: SecretKeys
):
    link = _link(boss)  # signed with the suite's key, now the fallback
    mail_client = app.test_client(use_cookies=False)
    assert mail_client.get(link).status_code == 200
    assert mail_client.post(link, data=ONE_CLICK).status_code == 200
    assert _digest_off(db, boss)


def test_after_a_rotation_new_links_are_signed_with_the_new_key_alone(
    app: Flask, boss: Engineer, rotated: SecretKeys
):
    mail = mail_settings(app)
    assert mail.signing_key == rotated.current
    token = unsubscribe_token(mail.signing_key, boss.id)
    assert subscriber(SecretKeys(rotated.current), token) == boss.id
    assert subscriber(KEYS, token) is None


def test_without_the_fallback_a_link_of_the_old_key_is_a_404(
    app: Flask, db: Session, boss: Engineer, replaced: SecretKeys
):
    mail_client = app.test_client(use_cookies=False)
    assert mail_client.get(_link(boss)).status_code == 404
    assert mail_client.post(_link(boss), data=ONE_CLICK).status_code == 404
    assert not _digest_off(db, boss)
