"""A record's version: a hash of what it says, named by If-Match and If-None-Match headers."""

from __future__ import annotations

import datetime as dt

from tracker.versions import names, version


def test_a_version_is_a_weak_etag_of_what_is_said_whatever_the_keys_order() -> None:
    said = {"name": "Ada", "hired_on": dt.date(2024, 1, 2)}
    tag = version(said)
    assert tag.startswith('W/"') and len(tag) == len('W/""') + 20
    assert version({"hired_on": "2024-01-02", "name": "Ada"}) == tag
    assert version({**said, "name": "Ada L."}) != tag


def test_a_header_names_a_version_in_its_list_weakly_or_with_a_star() -> None:
    tag = version({"a": 1})
    assert names(f'"x", {tag}', tag)
    assert names(tag.removeprefix("W/"), tag)
    assert names("*", tag)
    assert not names('W/"other"', tag)
    assert not names(None, tag)
    assert not names("", tag)
