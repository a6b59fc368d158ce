"""Managers' career pages: promotions, a team's skill coverage, apprenticeships."""

from __future__ import annotations

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from sqlalchemy.orm import Session

from tracker.careers.forms import ApprenticeshipForm
from tracker.careers.rules import HELD_AT, PROFICIENCY_LABELS
from tracker.careers.services.apprenticeships import (
    can_pair,
    create_apprenticeship,
    visible_apprenticeships,
)
from tracker.careers.services.ladder import managed_people
from tracker.careers.services.ladder import promotions as promotion_careers
from tracker.careers.services.rotation import rotation
from tracker.careers.services.skills import team_coverage
from tracker.careers.views.blueprint import bp, signed_in_person
from tracker.catalog.services.reads import paths_with_courses
from tracker.clock import today
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.forms import NO_CHOICE, choices, show_errors
from tracker.i18n import day
from tracker.people.models import Engineer, Team
from tracker.people.rules import MANAGER_ROLES
from tracker.readiness.services.team import can_view_team
from tracker.web.filters import named
from tracker.web.language import localized
from tracker.web.roles import role_required


@bp.get("/promotions")
@role_required(*MANAGER_ROLES)
def promotions():
    """The manager's people: who meets the next level's rule, and what the others lack."""
    session = db_session()
    on = today()
    rows = promotion_careers(session, signed_in_person(), on)
    return render_template(
        "careers/promotions.html",
        ready=[c for c in rows if c.meets_next_level],
        others=[c for c in rows if not c.meets_next_level and c.next_level is not None],
        # Nothing to be promoted to: named apart, not as lacking something.
        top=[c for c in rows if c.next_level is None],
        rotations={c.engineer.id: rotation(c.engineer) for c in rows},
        on=on,
    )


@bp.get("/teams/<int:team_id>/skills")
@role_required(*MANAGER_ROLES)
def team_skills(team_id: int):
    """A team's specialities by people, with its single points of failure."""
    team = db_session().get(Team, team_id)
    if team is None:
        abort(404)
    if not can_view_team(signed_in_person(), team):
        abort(403)
    return render_template(
        "careers/coverage.html",
        team=team,
        coverage=team_coverage(db_session(), team),
        labels=PROFICIENCY_LABELS,
        held_at=HELD_AT,
    )


def _apprenticeship_choices(session: Session, form: ApprenticeshipForm) -> None:
    actor = signed_in_person()
    people = managed_people(session, actor)
    seniors = people if actor.access_role == "admin" else [actor, *people]
    for field, listed in ((form.junior, people), (form.senior, seniors)):
        field.choices = choices(
            [
                NO_CHOICE,
                *(
                    (e.id, _("%(name)s (level %(level)s)", name=e.name, level=e.level))
                    for e in listed
                ),
            ]
        )
    form.path.choices = choices(
        [("", _("— the junior's first unfinished path —"))]
        + [(p.id, named(p)) for p in paths_with_courses(session)]
    )


@bp.route("/apprenticeships", methods=["GET", "POST"])
@role_required(*MANAGER_ROLES)
def apprenticeships():
    """Pair a junior with a senior; show each pairing's progress and its cost in senior time."""
    session = db_session()
    on = today()
    form = ApprenticeshipForm()
    _apprenticeship_choices(session, form)
    if request.method == "GET":
        form.starts_on.data = on
    status = 200
    if form.validate_on_submit():
        junior = session.get(Engineer, form.junior.data)
        senior = session.get(Engineer, form.senior.data)
        if junior is None or senior is None or not can_pair(signed_in_person(), junior, senior):
            abort(403)
        path = None
        if form.path.data is not None:
            path = next(p for p in paths_with_courses(session) if p.id == form.path.data)
        try:
            row = create_apprenticeship(
                session,
                junior,
                senior,
                form.starts_on.data,
                form.months.data,
                on,
                path=path,
                note=form.note.data or "",
            )
        except ValidationError as exc:
            show_errors(form, exc)
        else:
            flash(
                _(
                    "%(junior)s apprenticed to %(senior)s from %(start)s to %(end)s.",
                    junior=junior.name,
                    senior=senior.name,
                    start=localized(day(row.starts_on)),
                    end=localized(day(row.ends_on)),
                ),
                "success",
            )
            return redirect(url_for("careers.apprenticeships"))
    if form.is_submitted():
        status = 400
    return render_template(
        "careers/apprenticeships.html",
        form=form,
        rows=visible_apprenticeships(session, signed_in_person(), on),
        on=on,
    ), status
