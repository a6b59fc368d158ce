"""States readable without colour: each heat-map cell says its state in words."""

from __future__ import annotations

from tests.browser.conftest import open_link, sign_in, snap


def test_heat_map_states_are_readable_without_colour(page):
    sign_in(page, "omar@example.com")
    page.goto("/teams")
    open_link(page, "Borealis Cluster")
    cells = page.locator("table.heatmap tbody td")
    assert cells.count() > 0
    seen = set()
    for i in range(cells.count()):
        cell = cells.nth(i)
        (state,) = [
            c.removeprefix("cell-") for c in cell.get_attribute("class").split() if "cell-" in c
        ]
        # The state is written in the cell, in words, visibly: not carried by colour alone.
        words = cell.locator(".status").inner_text()
        assert state in words.split(), (state, words)
        assert cell.locator(".status").is_visible()
        seen.add(state)
    assert {"valid", "missing"} <= seen
    legend = page.locator(".legend").inner_text()
    for state in ("valid", "expiring", "expired", "missing"):
        assert state in legend
    page.locator("table.heatmap").scroll_into_view_if_needed()
    snap(page, "heat map")
