"""Listing Users and Groups: filters (RFC 7644 §3.4.2.2), startIndex/count paging, attributes."""

from __future__ import annotations

from urllib.parse import quote

from tests.scim.conftest import error_of


def _list(scim, path: str, filter_: str | None = None, **more: object):
    query = [f"filter={quote(filter_)}"] if filter_ else []
    query += [f"{k}={quote(str(v))}" for k, v in more.items()]
    response = scim.get(f"{path}?{'&'.join(query)}")
    assert response.status_code == 200, response.get_data(as_text=True)
    body = response.get_json(force=True)
    assert body["schemas"] == ["urn:ietf:params:scim:api:messages:2.0:ListResponse"]
    return body


def _names(body) -> list[str]:
    return [r["userName"] for r in body.get("Resources", [])]


def test_user_name_eq_matches_regardless_of_case_of_name_and_value(scim):
    scim.create_user("ada@example.com")
    scim.create_user("grace@example.com")
    for expression in ('userName eq "ADA@example.com"', 'USERNAME Eq "ada@EXAMPLE.com"'):
        body = _list(scim, "/Users", expression)
        assert _names(body) == ["ada@example.com"]
        assert (body["totalResults"], body["itemsPerPage"], body["startIndex"]) == (1, 1, 1)
    assert _list(scim, "/Users", 'userName eq "nobody@example.com"')["totalResults"] == 0


def test_external_id_eq_is_case_exact(scim):
    scim.create_user("ext@example.com", externalId="00uAbC")
    assert _names(_list(scim, "/Users", 'externalId eq "00uAbC"')) == ["ext@example.com"]
    assert _names(_list(scim, "/Users", 'externalid eq "00uAbC"')) == ["ext@example.com"]
    assert _list(scim, "/Users", 'externalId eq "00uabc"')["totalResults"] == 0


def test_active_and_emails_value_and_compound_filters(scim):
    scim.create_user("on@example.com")
    scim.create_user("off@example.com", active=False)
    mine = 'and (userName eq "on@example.com" or userName eq "off@example.com")'
    assert _names(_list(scim, "/Users", f"active eq false {mine}")) == ["off@example.com"]
    assert _names(_list(scim, "/Users", f"active eq true {mine}")) == ["on@example.com"]
    assert _names(_list(scim, "/Users", 'emails.value eq "ON@example.com"')) == ["on@example.com"]
    assert _names(
        _list(scim, "/Users", 'emails[type eq "work" and value eq "off@example.com"]')
    ) == ["off@example.com"]
    # Filters SQL does not narrow are matched all the same.
    assert _names(_list(scim, "/Users", 'userName sw "of" and userName ew "@example.com"')) == [
        "off@example.com"
    ]
    assert _names(_list(scim, "/Users", 'not (userName ne "on@example.com")')) == ["on@example.com"]


def test_paging_by_start_index_and_count(scim):
    for n in range(5):
        scim.create_user(f"page{n}@example.com")
    everyone = _list(scim, "/Users", 'userName sw "page"')
    assert everyone["totalResults"] == 5
    page = _list(scim, "/Users", 'userName sw "page"', startIndex=2, count=2)
    assert (page["totalResults"], page["startIndex"], page["itemsPerPage"]) == (5, 2, 2)
    assert _names(page) == ["page1@example.com", "page2@example.com"]
    counted = _list(scim, "/Users", 'userName sw "page"', count=0)
    assert counted["totalResults"] == 5 and counted["itemsPerPage"] == 0
    assert "Resources" not in counted
    # Without a filter, the database pages: the total counts everyone.
    whole = _list(scim, "/Users", None, count=2)
    assert whole["itemsPerPage"] == 2 and whole["totalResults"] >= 5


def test_a_start_index_past_every_row_is_an_empty_page_however_long(scim):
    scim.create_user("only@example.com")
    for path in ("/Users", "/Groups"):
        start = "9" * 400
        page = _list(scim, path, None, startIndex=start)
        assert (page["itemsPerPage"], page["startIndex"]) == (0, int(start)), path
        assert "Resources" not in page


def test_attributes_and_excluded_attributes(scim):
    scim.create_user("attrs@example.com", externalId="e1")
    only = _list(scim, "/Users", 'userName eq "attrs@example.com"', attributes="externalId")
    (resource,) = only["Resources"]
    assert resource["externalId"] == "e1" and "name" not in resource and resource["id"]
    fewer = _list(scim, "/Users", 'userName eq "attrs@example.com"', excludedAttributes="emails")
    assert "emails" not in fewer["Resources"][0]


def test_search_by_post(scim):
    scim.create_user("search@example.com")
    response = scim.post(
        "/Users/.search",
        {
            "schemas": ["urn:ietf:params:scim:api:messages:2.0:SearchRequest"],
            "filter": 'userName eq "search@example.com"',
            "count": 10,
        },
    )
    assert response.status_code == 200
    assert _names(response.get_json(force=True)) == ["search@example.com"]


def test_a_bad_filter_is_invalid_filter(scim):
    for bad in ("userName eq", 'nosuch eq "x"', 'userName zz "x"'):
        error_of(scim.get(f"/Users?filter={quote(bad)}"), 400, "invalidFilter")


def test_group_filters(scim):
    person = scim.create_user("member@example.com")
    created = scim.post(
        "/Groups",
        {
            "schemas": ["urn:ietf:params:scim:schemas:core:2.0:Group"],
            "displayName": "Filter Team",
            "externalId": "g-1",
            "members": [{"value": person["id"]}],
        },
    ).get_json(force=True)
    for expression in (
        'displayName eq "filter team"',
        'externalId eq "g-1"',
        f'members eq "{person["id"]}"',
        f'members[value eq "{person["id"]}"]',
    ):
        body = _list(scim, "/Groups", expression)
        assert [g["id"] for g in body["Resources"]] == [created["id"]], expression
