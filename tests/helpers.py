"""Helpers every test package shares: counting rows, signing in, calling the API, reading pages."""

from __future__ import annotations

import csv
import datetime as dt
import importlib
import io
import pkgutil
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from html import unescape
from html.parser import HTMLParser
from typing import Any, TypeVar
from urllib.parse import urlsplit

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import event, func, select
from sqlalchemy.orm import Session
from werkzeug.datastructures import MultiDict
from werkzeug.test import TestResponse

from tests.factories import PASSWORD, SECRET_KEY
from tracker.clock import utcnow
from tracker.config import secret_keys
from tracker.people.models import Engineer
from tracker.people.services.accounts import create_token
from tracker.people.services.totp import code_at, decrypt_secret, enrol, new_secret, time_step

T = TypeVar("T")

# The hosts the suite's webhooks may go to (TRACKER_WEBHOOK_ALLOW_HOSTS): the
# receivers on 127.0.0.1, and the name the tests register but never deliver to
# (the suite runs without DNS, so the name must be let through unresolved).
WEBHOOK_HOSTS = frozenset({"127.0.0.1", "hooks.example.com"})

# Ways back (?back=) that are no path of this site: another host, a host a browser
# reads in the path, a relative path, a script, a header slipped in. Each is ignored.
ELSEWHERE = (
    "https://evil.example/hours?page=2",
    "//evil.example/hours",
    "/\\evil.example/hours",
    "hours?page=2",
    "javascript:alert(1)",
    "/hours?page=2\r\nSet-Cookie: x=1",
)

# Accept-Language headers of a Spanish and of an English browser.
SPANISH = {"Accept-Language": "es-ES,es;q=0.9,en;q=0.5"}
ENGLISH = {"Accept-Language": "en-GB,en;q=0.9"}


def count(db: Session, model: type) -> int:
    """Return how many rows the table of `model` holds."""
    return db.scalar(select(func.count()).select_from(model))


def catalog_model_values() -> list[Any]:
    """Return every name's value in the catalog's model modules (its mapped classes, its tables)."""
    package = importlib.import_module("tracker.catalog.models")
    return [
        value
        for module in pkgutil.iter_modules(package.__path__)
        for value in vars(importlib.import_module(f"{package.__name__}.{module.name}")).values()
    ]


def fresh(db: Session, obj: T) -> T:
    """Return `obj` as the database holds it now (another session may have changed it)."""
    db.expire(obj)
    return obj


def count_statements(db: Session, call: Callable[[], T]) -> tuple[int, T]:
    """Return how many SQL statements `call()` issues on the test's connection, and its result."""
    statements: list[str] = []

    def log(conn, cursor, statement, parameters, context, executemany) -> None:
        statements.append(statement)

    bind = db.get_bind()
    event.listen(bind, "before_cursor_execute", log)
    try:
        result = call()
    finally:
        event.remove(bind, "before_cursor_execute", log)
    return len(statements), result


def post_login(
    client: FlaskClient, email: str, password: str = PASSWORD, **kwargs: Any
) -> TestResponse:
    """Post the sign-in form and return the answer."""
    return client.post("/login", data={"email": email, "password": password}, **kwargs)


def sign_in(client: FlaskClient, who: Engineer | str, password: str = PASSWORD) -> TestResponse:
    """Sign in through the real forms and check that they let the person in.

    An admin (or anyone with an authenticator app) then gives the code their
    app would show; an admin without one sets one up first, as at a first sign-in.
    """
    email = who if isinstance(who, str) else who.email
    response = post_login(client, email, password)
    assert response.status_code == 302, response.get_data(as_text=True)
    if urlsplit(response.headers["Location"]).path in (TOTP_STEP, TOTP_SETUP):
        response = pass_second_step(client, email)
    return response


TOTP_STEP = "/login/totp"
TOTP_SETUP = "/login/totp/setup"
SECRET_ON_PAGE = re.compile(r'id="totp-secret"[^>]*>([A-Z2-7 ]+)<')


def unspent_code(secret: str, last_step: int | None) -> tuple[str, int]:
    """Return a code the app shows now (or next) that no sign-in has spent, and its step.

    A step signs in once: when this one and the next are spent, wait for a new one.
    """
    while True:
        now = time_step(utcnow())
        for step in (now, now + 1):
            if last_step is None or step > last_step:
                return code_at(secret, step), step
        time.sleep(0.5)


