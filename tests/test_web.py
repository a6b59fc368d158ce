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
