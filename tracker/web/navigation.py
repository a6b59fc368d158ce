"""The menu: which pages each access role sees, and what the layout template is given."""

from __future__ import annotations

from typing import Any

from flask import Flask, request
from flask_babel import lazy_gettext as _l
from markupsafe import Markup

from tracker.web.drawings import Drawings
from tracker.web.language import current_locale

# One menu per access role, page shown and language.
MENUS_KEPT = 512

# (endpoint, label, access roles that see it); a group's items open from its
# name in the menu (a dropdown), so managers and admins get a short menu.
NAV_ITEMS = [
    ("progress.dashboard", _l("Dashboard"), ("engineer", "manager", "admin")),
    ("progress.hours", _l("Hours"), ("engineer", "manager", "admin")),
    ("progress.attempts", _l("Exams"), ("engineer", "manager", "admin")),
    ("progress.credentials", _l("Credentials"), ("engineer", "manager", "admin")),
    ("careers.mine", _l("Career"), ("engineer", "manager", "admin")),
    ("careers.bonuses", _l("Bonuses"), ("engineer", "manager", "admin")),
    ("readiness.teams", _l("Teams"), ("manager", "admin")),
    ("catalog.catalog", _l("Catalog"), ("engineer", "manager", "admin")),
]
NAV_GROUPS = [
    (
        _l("Manage"),
        [
            ("careers.promotions", _l("Promotions"), ("manager", "admin")),
            ("careers.apprenticeships", _l("Apprenticeships"), ("manager", "admin")),
            ("readiness.organisation", _l("Organisation"), ("admin",)),
        ],
    ),
    (
        _l("Admin"),
        [
            ("admin.people", _l("People"), ("admin",)),
            ("admin.teams", _l("Teams"), ("admin",)),
            ("admin.imports", _l("Import"), ("admin",)),
            ("admin.catalog", _l("Catalog"), ("admin",)),
            ("admin.outbox", _l("Outbox"), ("admin",)),
            ("admin.webhooks.page", _l("Webhooks"), ("admin",)),
            ("admin.audit.page", _l("Account trail"), ("admin",)),
            ("careers.bonus_amounts", _l("Bonus amounts"), ("admin",)),
        ],
    ),
]


def add_navigation(app: Flask) -> None:
    """Give every template the menu and the page's language."""
    menus = Drawings(app, MENUS_KEPT)

    def main_menu(role: str, current: str | None) -> Markup:
        # The same few menus on every page: drawn once each (a menu is some
        # twenty links), for each place the app is mounted at.
        def draw() -> str:
            menu = menus.macro("_macros/navigation.html", "menu")
            return menu(role, current, NAV_ITEMS, NAV_GROUPS, app.view_functions)

        return menus.remembered((role, current, request.script_root), draw)

    app.jinja_env.globals["main_menu"] = main_menu

    @app.context_processor
    def navigation() -> dict[str, Any]:
        # Features add their pages here; the menu shows those that exist.
        return {
            # <html lang>: the language the page is drawn in.
            "page_locale": current_locale(),
        }
