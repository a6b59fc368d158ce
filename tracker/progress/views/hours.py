"""The hours page: log hours on a course, list the entries a page at a time, edit, delete."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from functools import partial
from typing import Any
from urllib.parse import urlsplit

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import current_user, login_required
from sqlalchemy import select

from tracker.audit.models import AuditEvent
from tracker.catalog.models.credentials import Course
from tracker.clock import today
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.forms import draw, page_status, show_errors, unchanged_since_drawn
from tracker.people.services.access import can_log_hours
from tracker.progress.forms import HoursEditForm, HoursForm
from tracker.progress.models import HourLog
from tracker.progress.services.hour_log_pages import hour_log_page, hour_log_pages
from tracker.progress.services.hours import day_overfilled, log_hours, update_hours
from tracker.progress.services.hours import delete_hours as delete_entry
from tracker.progress.services.overview import course_to_study
from tracker.progress.views.blueprint import bp, flashed_day, flashed_hours, row_or_404
from tracker.web.confirm import BACK, back_to, confirmation_page
from tracker.web.converters import requested_page
from tracker.web.database import record_or_404
from tracker.web.filters import coded, named
from tracker.web.links import here, same_site_path, with_page_at_most

# The audit trail's actions (stored as codes) as the history table names them.
AUDIT_ACTIONS = {"create": _l("create"), "update": _l("update"), "delete": _l("delete")}


def _course_choices(session) -> list[tuple[int, str]]:
    courses = session.scalars(select(Course).order_by(Course.title)).all()
    return [(c.id, coded(c)) for c in courses]


@bp.route("/hours", methods=["GET", "POST"])
@login_required
def hours():
    """Log hours on a course and list the entries."""
    session = db_session()
    day_room = partial(day_overfilled, session, current_user.id)
    form = HoursForm().judged_by(today(), current_user.hired_on, day_room)
    form.course.choices = _course_choices(session)
    if request.method == "GET":
        form.logged_on.data = today()
        form.course.data = course_to_study(session, current_user.id, form.logged_on.data)
    status = 200
    if form.validate_on_submit():
        course = row_or_404(Course, form.course.data)
        try:
            log_hours(
                session,
                current_user,
                course,
                form.logged_on.data,
                form.hours.data,
                today(),
                note=form.note.data or "",
                actor=current_user,
            )
        except ValidationError as exc:
            show_errors(form, exc)
        else:
            flash(
                _(
                    "Logged %(hours)s h on %(course)s.",
                    hours=flashed_hours(form.hours.data),
                    course=named(course),
                ),
                "success",
            )
            return redirect(url_for("progress.hours"))
    if form.is_submitted():
        status = 400
    entries = hour_log_page(session, current_user.id, requested_page())
    # An entry's buttons come back to this page of the list.
    return render_template("progress/hours.html", form=form, entries=entries, back=here()), status


def _own_entry(entry_id: int) -> HourLog:
    entry = record_or_404(HourLog, entry_id)
    if not can_log_hours(current_user, entry.engineer):
        abort(403)
    return entry


@bp.route("/hours/<int:entry_id>/edit", methods=["GET", "POST"])
@login_required
def edit_hours(entry_id: int):
    """Edit an hour log entry; its history shows below."""
    session = db_session()
    entry = _own_entry(entry_id)
    # The page of the list the Edit link was on (?back=): Cancel and a save return there.
    came_from = same_site_path(request.args.get(BACK))
    back = came_from or url_for("progress.hours")
    day_room = partial(day_overfilled, session, entry.engineer_id, replacing=entry)
    form = HoursEditForm().judged_by(today(), entry.engineer.hired_on, day_room)
    form.course.choices = _course_choices(session)
    values = {
        "course": entry.course_id,
        "logged_on": entry.logged_on,
        "hours": entry.hours,
        "note": entry.note,
    }
    if not form.is_submitted():
        draw(form, values)
    elif unchanged_since_drawn(form, values) and form.validate():
        try:
            update_hours(
                session,
                entry,
                row_or_404(Course, form.course.data),
                form.logged_on.data,
                form.hours.data,
                today(),
                note=form.note.data or "",
                actor=current_user,
            )
        except ValidationError as exc:
            show_errors(form, exc)
        else:
            flash(_("Entry updated."), "success")
            return redirect(back)
    history = session.scalars(
        select(AuditEvent)
        .where(AuditEvent.entity == "hour_logs", AuditEvent.entity_id == entry.id)
        .order_by(AuditEvent.at, AuditEvent.id)
    ).all()
    return render_template(
        "progress/edit_hours.html",
        form=form,
        entry=entry,
        history=[(event, _version(event.before), _version(event.after)) for event in history],
        actions=AUDIT_ACTIONS,
        action=url_for("progress.edit_hours", entry_id=entry.id, back=came_from),
        back=back,
    ), page_status(form)


@dataclass(frozen=True)
class HourVersion:
    """An entry's values as the audit trail recorded them, read back as a date and hours."""

    logged_on: dt.date
    hours: Decimal
    note: str


def _version(values: dict[str, Any] | None) -> HourVersion | None:
    if not values:
        return None
    return HourVersion(
        dt.date.fromisoformat(values["logged_on"]), Decimal(values["hours"]), values["note"]
    )


@bp.route("/hours/<int:entry_id>/delete", methods=["GET", "POST"])
@login_required
def delete_hours(entry_id: int):
    """Ask, then delete an hour log entry (kept in the audit trail)."""
    entry = _own_entry(entry_id)
    back = back_to(url_for("progress.hours"))
    if request.method == "GET":
        return confirmation_page(
            question=_(
                "Delete the entry of %(hours)s h on %(course)s of %(date)s?",
                hours=flashed_hours(entry.hours),
                course=entry.course.code,
                date=flashed_day(entry.logged_on),
            ),
            happens=_("Its hours no longer count towards the course."),
            kept=_("The audit trail keeps a record of the entry."),
            submit=_("Delete the entry"),
            back=back,
        )
    session = db_session()
    delete_entry(session, entry, actor=current_user)
    flash(_("Entry deleted."), "success")
    return redirect(_page_left(session, back))


def _page_left(session, back: str) -> str:
    """Return `back`; a page of the hours list the delete emptied is the last page left."""
    if urlsplit(back).path != url_for("progress.hours"):
        return back
    return with_page_at_most(back, hour_log_pages(session, current_user.id))
