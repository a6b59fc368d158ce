"""Managers' pages: teams, readiness, heat map, forecast, plans, CSV, ROI; the organisation."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from flask import Blueprint, abort, render_template, request
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import current_user
from sqlalchemy import select
from werkzeug.datastructures import MultiDict

from tracker.catalog.models.planning import RoiLine
from tracker.catalog.services.snapshot import TemplateInfo, catalog_snapshot
from tracker.clock import today
from tracker.errors import ValidationError
from tracker.extensions import db_session, session_factory
from tracker.forms import choices
from tracker.people.models import Team
from tracker.people.rules import MANAGER_ROLES
from tracker.people.views import person_name
from tracker.progress.rules import EXPIRING_WITHIN_DAYS
from tracker.progress.services.validity import add_months
from tracker.progress.views.blueprint import status_label
from tracker.readiness.drawings import add_drawing_helpers
from tracker.readiness.forms import (
    SORT_NAMES,
    OrganisationQueryForm,
    PlanQueryForm,
    ReadinessQueryForm,
    RoiForm,
)
from tracker.readiness.rules import (
    HISTORY_MONTHS,
    MAX_ROI_LINES,
    PLAN_DEFAULT_MONTHS,
    SANE_WEEKLY_HOURS,
    TREND_DAYS,
)
from tracker.readiness.services.current import up_to_date
from tracker.readiness.services.history import (
    organisation_history,
    team_history,
)
from tracker.readiness.services.matching import certification_lacked
from tracker.readiness.services.organisation import (
    DEFAULT_SORT,
    SORTS,
    SummaryFilters,
    summary_page,
    summary_rows,
)
from tracker.readiness.services.planning import plan_to_target
from tracker.readiness.services.roi import roi as compute_roi
from tracker.readiness.services.team import can_view_team, team_readiness
from tracker.readiness.services.team_page import team_page
from tracker.signals import showing_team, template_context
from tracker.web.converters import requested_page
from tracker.web.downloads import csv_download
from tracker.web.drawings import BlankQuery
from tracker.web.filters import named
from tracker.web.language import localized, localized_errors
from tracker.web.roles import role_required

bp = Blueprint("readiness", __name__)

BAD_QUERY = _l("gpus must be a whole number of 0 or more and on a date YYYY-MM-DD")
BAD_ORGANISATION_QUERY = _l(
    "the organisation table's filters or order are not valid; see the organisation page"
)
# The names of the ROI calculator's two lists, as its refusals call them.
ROI_LIST_NAMES = {"investment": _l("investment"), "returns": _l("returns")}


@bp.record_once
def _add_drawings(state) -> None:
    add_drawing_helpers(state.app)


def team_or_404(team_id: int) -> Team:
    """Return the team a page names, when the signed-in person may see it (403, 404)."""
    team = db_session().get(Team, team_id)
    if team is None:
        abort(404)
    if not can_view_team(current_user, team):
        abort(403)
    return team


def _query(team: Team) -> tuple[ReadinessQueryForm, int, dt.date, int]:
    """Read ?gpus=&on= (defaults: the team's fleet, today); 400 on bad values."""
    form = ReadinessQueryForm(request.args)
    status = 200
    if request.args and not form.validate():
        status = 400
    gpus = form.gpus.data if status == 200 and form.gpus.data is not None else team.gpus
    on = form.on.data if status == 200 and form.on.data is not None else today()
    if not request.args:
        form.gpus.data, form.on.data = gpus, on
    return form, gpus, on, status


def current_day() -> dt.date:
    """Bring the stored readiness up to date for today (what changed only); return today."""
    on = today()
    up_to_date(db_session(), session_factory(), on)
    return on


def templates_by_id() -> dict[int, TemplateInfo]:
    """Return the catalog's templates by id (the bands the stored rows name)."""
    return {t.id: t for t in catalog_snapshot(db_session()).templates}


@bp.get("/teams")
@role_required(*MANAGER_ROLES)
def teams():
    """List the teams the manager runs (all of them for an admin) with today's readiness."""
    on = current_day()
    own = None if current_user.access_role == "admin" else current_user.id
    rows = summary_rows(db_session(), SummaryFilters(manager_id=own))
    return render_template("readiness/teams.html", rows=rows, templates=templates_by_id(), on=on)


# The organisation table's query: its filters and order, kept on its links.
ORGANISATION_ARGS = ("name", "manager", "band", "sort", "order")


def _organisation_form(templates: Sequence[TemplateInfo]) -> OrganisationQueryForm:
    # An empty parameter (?sort=&band=, as a form or a hand-edited link sends it) means
    # its default, as in the API: only a value given is checked.
    given = MultiDict([(k, v) for k, v in request.args.items(multi=True) if v.strip()])
    form = OrganisationQueryForm(given)
    form.band.choices = choices([("", _("any band")), *((t.code, named(t)) for t in templates)])
    return form


def _organisation_query() -> tuple[
    OrganisationQueryForm | BlankQuery, SummaryFilters, str, bool, dict, int
]:
    """Read ?name=&manager=&band=&sort=&order= (a bad value: 400, the table unfiltered)."""
    catalog = catalog_snapshot(db_session())
    templates = catalog.templates
    if not request.args and catalog.stamp is not None:
        # The page as most people open it: its form is drawn by the catalog's bands alone
        # (which its stamp names: a catalog without one is read afresh, its form too).
        blank = BlankQuery(lambda: _organisation_form(templates), catalog.stamp)
        return blank, SummaryFilters(), DEFAULT_SORT, False, {}, 200
    form = _organisation_form(templates)
    status = 200 if form.validate() else 400
    if status != 200:
        return form, SummaryFilters(), DEFAULT_SORT, False, {}, status
    band = next((t.id for t in templates if t.code == form.band.data), None)
    filters = SummaryFilters(band=band, manager=form.manager.data or "", name=form.name.data or "")
    args = {k: v for k in ORGANISATION_ARGS if (v := request.args.get(k, "").strip())}
    return form, filters, form.sort.data or DEFAULT_SORT, form.order.data == "desc", args, status


@bp.get("/organisation")
@role_required("admin")
def organisation():
    """Show the organisation table: a row per team, sorted, filtered, paged; each opens its team."""
    on = current_day()
    form, filters, sort, descending, args, status = _organisation_query()
    page = summary_page(db_session(), filters, sort, descending, page=requested_page())
    history = organisation_history(db_session(), on)
    return render_template(
        "readiness/organisation.html",
        history=history,
        history_length=HISTORY_MONTHS,
        form=form,
        page=page,
        filters=filters,
        sort=sort,
        descending=descending,
        args=args,
        sorts=SORTS,
        sort_names=SORT_NAMES,
        templates=templates_by_id(),
        on=on,
        expiring_within=EXPIRING_WITHIN_DAYS,
        trend_days=TREND_DAYS,
    ), status


@bp.get("/organisation.csv")
@role_required("admin")
def organisation_csv():
    """Download the organisation table, every row the filters keep, in the table's order."""
    on = current_day()
    _form, filters, sort, descending, _args, status = _organisation_query()
    if status != 200:
        abort(400, str(BAD_ORGANISATION_QUERY))
    templates = catalog_snapshot(db_session()).templates
    codes = {t.id: t.code for t in templates}
    rows: list[list[object]] = [
        [
            _("team"),
            _("manager"),
            _("band"),
            _("gpus"),
            _("seats_filled"),
            _("seats"),
            _("percent_ready"),
            _("lapsing_within_%(days)s_days", days=EXPIRING_WITHIN_DAYS),
            _("trend_points"),
        ]
    ]
    for row in summary_rows(db_session(), filters, sort, descending):
        rows.append(
            [
                row.team_name,
                row.manager_name or "",
                codes.get(row.template_id, ""),
                row.gpus,
                row.filled,
                row.total,
                row.percent,
                row.lapsing,
                "" if row.trend is None else row.trend,
            ]
        )
    return csv_download(rows, f"organisation-{on.isoformat()}.csv")


@bp.get("/teams/<int:team_id>")
@role_required(*MANAGER_ROLES)
def team(team_id: int):
    """Show a team's readiness for a fleet on a date, its heat map and forecast."""
    team = team_or_404(team_id)
    form, gpus, on, status = _query(team)
    # A bad query shows the full page, where the form says what was wrong.
    printing = bool(request.args.get("print")) and status == 200
    day = today()
    if not printing:
        # The history is of the team's own fleet up to today, whatever the query
        # asks. Brought up to date first: the check reads the catalog's stamp,
        # which the page's catalog read then reuses.
        up_to_date(db_session(), session_factory(), day, team_ids=[team.id])
    page = team_page(db_session(), team, on, gpus)
    if printing:
        return render_template("readiness/print.html", team=team, page=page, form=form), status
    history = team_history(db_session(), team.id, day)
    return render_template(
        "readiness/team.html",
        team=team,
        page=page,
        form=form,
        history=history,
        history_length=HISTORY_MONTHS,
        **template_context(showing_team, team),
    ), status


@bp.get("/teams/<int:team_id>/heatmap.csv")
@role_required(*MANAGER_ROLES)
def heatmap_csv(team_id: int):
    """Download the heat map: one row per engineer, one column per certification."""
    team = team_or_404(team_id)
    _form, gpus, on, status = _query(team)
    if status != 200:
        abort(400, str(BAD_QUERY))
    page = team_page(db_session(), team, on, gpus, months=0)
    header = [_("engineer"), _("email"), _("level"), *[c.code for c in page.columns]]
    rows: list[list[object]] = [header]
    # A cell's words as the page's cell says them, in the reader's language; its
    # expiry stays ISO and the level a number, for the spreadsheet to read.
    verified = " " + _("verified")
    for row in page.rows:
        rows.append(
            [person_name(row.member), row.member.engineer.email, row.member.level]
            + [
                status_label(cell.status)
                + (
                    f" ({cell.certification.expires_on.isoformat()})"
                    if cell.certification and cell.certification.expires_on
                    else ""
                )
                # Proved by its issuer's badge, as the page's cell says.
                + (verified if cell.verified else "")
                for cell in row.cells
            ]
        )
    return csv_download(rows, f"heatmap-team-{team.id}-{on.isoformat()}.csv")


@bp.get("/teams/<int:team_id>/gaps.csv")
@role_required(*MANAGER_ROLES)
def gaps_csv(team_id: int):
    """Download the readiness gaps: each unfilled seat with its nearest candidates."""
    team = team_or_404(team_id)
    _form, gpus, on, status = _query(team)
    if status != 200:
        abort(400, str(BAD_QUERY))
    result = team_readiness(db_session(), team, on, gpus)
    rows: list[list[object]] = [
        [
            _("template"),
            _("slot"),
            _("role"),
            _("min_level"),
            _("max_level"),
            _("candidate"),
            _("lacks"),
        ]
    ]
    # Words in the reader's language, as the page has them; codes and levels as they are.
    for gap in result.gaps:
        slot = gap.seat.slot
        base = [
            result.template.code,
            named(slot),
            slot.job_role.code,
            slot.min_level,
            slot.max_level,
        ]
        if not gap.candidates:
            rows.append([*base, _("hire"), ""])
        for candidate in gap.candidates:
            rows.append([*base, person_name(candidate.member), localized(candidate.lacking("; "))])
    for item in result.team_credentials:
        if not item.met:
            rows.append(
                [
                    result.template.code,
                    _("team-wide"),
                    "",
                    "",
                    "",
                    _("nobody"),
                    localized(certification_lacked(item.credential.code)),
                ]
            )
    return csv_download(rows, f"gaps-team-{team.id}-{on.isoformat()}.csv")


@bp.get("/teams/<int:team_id>/plan")
@role_required(*MANAGER_ROLES)
def plan(team_id: int):
    """Plan the training and hires to reach a fleet size by a date, with costs."""
    team = team_or_404(team_id)
    result, status = None, 200
    # The team page's link carries only the fleet size to start from; the form
    # is submitted once it carries the target date, empty or not.
    if "target" not in request.args:
        form = PlanQueryForm(
            None,
            gpus=request.args.get("gpus", team.gpus, type=int),
            target=add_months(today(), PLAN_DEFAULT_MONTHS),
        )
    else:
        form = PlanQueryForm(request.args)
        if form.validate():
            try:
                result = plan_to_target(
                    db_session(), team, form.gpus.data, form.target.data, today()
                )
            except ValidationError as exc:
                for key, message in localized_errors(exc.errors).items():
                    field: Any = getattr(form, key, form.gpus)
                    field.errors.append(message)
                status = 400
        else:
            status = 400
    return render_template(
        "readiness/plan.html",
        team=team,
        form=form,
        plan=result,
        weekly_limit=SANE_WEEKLY_HOURS,
    ), status


@bp.route("/roi", methods=["GET", "POST"])
@role_required(*MANAGER_ROLES)
def roi():
    """Compute first-year and ongoing ROI; prefilled with the catalog's example lines."""
    session = db_session()
    form = RoiForm()
    if request.method == "GET":
        lines = session.scalars(select(RoiLine).order_by(RoiLine.kind, RoiLine.position)).all()
        form = RoiForm(
            data={
                "investment": [
                    {"label": named(r), "amount": r.amount} for r in lines if r.kind == "investment"
                ],
                "returns": [
                    {"label": named(r), "amount": r.amount} for r in lines if r.kind == "return"
                ],
            }
        )
    result, status = None, 200
    too_many = _roi_lines_over_limit()
    if too_many:
        form.validate()
        form.form_errors.append(too_many)
        status = 400
    elif request.method == "GET" or form.validate_on_submit():
        try:
            result = compute_roi(
                {f"{i}": line.amount.data for i, line in enumerate(form.investment)},
                {f"{i}": line.amount.data for i, line in enumerate(form.returns)},
            )
        except ValidationError as exc:
            form.form_errors.extend(localized_errors(exc.errors).values())
            status = 400
    elif request.method == "POST":
        status = 400
    return render_template("readiness/roi.html", form=form, result=result), status


def _roi_lines_over_limit() -> str:
    """Say so when a POST holds more lines than the form takes (WTForms would drop them)."""
    for name in ("investment", "returns"):
        lines = {key.split("-")[1] for key in request.form if key.startswith(f"{name}-")}
        if len(lines) > MAX_ROI_LINES:
            return _(
                "%(name)s: at most %(max)s lines (got %(got)s)",
                name=ROI_LIST_NAMES[name],
                max=MAX_ROI_LINES,
                got=len(lines),
            )
    return ""
