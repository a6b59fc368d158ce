"""The dashboard: the signed-in engineer's progress, and one engineer's to those who may see it."""

from __future__ import annotations

from flask import render_template
from flask_login import current_user, login_required

from tracker.clock import today
from tracker.extensions import db_session
from tracker.people.models import Engineer
from tracker.people.views import engineer_or_404
from tracker.progress.services.exam_plans import open_plans, plan_outlook
from tracker.progress.services.overview import overview
from tracker.progress.views.blueprint import bp
from tracker.signals import showing_dashboard, template_context


@bp.get("/dashboard")
@login_required
def dashboard():
    """Show the signed-in engineer's progress, certifications and next steps."""
    return _show_overview(current_user)


@bp.get("/engineers/<int:engineer_id>")
@login_required
def engineer(engineer_id: int):
    """Show one engineer's progress to themself, their manager or an admin."""
    return _show_overview(engineer_or_404(engineer_id))


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
