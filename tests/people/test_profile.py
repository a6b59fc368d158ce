"""The profile: the person shown, documented experience saved or refused, text escaped."""

from __future__ import annotations

import re
from html import unescape

import pytest

from tests import factories
from tests.helpers import fresh, post_login
from tests.people.helpers import assert_no_inline_script, path_of

# The sign-ins here all come from 127.0.0.1: each test gets a sign-in limiter of its own.
pytestmark = pytest.mark.usefixtures("limiter")


def test_profile_shows_the_person(client, auth, person):
    auth.login(person.email)
    response = client.get("/profile")
    assert response.status_code == 200
    assert person.name in response.text and person.email in response.text


def test_profile_saves_documented_experience(client, auth, db, person):
    auth.login(person.email)
    response = client.post(
        "/profile",
        data={"experience_months": "18", "experience_text": "  Ran a 512-GPU DGX cluster.  "},
    )
    assert response.status_code == 302 and path_of(response) == "/profile"
    fresh(db, person)
    assert person.experience_months == 18
    assert person.experience_text == "Ran a 512-GPU DGX cluster."
    page = client.get("/profile").text
    assert "Profile saved." in page
    assert "Ran a 512-GPU DGX cluster." in page


def test_profile_accepts_the_bounds(client, auth, db, person):
    auth.login(person.email)
    response = client.post("/profile", data={"experience_months": "600", "experience_text": ""})
    assert response.status_code == 302
    assert fresh(db, person).experience_months == 600


def test_profile_accepts_zero_months(client, auth, db, person):
    person.experience_months = 12
    db.flush()
    auth.login(person.email)
    response = client.post(
        "/profile", data={"experience_months": "0", "experience_text": "new hire, no GPU work"}
    )
    assert response.status_code == 302
    fresh(db, person)
    assert (person.experience_months, person.experience_text) == (0, "new hire, no GPU work")


@pytest.mark.parametrize(
    ("months", "message"),
    [
        ("-1", "months must be from 0 to 600"),
        ("601", "months must be from 0 to 600"),
        # DataRequired replaces the "not a valid integer" message; any message will do.
        ("abc", None),
        ("1.5", None),
        ("", "experience is required (0 or more months)"),
    ],
)
def test_profile_refuses_bad_months_next_to_the_field(client, auth, db, person, months, message):
    person.experience_months = 7
    person.experience_text = "before"
    db.flush()
    auth.login(person.email)
    response = client.post(
        "/profile", data={"experience_months": months, "experience_text": "after"}
    )
    assert response.status_code == 400
    error = re.search(
        r'<input[^>]*name="experience_months"[^>]*>\s*'
        r'<small id="experience_months-error" class="field-error">([^<]*)</small>',
        response.text,
    )
    assert error, "no error next to the months field"
    assert unescape(error.group(1)) == message if message else error.group(1).strip()
    assert 'aria-invalid="true"' in response.text
    fresh(db, person)
    assert (person.experience_months, person.experience_text) == (7, "before")


def test_profile_refuses_an_overlong_text(client, auth, db, person):
    auth.login(person.email)
    response = client.post(
        "/profile", data={"experience_months": "3", "experience_text": "x" * 4001}
    )
    assert response.status_code == 400
    assert 'id="experience_text-error"' in response.text
    fresh(db, person)
    assert (person.experience_months, person.experience_text) == (0, "")


PAYLOAD = "<script>alert('x')</script><img src=x onerror=alert(1)>"


def test_profile_text_is_shown_escaped(client, auth, db, person):
    auth.login(person.email)
    response = client.post("/profile", data={"experience_months": "3", "experience_text": PAYLOAD})
    assert response.status_code == 302
    assert fresh(db, person).experience_text == PAYLOAD  # stored verbatim
    page = client.get("/profile").text
    assert PAYLOAD not in page
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(" in page
    assert_no_inline_script(page)


def test_profile_text_is_escaped_when_the_form_is_refused(client, auth, person):
    auth.login(person.email)
    response = client.post("/profile", data={"experience_months": "-1", "experience_text": PAYLOAD})
    assert response.status_code == 400
    assert "<script>alert" not in response.text
    assert "&lt;script&gt;alert(" in response.text


def test_names_and_login_email_are_shown_escaped(client, db):
    who = factories.engineer(db, name="<b>Bold</b> & <script>x()</script>")
    post_login(client, who.email)
    for url in ("/profile", "/dashboard"):
        page = client.get(url).text
        assert "<script>x()" not in page and "<b>Bold</b>" not in page, url
        assert "&lt;b&gt;Bold&lt;/b&gt;" in page, url
    anonymous = client.application.test_client()
    response = post_login(anonymous, '"><script>alert(1)</script>@example.com', "wrong password")
    assert "<script>alert(1)" not in response.text
