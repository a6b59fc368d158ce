"""Every form on every page a role opens, each field given junk: a refusal, never a 500.

The forms are read from the pages themselves (tests/security/test_matrix.py's
routes, each role's own objects), so a new form or field is covered without
editing this file. A form that posts is sent once per field and junk value,
the other fields as the page filled them in; a form that filters (GET) is sent
each junk value in each of its fields, and every page is asked for a junk ?page=.
"""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient
from werkzeug.datastructures import MultiDict

from tests.helpers import FormReader, sign_in
from tests.security.conftest import World
from tests.security.matrix import ROUTES, objects, url_for_rule

# Values a field of no kind takes, each of which has found a 500 somewhere: numbers no
# float or INTEGER column holds, non-numbers, impossible dates, text no field holds.
JUNK = (
    "",
    "-1",
    "9" * 400,
    "-" + "9" * 30,
    "1e400",
    "NaN",
    "abc",
    "2026-13-45",
    "0001-01-01",
    "x" * 5000,
    "ñ€😀",
)
# Signing out ends the session the rest of the crawl needs.
SKIPPED_ACTIONS = ("/logout",)
PAGES = [(e, r) for e, r, m in ROUTES if m == "GET" and not e.startswith(("api.", "scim."))]


def _with(sent: list[tuple[str, str]], name: str, value: str) -> MultiDict:
    """Return the form's values with `name` sent as `value` (sent once)."""
    return MultiDict([*((n, v) for n, v in sent if n != name), (name, value)])


@pytest.mark.parametrize("role", ["engineer", "manager", "admin"])
def test_junk_in_any_field_of_any_form_is_refused_not_a_500(
    client: FlaskClient, world: World, role: str
) -> None:
    email = world.person(role).email
    sign_in(client, email)
    failures: list[str] = []
    seen: set[tuple[str, str, tuple[str, ...]]] = set()
    posted = 0
    for endpoint, rule in PAGES:
        url = url_for_rule(rule, objects(world, role, "own", endpoint))
        page = client.get(url)
        if page.status_code != 200 or page.mimetype != "text/html":
            continue
        for junk in JUNK:
            answer = client.get(url, query_string={"page": junk})
            if answer.status_code >= 500:
                failures.append(f"GET {url}?page={junk[:20]!r}: {answer.status_code}")
        reader = FormReader()
        reader.feed(page.get_data(as_text=True))
        for form in reader.forms:
            action = form.action or url
            key = (form.method, action.partition("#")[0], tuple(form.names))
            if action.startswith(SKIPPED_ACTIONS) or key in seen:
                continue
            seen.add(key)
            for name in sorted(set(form.names) - {"csrf_token"}):
                for junk in JUNK:
                    values = _with(form.sent, name, junk)
                    if form.method == "post":
                        answer = client.post(action, data=values)
                        posted += 1
                    else:
                        answer = client.get(action, query_string=values)
                    if answer.status_code >= 500:
                        failures.append(
                            f"{form.method.upper()} {action} {name}={junk[:20]!r}: "
                            f"{answer.status_code}"
                        )
                    if "/login" in answer.headers.get("Location", ""):
                        sign_in(client, email)  # the junk ended the session: sign in again
    assert posted > 100, f"the crawl reached few forms ({posted} posts)"
    assert not failures, failures
