"""The request boundary's shared page parts: the menu each role sees."""

from __future__ import annotations

import re

import pytest

from tests import factories

TOP = ["Dashboard", "Hours", "Exams", "Credentials", "Career", "Bonuses"]


def _menu(html: str) -> tuple[list[str], dict[str, list[str]]]:
    """Return the menu's own links and, per group, the links it opens."""
    nav = html[html.index('<nav aria-label="Main">') : html.index("</nav>")]
    groups = {
        name: re.findall(r"<a [^>]*>([^<]+)</a>", body)
        for name, body in re.findall(r"<summary[^>]*>([^<]+)</summary>(.*?)</details>", nav, re.S)
    }
    top = re.sub(r"<details.*?</details>", "", nav, flags=re.S)
    return re.findall(r"<a [^>]*>([^<]+)</a>", top), groups


@pytest.mark.parametrize(
    ("role", "top", "groups"),
    [
        ("engineer", [*TOP, "Catalog"], {}),
        ("manager", [*TOP, "Teams", "Catalog"], {"Manage": ["Promotions", "Apprenticeships"]}),
        (
            "admin",
            [*TOP, "Teams", "Catalog"],
            {
                "Manage": ["Promotions", "Apprenticeships", "Organisation"],
                "Admin": [
                    "People",
                    "Teams",
                    "Import",
                    "Catalog",
                    "Outbox",
                    "Webhooks",
                    "Account trail",
                    "Bonus amounts",
                ],
            },
        ),
    ],
)
def test_the_menu_keeps_a_role_s_pages_short_and_groups_the_rest(
    client, auth, db, role, top, groups
):
    who = factories.engineer(db, access_role=role)
    auth.sign_in(who)
    links, opened = _menu(client.get("/dashboard").get_data(as_text=True))
    assert links == [*top, who.name]  # then the profile; the home link holds <strong>
    assert opened == groups


def test_the_group_of_the_current_page_is_marked_in_the_menu(client, auth, db):
    admin = factories.engineer(db, access_role="admin")
    auth.sign_in(admin)
    html = client.get("/admin/outbox").get_data(as_text=True)
    assert '<summary aria-current="page">Admin</summary>' in html
    assert '<summary aria-current="page">Manage</summary>' not in html


# --- the request boundary's refusals ------------------------------------------------------


@pytest.mark.parametrize("limit", [1, 9, 10, 99, 100, 1999, 2024, 2**31 - 1])
def test_the_id_pattern_matches_1_to_its_limit(limit: int) -> None:
    from tracker.web.converters import at_most

    pattern = re.compile(at_most(limit))
    around = {*range(0, 120), *range(limit - 120, limit + 120), 10 ** len(str(limit))}
    for number in sorted(around):
        assert bool(pattern.fullmatch(str(number))) == (1 <= number <= limit), number
    assert not pattern.fullmatch("01")  # no leading zeros: one URL per record


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE", "PATCH"])
def test_an_id_beyond_an_integer_column_is_404_for_every_method(client, method: str) -> None:
    # The entry's URL takes GET, PUT and DELETE: a number past the column names no entry,
    # whichever the method (not 405, as Werkzeug said when only the value was checked).
    response = client.open("/api/v1/hours/2147483648", method=method)
    assert response.status_code == 404
    assert "Allow" not in response.headers


def test_a_method_a_url_does_not_take_is_405_with_allow(client) -> None:
    api = client.open("/api/v1/hours", method="TRACE")
    assert api.status_code == 405
    assert set(api.headers["Allow"].split(", ")) == {"GET", "HEAD", "OPTIONS", "POST"}
    assert api.get_json() == {"errors": {"request": api.get_json()["errors"]["request"]}}
    page = client.open("/login", method="DELETE")
    assert page.status_code == 405
    assert "GET" in page.headers["Allow"]
    assert page.mimetype == "text/html"


def test_a_nul_in_a_path_is_400_where_a_route_takes_text(client) -> None:
    response = client.put("/api/v1/engineers/1/skills/nc%00cl", json={"level": 1})
    assert response.status_code == 400
    assert "NUL" in response.get_json()["errors"]["request"]
    # No route takes text there: the path names nothing.
    assert client.get("/api/v1/hours/1%00").status_code == 404


def test_views_and_hooks_are_run_as_flask_runs_them_each_time(app) -> None:
    def plain() -> None:
        return None

    async def coroutine() -> None:
        return None

    for _ in range(2):  # the answer, once remembered, is the same
        assert app.ensure_sync(plain) is plain
        # A coroutine function is never run as it is: wrapped, or refused without the async extra.
        try:
            synced = app.ensure_sync(coroutine)
        except RuntimeError as exc:
            assert "async" in str(exc)
        else:
            assert synced is not coroutine