def totp_state(client: FlaskClient, email: str) -> tuple[str | None, int | None]:
    """Return a person's app secret (decrypted) and last spent step, as the database holds them."""
    with client.application.extensions["tracker.sessions"]() as session:
        stored, last_step = session.execute(
            select(Engineer.totp_secret, Engineer.totp_last_step).where(
                Engineer.email == email.strip().lower()
            )
        ).one()
    if stored is None:
        return None, last_step
    return decrypt_secret(stored, secret_keys(client.application.config)), last_step


def secret_on_page(html: str) -> str:
    """Return the secret a set-up page shows for typing into an app."""
    match = SECRET_ON_PAGE.search(html)
    assert match, "no secret on the set-up page"
    return match.group(1).replace(" ", "")


def pass_second_step(client: FlaskClient, email: str) -> TestResponse:
    """Give the half-signed-in person's code; set up their app first if they have none.

    The form goes with the page's CSRF token when the page has one.
    """
    secret, last_step = totp_state(client, email)
    url = TOTP_SETUP if secret is None else TOTP_STEP
    page = client.get(url).get_data(as_text=True)
    data: dict[str, str] = {}
    if 'name="csrf_token"' in page:
        data["csrf_token"] = csrf_token(page)
    if secret is None:
        data["code"] = unspent_code(secret_on_page(page), None)[0]
        response = client.post(url, data=data)
        assert response.status_code == 200, response.get_data(as_text=True)
        return response
    data["code"] = unspent_code(secret, last_step)[0]
    response = client.post(url, data=data)
    assert response.status_code == 302, response.get_data(as_text=True)
    return response


def html_lang(response) -> str:
    """Return the language a page's <html lang> names."""
    found = re.search(r'<html lang="([^"]*)"', response.get_data(as_text=True))
    assert found, "the page has no <html lang>"
    return found.group(1)


def csrf_token(html: str) -> str:
    """Return the CSRF token a page's form carries."""
    match = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', html)
    assert match, "no csrf_token in the page"
    return unescape(match.group(1))


def csp_directives(header: str) -> dict[str, list[str]]:
    """Split a Content-Security-Policy header into its directives and their sources."""
    directives = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            directives[words[0].lower()] = words[1:]
    return directives


# Open Badges the tracker issues: anyone verifies them (the issuer's documents, a
# credential's public page by its unguessable token: the route matrices issue none, so 404).
OPEN_BADGES_PUBLIC = {
    "issuer.public",
    "issuer.credential_json",
    "issuer.badge_png",
    "issuer.badge_svg",
    "issuer.status_list",
    "issuer.achievement_json",
    "issuer.did_document",
    "issuer.jwks",
}


def routes() -> list[tuple[str, str, str]]:
    """Return every (endpoint, rule, method) the application answers, static files aside."""
    from tracker import create_app

    app = create_app({"DATABASE_URL": "sqlite://", "SECRET_KEY": "x"})
    found = sorted(
        (rule.endpoint, rule.rule, method)
        for rule in app.url_map.iter_rules()
        for method in rule.methods - {"HEAD", "OPTIONS"}
        if rule.endpoint != "static"
    )
    app.extensions["tracker.engine"].dispose()
    return found


def token_for(db: Session, who: Engineer) -> str:
    """Return a fresh API token of `who`."""
    return create_token(db, who, "test")[1]


