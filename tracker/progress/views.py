"""The engineer's pages: dashboard, hours, exams and plans, credentials."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, TypeVar

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import current_user, login_required
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from tracker.audit.models import AuditEvent
from tracker.catalog.models.credentials import Course, Credential, Exam
from tracker.clock import today, utcnow
from tracker.db import Base
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.forms import draw, page_status, show_errors, unchanged_since_drawn
from tracker.i18n import amount, day
from tracker.people.models import Engineer
from tracker.people.services.access import (
    can_log_hours,
    can_record_results,
    can_view,
    visible_engineers,
)
from tracker.progress.forms import AttemptForm, CredentialForm, HoursEditForm, HoursForm, PlanForm
from tracker.progress.models import ExamAttempt, ExamPlan, HourLog
from tracker.progress.services.certifications import (
    certifications_of,
    credential_for_entry,
    record_attempt,
    record_credential,
)
from tracker.progress.services.exam_plans import (
    cancel_plan,
    open_plans,
    plan_exam,
    plan_outlook,
)
from tracker.progress.services.hour_log_pages import hour_log_page
from tracker.progress.services.hours import delete_hours as delete_entry
from tracker.progress.services.hours import log_hours, update_hours
from tracker.progress.services.overview import course_to_study, overview
from tracker.progress.services.validity import status_on
from tracker.signals import showing_credentials, showing_dashboard, template_context
from tracker.web.confirm import confirmation_page
from tracker.web.converters import requested_page
from tracker.web.database import record_or_404
from tracker.web.filters import coded, named
from tracker.web.language import localized

bp = Blueprint("progress", __name__)
OTHER = 0  # the "Other" choice of the credential form
OTHER_LABEL = _l("Other (enter name and issuer)")
# The audit trail's actions (stored as codes) as the history table names them.
AUDIT_ACTIONS = {"create": _l("create"), "update": _l("update"), "delete": _l("delete")}
_Row = TypeVar("_Row", bound=Base)


def _day(on: dt.date) -> str:
    """Return a date for a flashed message: ISO in the English text, the locale's otherwise."""
    return localized(day(on))


def _hours(value: Decimal) -> str:
    """Return hours for a flashed message: 7.5 in the English text, the locale's otherwise."""
    return localized(amount(value))


def _row_or_404(model: type[_Row], row_id: int) -> _Row:
    """Return the row a form chose; one deleted since the form was shown is not found."""
    row = db_session().get(model, row_id)
    if row is None:
        abort(404)
    return row


def _engineer_or_404(engineer_id: int) -> Engineer:
    engineer = db_session().get(Engineer, engineer_id)
    if engineer is None:
        abort(404)
    if not can_view(current_user, engineer):
        abort(403)
    return engineer


def _exams(session) -> list[Exam]:
    return list(
        session.scalars(
            select(Exam)
            .join(Exam.credential)
            .options(selectinload(Exam.credential), selectinload(Exam.prerequisites))
            .order_by(Credential.code)
        )
    )


@bp.get("/dashboard")
@login_required
def dashboard():
    """Show the signed-in engineer's progress, certifications and next steps."""
    return _show_overview(current_user)


@bp.get("/engineers/<int:engineer_id>")
@login_required
def engineer(engineer_id: int):
    """Show one engineer's progress to themself, their manager or an admin."""
    return _show_overview(_engineer_or_404(engineer_id))


def _show_overview(person: Engineer):
    session = db_session()
    on = today()
    return render_template(
        "progress/dashboard.html",
        person=person,
        view=overview(session, person, on),
        **template_context(showing_dashboard, person, on=on),
        plans=[
            (plan, plan_outlook(session, person, plan.exam, plan.planned_on, on))
            for plan in open_plans(session, person.id)
            if plan.planned_on >= on
        ],
    )


# --- hours ------------------------------------------------------------------


def _course_choices(session) -> list[tuple[int, str]]:
    courses = session.scalars(select(Course).order_by(Course.title)).all()
    return [(c.id, coded(c)) for c in courses]


