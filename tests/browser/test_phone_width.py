"""No page spills sideways on a phone: what is too wide scrolls in a region of its own."""

from __future__ import annotations

import pytest

from tests.browser.crawling import ROLES, spills_on_a_phone


@pytest.mark.parametrize("role", ROLES)
def test_no_page_spills_sideways_on_a_phone(crawler, role):
    """At 390 px wide, a table too wide scrolls in its own region; the page never does."""
    spilled = spills_on_a_phone(crawler.crawl(role))
    assert not spilled, "\n".join(spilled)