class Api:
    """Call the API with a bearer token."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client

    def call(
        self,
        method: str,
        url: str,
        token: str | None = None,
        json: Any = None,
        **kwargs: Any,
    ) -> TestResponse:
        headers = dict(kwargs.pop("headers", {}))
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        if json is not None:
            kwargs["json"] = json
        return self.client.open(url, method=method, headers=headers, **kwargs)

    def get(self, url: str, token: str | None = None, **kwargs: Any) -> TestResponse:
        return self.call("GET", url, token, **kwargs)

    def post(self, url: str, token: str | None, json: Any = None, **kw: Any) -> TestResponse:
        return self.call("POST", url, token, json, **kw)

    def put(self, url: str, token: str | None, json: Any = None, **kw: Any) -> TestResponse:
        return self.call("PUT", url, token, json, **kw)

    def delete(self, url: str, token: str | None = None, **kw: Any) -> TestResponse:
        return self.call("DELETE", url, token, **kw)


def in_each_language(api: Api, url: str, token: str | None) -> tuple[Any, Any, Any]:
    """Read `url` in Spanish, in English and asking for no language: the three bodies."""
    spanish = api.get(url, token, headers={"Accept-Language": "es"}).get_json()
    english = api.get(url, token, headers={"Accept-Language": "en"}).get_json()
    return spanish, english, api.get(url, token).get_json()


def enrol_app(db: Session, person: Engineer) -> tuple[str, list[str]]:
    """Set up an authenticator app for `person` five minutes ago; return its secret and codes."""
    secret = new_secret()
    earlier = utcnow() - dt.timedelta(minutes=5)
    codes = enrol(
        db, person, secret, code_at(secret, time_step(earlier)), earlier, secret_key=SECRET_KEY
    )
    db.flush()
    return secret, codes


@contextmanager
def csrf_protection(app: Flask) -> Iterator[None]:
    """Turn CSRF protection on for a block (the suite posts forms without tokens)."""
    app.config["WTF_CSRF_ENABLED"] = True
    try:
        yield
    finally:
        app.config["WTF_CSRF_ENABLED"] = False


@dataclass(frozen=True)
class Confirmation:
    """The page a destructive button leads to, as read: what it asks, where Cancel goes."""

    client: FlaskClient
    url: str
    question: str
    text: str
    back: str
    back_label: str
    fields: dict[str, str]

    def confirm(self, **kwargs: Any) -> TestResponse:
        """Press the page's button: post its form, hidden fields and CSRF token."""
        with csrf_protection(self.client.application):
            return self.client.post(self.url, data=self.fields, **kwargs)


def confirmation(client: FlaskClient, url: str, **kwargs: Any) -> Confirmation:
    """Open a destructive button's confirmation page (CSRF protection on) and read it."""
    with csrf_protection(client.application):
        response = client.get(url, **kwargs)
    html = response.get_data(as_text=True)
    assert response.status_code == 200, html
    form = re.search(r'<form method="post">(.*?)</form>', html, re.S)
    assert form, "no form that confirms"
    question = re.search(r"<h1>(.*?)</h1>", html, re.S)
    back = re.search(r'<a href="([^"]*)">([^<]*)</a>\s*</div>', form.group(1))
    assert question and back, "a question and a way back"
    fields = {
        unescape(name): unescape(value)
        for tag in re.findall(r"<input [^>]*>", form.group(1))
        for name, value in re.findall(r'name="([^"]*)"[^>]*value="([^"]*)"', tag)
    }
    article = re.search(r'<article class="narrow confirmation">(.*?)</article>', html, re.S)
    assert article
    text = " ".join(unescape(re.sub(r"<[^>]+>", " ", article.group(1))).split())
    return Confirmation(
        client,
        url,
        unescape(question.group(1)),
        text,
        unescape(back.group(1)),
        unescape(back.group(2)),
        fields,
    )


@dataclass
class PageForm:
    """A form as the page draws it: where it goes, how, and what it would send."""

    action: str
    method: str
    names: list[str] = field(default_factory=list)
    sent: list[tuple[str, str]] = field(default_factory=list)


class FormReader(HTMLParser):
    """Read a page's forms: each field's name and the value it would be sent with."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[PageForm] = []
        self._form: PageForm | None = None
        self._select: str | None = None
        self._chosen = False
        self._textarea: str | None = None
        self._text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        name = found.get("name")
        if tag == "form":
            method = (found.get("method") or "get").lower()
            self._form = PageForm(found.get("action") or "", method)
            self.forms.append(self._form)
        elif self._form is None:
            return
        elif tag == "input" and name:
            self._form.names.append(name)
            if found.get("type") not in ("checkbox", "radio") or "checked" in found:
                self._form.sent.append((name, found.get("value") or ""))
        elif tag == "select" and name:
            self._form.names.append(name)
            self._select, self._chosen = name, False
        elif tag == "option" and self._select and (not self._chosen or "selected" in found):
            self._form.sent = [(n, v) for n, v in self._form.sent if n != self._select]
            self._form.sent.append((self._select, found.get("value") or ""))
            self._chosen = True
        elif tag == "textarea" and name:
            self._form.names.append(name)
            self._textarea, self._text = name, ""

    def handle_data(self, data: str) -> None:
        if self._textarea:
            self._text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None
        elif tag == "select":
            self._select = None
        elif tag == "textarea" and self._form is not None and self._textarea:
            self._form.sent.append((self._textarea, self._text))
            self._textarea = None


def drawn_form(html: str, action: str) -> MultiDict:
    """Return what the page's form posting to `action` sends as drawn (its hidden fields too)."""
    reader = FormReader()
    reader.feed(html)
    (form,) = [f for f in reader.forms if f.action == action and f.method == "post"]
    return MultiDict(form.sent)


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
