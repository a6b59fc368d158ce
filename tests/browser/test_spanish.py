"""The demo organisation in Spanish: every page each role reaches, read in a Spanish browser.

The crawl the axe tests run (crawling.py), with Chromium's language set to Spanish:
each page says `<html lang="es">` and shows none of the interface's English
phrases. Vendor course and exam titles and people's names stay as they are, so
the phrases are the interface's own words. The main pages are saved as
screenshots under test-artifacts/.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.browser.conftest import ARTIFACTS
from tests.browser.crawling import (
    ROLES,
    START,
    Crawler,
    Visit,
    spills_on_a_phone,
    with_digest_link,
)

# Phrases of the English interface, one or more from every page; none may show in Spanish.
ENGLISH_PHRASES = [
    "Sign in",
    "Sign out",
    "Password",
    "Dashboard",
    "Profile",
    "Language",
    "Save",
    "Save changes",
    "Certifications",
    "Learning paths",
    "Page not found",
    "Log hours",
    "Your entries",
    "Your progress",
    "Next step",
    "days left",
    "Record an attempt",
    "Plan an exam",
    "Your ledger",
    "Record a credential earned elsewhere",
    "Your certifications",
    "does not expire",
    "Skill levels",
    "Ways to train",
    "seats filled",
    "Heat map",
    "Certifications expiring soonest",
    "Organisation readiness",
    "Open seats",
    "Plan to a target",
    "Who trains on which path",
    "Return on investment",
    "First-year ROI",
    "What stands between",
    "The ladder",
    "Certification bonuses",
    "Download CSV for payroll",
    "Pair a junior with a senior",
    "Ready for promotion",
    "Add a person",
    "Catalog and internal track",
    "Access role",
    "Level history",
    "Job role history",
    "Add a team",
    "New internal certification track",
    "Import people first",
    "File formats",
    "Rows refused",
    "Next attempt",
    "Last error",
    "Two-step sign-in",
    "recovery code",
    "Account trail",
    "Changed by",
    "Operational",
    "Foundations",
    "Operations Engineer",
    "Network Specialist",
    "Infrastructure Lead",
    "Bootcamp immersion",
    "Vendor partnership",
    "Less downtime",
    "Liquid cooling",
    "MIG partitioning",
    "Delete the entry",
    "stay as they are",
]
# Where the English phrases are looked for: the page's text, but for what it marks as
# English on purpose (the API reference's descriptions, drawn from the English API
# document; the language switch's "English").
VISIBLE_TEXT = """() => {
  const body = document.body.cloneNode(true);
  body.querySelectorAll('[lang^="en"], script, style, template').forEach((e) => e.remove());
  return body.textContent;
}"""
# The pages whose Spanish picture goes to test-artifacts/, by endpoint.
SCREENSHOTS = {
    "progress.dashboard",
    "progress.hours",
    "readiness.team",
    "readiness.organisation",
    "careers.engineer",
    "admin.people",
}


def english_in(text: str) -> list[str]:
    """Return the English phrases found in `text`, as whole words."""
    return [p for p in ENGLISH_PHRASES if re.search(rf"\b{re.escape(p)}\b", text)]


def in_spanish(page, url: str, status: int) -> Visit:
    """Check the page as it is now is in Spanish; save the main ones as pictures."""
    visit = Visit(url, status)
    lang = page.evaluate("() => document.documentElement.lang")
    if lang != "es":
        visit.problems.append(f"{url}: <html lang={lang!r}>")
    visit.problems += [f"{url}: shows {p!r}" for p in english_in(page.evaluate(VISIBLE_TEXT))]
    return visit


@pytest.fixture(scope="module")
def spanish(browser, server, digest_link) -> Iterator[Crawler]:
    crawler = Crawler(
        browser,
        server.url,
        check=in_spanish,
        roles=ROLES,
        locale="es-ES",
        starts=with_digest_link(digest_link),
    )
    try:
        yield crawler
    finally:
        crawler.close()


def test_the_sign_in_page_offers_both_languages_and_answers_the_browsers(spanish):
    page = spanish.signed_in("anonymous").page
    page.goto("/login")
    assert page.evaluate("() => document.documentElement.lang") == "es"
    assert page.get_by_role("button", name="Iniciar sesión").is_visible()
    assert page.get_by_role("button", name="English").is_visible()
    assert page.get_by_role("button", name="Español").is_visible()


@pytest.mark.parametrize("role", ROLES)
def test_every_page_a_role_reaches_is_in_spanish(spanish, role):
    crawl = spanish.crawl(role)
    problems = [p for visit in crawl.visits.values() for p in visit.problems]
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems)
    assert len(crawl.visits) >= len(START[role])
    for key, visit in crawl.visits.items():
        if key.split("?")[0] in SCREENSHOTS:
            crawl.page.goto(visit.url)
            ARTIFACTS.mkdir(exist_ok=True)
            name = f"spanish-{role}-{key.split('?')[0]}.png"
            crawl.page.screenshot(path=str(ARTIFACTS / name), full_page=True)


@pytest.mark.parametrize("role", ROLES)
def test_no_spanish_page_spills_sideways_on_a_phone(spanish, role):
    """Spanish words are longer: a table that fits in English may not, and must scroll."""
    spilled = spills_on_a_phone(spanish.crawl(role))
    assert not spilled, "\n".join(spilled)


def test_the_phrase_check_finds_english(spanish):
    # The check itself must be able to fail: the English sign-in page fails it.
    assert english_in("Sign in with your Password") == ["Sign in", "Password"]
    assert english_in("Iniciar sesión · Contraseña") == []
