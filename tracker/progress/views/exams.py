"""The exams page: record an attempt, plan an exam, cancel a plan."""

from __future__ import annotations

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from tracker.catalog.models.credentials import Credential, Exam
from tracker.clock import today, utcnow
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.forms import show_errors
from tracker.progress.forms import AttemptForm, PlanForm
from tracker.progress.models import ExamAttempt, ExamPlan
from tracker.progress.services.certifications import record_attempt
from tracker.progress.services.exam_plans import cancel_plan, open_plans, plan_exam, plan_outlook
from tracker.progress.views.blueprint import (
    bp,
    flashed_day,
    for_whom,
    people_for_results,
    person_for_results,
    row_or_404,
)
from tracker.web.confirm import confirmation_page
from tracker.web.filters import named


def _exams(session) -> list[Exam]:
    return list(
        session.scalars(
            select(Exam)
            .join(Exam.credential)
            .options(selectinload(Exam.credential), selectinload(Exam.prerequisites))
            .order_by(Credential.code)
        )
    )


@bp.route("/exams", methods=["GET", "POST"])
@login_required
def attempts():
    """Record an exam attempt; show the ledger and the planned exams."""
    session = db_session()
    exams = _exams(session)
    form = AttemptForm()
    form.engineer.choices = [(e.id, e.name) for e in people_for_results(session)]
    form.exam.choices = [(e.id, f"{e.code} · {named(e)}") for e in exams]
    if request.method == "GET":
        form.engineer.data = current_user.id
        form.attempted_on.data = today()
    plan_form = PlanForm(prefix="plan")
    plan_form.exam.choices = form.exam.choices
    status = 200
    if form.validate_on_submit():
        person = person_for_results(form.engineer.data)
        exam = row_or_404(Exam, form.exam.data)
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
                    date=flashed_day(cert.expires_on),
                )
            elif cert is not None:
                said = _("%(exam)s passed: certified.", exam=exam.code)
            else:
                said = _("%(exam)s attempt recorded (not passed).", exam=exam.code)
            flash(for_whom(person, said), "success" if cert is not None else "info")
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
        exam = row_or_404(Exam, plan_form.exam.data)
        try:
            plan_exam(session, current_user, exam, plan_form.planned_on.data, today())
        except ValidationError as exc:
            show_errors(plan_form, exc)
        else:
            outlook = plan_outlook(session, current_user, exam, plan_form.planned_on.data, today())
            planned = {"exam": exam.code, "date": flashed_day(plan_form.planned_on.data)}
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
    form.engineer.choices = [(e.id, e.name) for e in people_for_results(session)]
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
                date=flashed_day(plan.planned_on),
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
            date=flashed_day(plan.planned_on),
        ),
        "success",
    )
    return redirect(back)