@bp.route("/hours", methods=["GET", "POST"])
@login_required
def hours():
    """Log hours on a course and list the entries."""
    session = db_session()
    form = HoursForm()
    form.course.choices = _course_choices(session)
    if request.method == "GET":
        form.logged_on.data = today()
        form.course.data = course_to_study(session, current_user.id, form.logged_on.data)
    status = 200
    if form.validate_on_submit():
        course = _row_or_404(Course, form.course.data)
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
                    hours=_hours(form.hours.data),
                    course=named(course),
                ),
                "success",
            )
            return redirect(url_for("progress.hours"))
    if form.is_submitted():
        status = 400
    entries = hour_log_page(session, current_user.id, requested_page())
    return render_template("progress/hours.html", form=form, entries=entries), status


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
    form = HoursEditForm()
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
                _row_or_404(Course, form.course.data),
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
            return redirect(url_for("progress.hours"))
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
    if request.method == "GET":
        return confirmation_page(
            question=_(
                "Delete the entry of %(hours)s h on %(course)s of %(date)s?",
                hours=_hours(entry.hours),
                course=entry.course.code,
                date=_day(entry.logged_on),
            ),
            happens=_("Its hours no longer count towards the course."),
            kept=_("The audit trail keeps a record of the entry."),
            submit=_("Delete the entry"),
            back=url_for("progress.hours"),
        )
    delete_entry(db_session(), entry, actor=current_user)
    flash(_("Entry deleted."), "success")
    return redirect(url_for("progress.hours"))


# --- exams, attempts and plans ----------------------------------------------


def _people_for_results(session) -> list[Engineer]:
    return [e for e in visible_engineers(session, current_user) if e.active]


@bp.route("/exams", methods=["GET", "POST"])
@login_required
def attempts():
    """Record an exam attempt; show the ledger and the planned exams."""
    session = db_session()
    exams = _exams(session)
    form = AttemptForm()
    form.engineer.choices = [(e.id, e.name) for e in _people_for_results(session)]
    form.exam.choices = [(e.id, f"{e.code} · {named(e)}") for e in exams]
    if request.method == "GET":
        form.engineer.data = current_user.id
        form.attempted_on.data = today()
    plan_form = PlanForm(prefix="plan")
    plan_form.exam.choices = form.exam.choices
    status = 200
    if form.validate_on_submit():
        person = session.get(Engineer, form.engineer.data)
        if person is None or not can_record_results(current_user, person):
            abort(403)
        exam = _row_or_404(Exam, form.exam.data)
        try:
            attempt = record_attempt(
                session,
                person,
                exam,
                form.attempted_on.data,
                form.score.data,
                form.passed.data,
                today(),
                recorded_by=current_user,
                cost=form.cost.data,
                voucher_code=(form.voucher_code.data or "").strip(),
                proctoring=(form.proctoring.data or "").strip(),
                note=(form.note.data or "").strip(),
            )
        except ValidationError as exc:
            show_errors(form, exc)
        else:
            cert = attempt.certification
            if cert is not None and cert.expires_on is not None:
                said = _(
                    "%(exam)s passed: certified, valid through %(date)s.",
                    exam=exam.code,
                    date=_day(cert.expires_on),
                )
            elif cert is not None:
                said = _("%(exam)s passed: certified.", exam=exam.code)
            else:
                said = _("%(exam)s attempt recorded (not passed).", exam=exam.code)
            flash(_for_whom(person, said), "success" if cert is not None else "info")
            return redirect(url_for("progress.attempts"))
    if form.is_submitted():
        status = 400
    return render_template(
        "progress/exams.html", form=form, plan_form=plan_form, **_ledger(session)
    ), status


def _ledger(session) -> dict[str, object]:
    on = today()
    ledger = session.scalars(
        select(ExamAttempt)
        .where(ExamAttempt.engineer_id == current_user.id)
        .options(selectinload(ExamAttempt.exam).selectinload(Exam.credential))
        .order_by(ExamAttempt.attempted_on.desc(), ExamAttempt.id.desc())
    ).all()
    plans = [
        (plan, plan_outlook(session, current_user, plan.exam, plan.planned_on, on))
        for plan in open_plans(session, current_user.id)
        if plan.planned_on >= on
    ]
    return {"ledger": ledger, "plans": plans}


@bp.post("/exams/plan")
@login_required
def plan():
    """Plan an exam on a future date and show whether the engineer will be eligible."""
    session = db_session()
    exams = _exams(session)
    plan_form = PlanForm(prefix="plan")
    plan_form.exam.choices = [(e.id, f"{e.code} · {named(e)}") for e in exams]
    if plan_form.validate_on_submit():
        exam = _row_or_404(Exam, plan_form.exam.data)
        try:
            plan_exam(session, current_user, exam, plan_form.planned_on.data, today())
        except ValidationError as exc:
            show_errors(plan_form, exc)
        else:
            outlook = plan_outlook(session, current_user, exam, plan_form.planned_on.data, today())
            planned = {"exam": exam.code, "date": _day(plan_form.planned_on.data)}
            if outlook.eligible:
                flash(
                    _("%(exam)s planned on %(date)s: you will be eligible.", **planned), "success"
                )
            else:
                flash(
                    _("%(exam)s planned on %(date)s: you will not be eligible.", **planned),
                    "warning",
                )
            return redirect(url_for("progress.attempts"))
    form = AttemptForm()
    form.engineer.choices = [(e.id, e.name) for e in _people_for_results(session)]
    form.exam.choices = plan_form.exam.choices
    return render_template(
        "progress/exams.html", form=form, plan_form=plan_form, **_ledger(session)
    ), 400


