"""The account trail page: sign-ins, provisioning, role and level changes; filtered, as CSV.

Its blueprint sits in the admin section's (/admin/audit, endpoints admin.audit.*).
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from flask import Blueprint, render_template, request
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from tracker.admin.forms import AccountTrailFilterForm
from tracker.audit.models import AccountEvent
from tracker.audit.rules import ACCOUNT_EVENT_KINDS, ACCOUNT_EVENT_METHODS, SIGN_IN_REFUSALS
from tracker.clock import today
from tracker.extensions import db_session
from tracker.people.services.trail import (
    REFERENCES,
    ReferencedNames,
    TrailRow,
    account_trail,
    account_trail_rows,
)
from tracker.people.views import access_role_label
from tracker.web.converters import requested_page
from tracker.web.downloads import csv_download
from tracker.web.language import localized
from tracker.web.roles import role_required

bp = Blueprint("audit", __name__)

TRAIL_ARGS = ("q", "kind", "method", "since", "until", "page")
# The fields an "updated" event names, as the person form calls them.
FIELD_NAMES = {
    "email": _l("Email"),
    "name": _l("Name"),
    "job_roles": _l("Job roles"),
    "team_id": _l("Team"),
    "manager_id": _l("Manager"),
    "hired_on": _l("Hire date"),
    "experience_months": _l("Experience"),
    "locale": _l("Language"),
    "weekly_digest": _l("Weekly digest"),
}


# The changed fields whose values the trail shows (the rest: their names).
SHOWN_VALUES = frozenset({"name", "email"})


def describe(event: AccountEvent, names: ReferencedNames | None = None) -> str:
    """Say in the page's language what an event's detail holds (`names`: of its references)."""
    detail: dict[str, Any] = event.detail or {}
    if event.kind == "role_changed":
        return _(
            "%(before)s → %(after)s",
            before=access_role_label(detail.get("from", "")),
            after=access_role_label(detail.get("to", "")),
        )
    if event.kind == "level_changed":
        return _("level %(before)s → %(after)s", before=detail.get("from"), after=detail.get("to"))
    if event.kind == "provisioned":
        return _(
            "%(role)s, level %(level)s",
            role=access_role_label(detail.get("access_role", "")),
            level=detail.get("level"),
        )
    if event.kind == "updated":
        parts = []
        for name, change in detail.items():
            label = str(FIELD_NAMES.get(name, name))
            if name in SHOWN_VALUES and isinstance(change, dict):
                # Who the account was and is: a rename must be traceable.
                label = _(
                    "%(field)s: %(before)s → %(after)s",
                    field=label,
                    before=change.get("from") or "—",
                    after=change.get("to") or "—",
                )
            elif isinstance(change, dict) and isinstance(change.get("to"), bool):
                # A switch: which way it went.
                if change["to"]:
                    label = _("%(field)s turned on", field=label)
                else:
                    label = _("%(field)s turned off", field=label)
            elif name in REFERENCES and isinstance(change, dict):
                # A move names the teams (managers) it was between; one deleted since, its id.
                label = _(
                    "%(field)s: %(before)s → %(after)s",
                    field=label,
                    before=_referenced(names, name, change.get("from")),
                    after=_referenced(names, name, change.get("to")),
                )
            parts.append(label)
        return _("changed: %(fields)s", fields=", ".join(parts))
    if event.kind == "sign_in_failed":
        reason = detail.get("reason", "")
        return localized(SIGN_IN_REFUSALS[reason]) if reason in SIGN_IN_REFUSALS else reason
    if event.kind == "sign_in" and detail.get("enrolled"):
        return _("with an authenticator app set up just now")
    return ""


def _referenced(names: ReferencedNames | None, field: str, value: object) -> str:
    if not isinstance(value, int):
        return "—"
    found = names.get(field, value) if names is not None else None
    return localized(found) if found else f"#{value}"


def _label(names: dict[str, str], value: str | None) -> str:
    return localized(names[value]) if value in names else (value or "")


def _filters(form: AccountTrailFilterForm) -> dict[str, Any]:
    """Return the service's filters from a valid form (none from an invalid one)."""
    if form.errors:
        return {}
    return {
        "search": form.q.data or "",
        "kind": form.kind.data or None,
        "method": form.method.data or None,
        "since": form.since.data,
        "until": form.until.data,
    }


def _form() -> tuple[AccountTrailFilterForm, int]:
    form = AccountTrailFilterForm(request.args)
    status = 400 if request.args and not form.validate() else 200
    return form, status


@bp.get("/audit")
@role_required("admin")
def page():
    """List the account trail newest first; filter by person, event, method and days."""
    form, status = _form()
    trail = account_trail(db_session(), **_filters(form), page=requested_page())
    # Refused filters filter nothing: the list, its count and its links (the CSV,
    # the pages) are the whole trail's, and the form says what was wrong.
    filters = (
        {k: request.args[k] for k in TRAIL_ARGS if k != "page" and request.args.get(k)}
        if status == 200
        else {}
    )
    return render_template(
        "admin/audit.html",
        form=form,
        trail=trail,
        filters=filters,
        kind_names=ACCOUNT_EVENT_KINDS,
        method_names=ACCOUNT_EVENT_METHODS,
        describe=partial(describe, names=ReferencedNames(db_session())),
        label=_label,
    ), status


@bp.get("/audit.csv")
@role_required("admin")
def csv():
    """Download the events the filters keep, newest first, with the page's columns."""
    form, status = _form()
    if status != 200:
        return page()
    header = (
        _("time (UTC)"),
        _("event"),
        _("method"),
        _("person"),
        _("email"),
        _("changed by"),
        _("address"),
        _("details"),
        _("data"),
    )
    names = ReferencedNames(db_session())
    rows = account_trail_rows(db_session(), **_filters(form))
    return csv_download(
        [header, *(_csv_row(row, names) for row in rows)],
        f"account-trail-{today().isoformat()}.csv",
    )


def _csv_row(row: TrailRow, names: ReferencedNames) -> tuple[str, ...]:
    event = row.event
    return (
        event.at.isoformat(timespec="seconds"),
        _label(ACCOUNT_EVENT_KINDS, event.kind),
        _label(ACCOUNT_EVENT_METHODS, event.method),
        localized(row.person_name or ""),
        event.email,
        localized(row.actor_name or ""),
        event.address,
        describe(event, names),
        json.dumps(event.detail, sort_keys=True) if event.detail else "",
    )
