"""The admin's teams: the list, a new team, a team's page."""

from __future__ import annotations

from flask import flash, redirect, render_template, url_for
from flask_babel import gettext as _

from tracker.admin.forms import TeamEditForm, TeamForm
from tracker.admin.views.blueprint import bp, form_status, manager_choices
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.forms import draw, page_status, show_errors, unchanged_since_drawn
from tracker.people.models import Team
from tracker.people.services.teams import create_team, teams_overview, update_team
from tracker.web.database import record_or_404
from tracker.web.roles import role_required


@bp.get("/teams")
@role_required("admin")
def teams():
    """List the teams with fleet size, manager and number of members."""
    return render_template("admin/teams.html", teams=teams_overview(db_session()))


@bp.route("/teams/new", methods=["GET", "POST"])
@role_required("admin")
def add_team():
    """Add a team."""
    form = TeamForm()
    manager_choices(form, None, None)
    if form.validate_on_submit():
        try:
            team = create_team(db_session(), form.name.data, form.gpus.data, form.manager.data)
        except ValidationError as exc:
            show_errors(form, exc)
        else:
            flash(_("Team %(name)s added.", name=team.name), "success")
            return redirect(url_for("admin.teams"))
    return render_template("admin/team_form.html", form=form, team=None), form_status(form)


@bp.route("/teams/<int:team_id>", methods=["GET", "POST"])
@role_required("admin")
def edit_team(team_id: int):
    """Rename a team, change its fleet size or manager."""
    team = record_or_404(Team, team_id)
    form = TeamEditForm()
    manager_choices(form, None, team.manager)
    values = {"name": team.name, "gpus": team.gpus, "manager": team.manager_id}
    if not form.is_submitted():
        draw(form, values)
    elif unchanged_since_drawn(form, values) and form.validate():
        try:
            update_team(
                db_session(),
                team,
                name=form.name.data,
                gpus=form.gpus.data,
                manager_id=form.manager.data,
            )
        except ValidationError as exc:
            show_errors(form, exc)
        else:
            flash(_("Team %(name)s saved.", name=team.name), "success")
            return redirect(url_for("admin.teams"))
    return render_template("admin/team_form.html", form=form, team=team), page_status(form)