@bp.route("/exams/plans/<int:plan_id>/cancel", methods=["GET", "POST"])
@login_required
def cancel_planned_exam(plan_id: int):
    """Ask, then cancel one of the signed-in engineer's planned exams."""
    session = db_session()
    plan = session.get(ExamPlan, plan_id)
    if plan is None or plan.engineer_id != current_user.id or plan.cancelled_at is not None:
        abort(404)
    # Back to the page the button was on: the old form's field, the confirmation's query.
    dashboard = request.values.get("back") == "dashboard"
    back = url_for("progress.dashboard" if dashboard else "progress.attempts")
    if request.method == "GET":
        return confirmation_page(
            question=_(
                "Cancel your plan to take %(exam)s on %(date)s?",
                exam=plan.exam.code,
                date=_day(plan.planned_on),
            ),
            happens=_("The exam leaves your planned exams."),
            kept=_("Your attempts and certifications stay as they are; you can plan it again."),
            submit=_("Cancel the plan"),
            back=back,
            back_label=_("Keep the plan"),
        )
    cancel_plan(session, plan, utcnow())
    flash(
        _(
            "%(exam)s on %(date)s is no longer planned.",
            exam=plan.exam.code,
            date=_day(plan.planned_on),
        ),
        "success",
    )
    return redirect(back)


def _for_whom(person: Engineer, said: str) -> str:
    """Return a result's message, naming whose it is when it is not the reader's own."""
    # Someone recording for another person sees whom it went to, not only what.
    if person.id == current_user.id:
        return said
    return _("For %(name)s: %(said)s", name=person.name, said=said)


# --- external credentials ---------------------------------------------------


@bp.route("/credentials", methods=["GET", "POST"])
@login_required
def credentials():
    """Record a credential earned elsewhere; list the engineer's certifications."""
    session = db_session()
    form = CredentialForm()
    form.engineer.choices = [(e.id, e.name) for e in _people_for_results(session)]
    catalog = session.scalars(
        select(Credential)
        .where(Credential.kind.in_(("external", "exam")), Credential.origin != "engineer")
        .order_by(Credential.kind.desc(), Credential.name)
    ).all()
    form.credential.choices = [(c.id, f"{named(c)} ({named(c, 'issuer')})") for c in catalog]
    form.credential.choices.append((OTHER, OTHER_LABEL))
    if request.method == "GET":
        form.engineer.data = current_user.id
    status = 200
    if form.validate_on_submit():
        person = session.get(Engineer, form.engineer.data)
        if person is None or not can_record_results(current_user, person):
            abort(403)
        try:
            if form.credential.data == OTHER:
                credential = credential_for_entry(
                    session, name=form.name.data, issuer=form.issuer.data
                )
            else:
                credential = _row_or_404(Credential, form.credential.data)
            cert = record_credential(
                session,
                person,
                credential,
                form.issued_on.data,
                today(),
                evidence=form.evidence.data or "",
                expires_on=form.expires_on.data,
                recorded_by=current_user,
            )
        except ValidationError as exc:
            show_errors(form, exc, {"code": "credential"})
        else:
            if cert.expires_on is not None:
                recorded = _(
                    "%(credential)s recorded, valid through %(date)s.",
                    credential=named(credential),
                    date=_day(cert.expires_on),
                )
            else:
                recorded = _("%(credential)s recorded.", credential=named(credential))
            flash(_for_whom(person, recorded), "success")
            return redirect(url_for("progress.credentials"))
    if form.is_submitted():
        status = 400
    held = sorted(
        certifications_of(session, current_user.id), key=lambda c: (c.earned_on, c.id), reverse=True
    )
    return render_template(
        "progress/credentials.html",
        form=form,
        held=held,
        on=today(),
        status_on=status_on,
        **template_context(showing_credentials, current_user._get_current_object(), held=held),
    ), status
