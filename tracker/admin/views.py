"""Admin pages: people, teams, the catalog with the internal track, CSV imports, the outbox.

The account trail's page is tracker/admin/audit.py; the webhooks' is the webhooks package's.

Thin views: forms check the shape of the input, the services of people,
catalog, imports and reminders the rules; a refusal answers 400 with the
message next to its field.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from flask import (
    Blueprint,
    abort,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext as _
from flask_babel import ngettext
from flask_login import current_user
from flask_wtf import FlaskForm
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tracker.admin.audit import bp as audit_bp
from tracker.admin.forms import (
    NOTIFICATION_KIND_NAMES,
    NOTIFICATION_STATUS_NAMES,
    ConfirmForm,
    ImportForm,
    OutboxFilterForm,
    PersonAddForm,
    PersonEditForm,
    TeamEditForm,
    TeamForm,
    TrackForm,
)
from tracker.badges.views import badge_fetch
from tracker.badges.views import mappings_bp as badge_mappings_bp
from tracker.careers.services.ladder import level_by_experience
from tracker.catalog.services.internal_track import (
    create_internal_track,
    credentials,
    internal_codes,
)
from tracker.catalog.services.reads import catalog_dict
from tracker.clock import today, utcnow
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.forms import NO_CHOICE, choices, draw, page_status, show_errors, unchanged_since_drawn
from tracker.i18n import join
from tracker.imports.services.kinds import ImportRefused, RowError
from tracker.imports.services.reading import decode_csv
from tracker.imports.services.run import IMPORT_KINDS, import_csv
from tracker.people.models import Engineer, Team
from tracker.people.services.access import manager_candidates
from tracker.people.services.persons import (
    create_person,
    job_roles,
    level_history,
    levels,
    people_overview,
    set_active,
    set_identity,
    update_engineer,
)
from tracker.people.services.teams import create_team, teams_overview, update_team
from tracker.people.services.teams import teams as all_teams
from tracker.progress.models import ExamAttempt, HourLog
from tracker.progress.services.validity import experience_months
from tracker.reminders.models import Notification
from tracker.reminders.services.delivery import retry_failed
from tracker.reminders.services.outbox import outbox as outbox_page
from tracker.reminders.services.outbox import outbox_counts
from tracker.web.confirm import confirmation_page
from tracker.web.converters import requested_page
from tracker.web.filters import named
from tracker.web.language import current_locale, localized, localized_errors
from tracker.web.roles import role_required
from tracker.webhooks.views import bp as webhooks_bp

bp = Blueprint("admin", __name__, url_prefix="/admin")
# The webhooks page is the admin section's: /admin/webhooks, endpoints admin.webhooks.*.
bp.register_blueprint(webhooks_bp)
# The account trail: /admin/audit, endpoints admin.audit.*.
bp.register_blueprint(audit_bp)
# Badge classes mapped to catalog credentials: /admin/badges, endpoints admin.badge_mappings.*.
bp.register_blueprint(badge_mappings_bp)


def _actor() -> Engineer:
    return current_user._get_current_object()


def _status(form: FlaskForm) -> int:
    return 400 if form.is_submitted() else 200


def _get_or_404(model: type, ident: int):
    obj = db_session().get(model, ident)
    if obj is None:
        abort(404)
    return obj


def _manager_choices(form: FlaskForm, person: Engineer | None, current: Engineer | None) -> None:
    candidates = [
        m for m in manager_candidates(db_session()) if person is None or m.id != person.id
    ]
    if current is not None and current not in candidates:
        candidates.append(current)
    form.manager.choices = choices(
        [NO_CHOICE, *((m.id, f"{m.name} ({m.email})") for m in candidates)]
    )


def _person_choices(form: FlaskForm, person: Engineer | None = None) -> None:
    session = db_session()
    form.job_roles.choices = choices((r.code, named(r)) for r in job_roles(session))
    form.level.choices = choices(
        (lv.number, f"{lv.number} · {named(lv)}") for lv in levels(session)
    )
    form.team.choices = choices([NO_CHOICE, *((t.id, t.name) for t in all_teams(session))])
    _manager_choices(form, person, person.manager if person else None)


def _first_record(session: Session, person: Engineer) -> dt.date | None:
    """Return the day of the person's first recorded hours or exam attempt, if any."""
    dates = [
        session.scalar(select(func.min(HourLog.logged_on)).where(HourLog.engineer_id == person.id)),
        session.scalar(
            select(func.min(ExamAttempt.attempted_on)).where(ExamAttempt.engineer_id == person.id)
        ),
    ]
    return min((d for d in dates if d is not None), default=None)


def _person_values(person: Engineer) -> dict[str, Any]:
    """Return what the edit form shows of a person, by field: the version it saves against."""
    return {
        "name": person.name,
        "email": person.email,
        "access_role": person.access_role,
        "job_roles": sorted(person.job_role_codes),
        "level": person.level,
        "team": person.team_id,
        "manager": person.manager_id,
        "hired_on": person.hired_on,
        "experience_months": person.experience_months,
        "locale": person.locale,
    }


# --- people -----------------------------------------------------------------


@bp.get("/")
@role_required("admin")
def index():
    return redirect(url_for("admin.people"))


@bp.get("/people")
@role_required("admin")
def people():
    """List every person with role, job roles, level, team, manager and state."""
    return render_template("admin/people.html", people=people_overview(db_session()))


@bp.route("/people/new", methods=["GET", "POST"])
@role_required("admin")
def add_person():
    """Add a person and their account."""
    form = PersonAddForm()
    _person_choices(form)
    if form.validate_on_submit():
        try:
            person = create_person(
                db_session(),
                actor=_actor(),
                today=today(),
                email=form.email.data,
                name=form.name.data,
                access_role=form.access_role.data,
                job_roles=form.job_roles.data,
                level=form.level.data,
                team_id=form.team.data,
                manager_id=form.manager.data,
                hired_on=form.hired_on.data,
                experience_months=form.experience_months.data,
                password=form.password.data,
                locale=form.locale.data,
                via="web",
            )
        except ValidationError as exc:
            show_errors(form, exc)
        else:
            flash(_("%(name)s added.", name=person.name), "success")
            return redirect(url_for("admin.people"))
    return render_template("admin/person_form.html", form=form, person=None), _status(form)


@bp.route("/people/<int:person_id>", methods=["GET", "POST"])
@role_required("admin")
def edit_person(person_id: int):
    """Edit a person: name, email, access role, job roles, level, team, manager, hire date..."""
    session = db_session()
    person = _get_or_404(Engineer, person_id)
    form = PersonEditForm()
    _person_choices(form, person)
    values = _person_values(person)
    if not form.is_submitted():
        draw(form, values)
    elif unchanged_since_drawn(form, values) and form.validate():
        # Every refusal at once: the identity's and the rest's (a 400 commits neither).
        errors: dict[str, str] = {}
        try:
            set_identity(
                session,
                person,
                email=form.email.data,
                name=form.name.data,
                actor=_actor(),
                via="web",
            )
        except ValidationError as exc:
            errors.update(exc.errors)
        try:
            update_engineer(
                session,
                person,
                _actor(),
                today(),
                first_record=_first_record(session, person),
                via="web",
                access_role=form.access_role.data,
                job_roles=form.job_roles.data,
                level=form.level.data,
                team_id=form.team.data,
                manager_id=form.manager.data,
                hired_on=form.hired_on.data,
                experience_months=form.experience_months.data,
                locale=form.locale.data,
            )
        except ValidationError as exc:
            errors.update(exc.errors)
        if errors:
            show_errors(form, ValidationError(errors))
        else:
            flash(_("%(name)s saved.", name=person.name), "success")
            return redirect(url_for("admin.edit_person", person_id=person.id))
    return _person_page(person, form, page_status(form))


def _person_page(person: Engineer, form: FlaskForm, status: int, active_form=None):
    session = db_session()
    months = experience_months(person, today())
    return render_template(
        "admin/person_form.html",
        form=form,
        person=person,
        active_form=active_form or ConfirmForm(),
        levels=level_history(session, person),
        months=months,
        experience_level=level_by_experience(levels(session), months),
    ), status


@bp.route("/people/<int:person_id>/deactivate", methods=["GET", "POST"])
@role_required("admin")
def deactivate_person(person_id: int):
    """Ask, then deactivate an account; the person's sessions end at once."""
    if request.method == "POST":
        return _set_active(person_id, False)
    person = _get_or_404(Engineer, person_id)
    if not person.active:  # nothing left to confirm: its page says so
        return redirect(url_for("admin.edit_person", person_id=person.id))
    return confirmation_page(
        question=_("Deactivate %(name)s?", name=person.name),
        happens=_("They are signed out everywhere; their sign-in and API tokens are refused."),
        kept=_("Their records stay, and an admin can reactivate the account at any time."),
        submit=_("Deactivate"),
        back=url_for("admin.edit_person", person_id=person.id),
        form=ConfirmForm(formdata=None),
    )


@bp.post("/people/<int:person_id>/reactivate")
@role_required("admin")
def reactivate_person(person_id: int):
    """Reactivate an account."""
    return _set_active(person_id, True)


def _set_active(person_id: int, active: bool):
    person = _get_or_404(Engineer, person_id)
    form = ConfirmForm()
    if form.validate_on_submit():
        try:
            set_active(db_session(), person, active, _actor(), via="web")
        except ValidationError as exc:
            form.form_errors.extend(localized_errors(exc.errors).values())
        else:
            if active:
                flash(_("%(name)s reactivated.", name=person.name), "success")
            else:
                flash(_("%(name)s deactivated.", name=person.name), "success")
            return redirect(url_for("admin.edit_person", person_id=person.id))
    edit_form = PersonEditForm(formdata=None)
    _person_choices(edit_form, person)
    draw(edit_form, _person_values(person))
    return _person_page(person, edit_form, 400, active_form=form)


# --- teams ------------------------------------------------------------------


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
    _manager_choices(form, None, None)
    if form.validate_on_submit():
        try:
            team = create_team(db_session(), form.name.data, form.gpus.data, form.manager.data)
        except ValidationError as exc:
            show_errors(form, exc)
        else:
            flash(_("Team %(name)s added.", name=team.name), "success")
            return redirect(url_for("admin.teams"))
    return render_template("admin/team_form.html", form=form, team=None), _status(form)


@bp.route("/teams/<int:team_id>", methods=["GET", "POST"])
@role_required("admin")
def edit_team(team_id: int):
    """Rename a team, change its fleet size or manager."""
    team = _get_or_404(Team, team_id)
    form = TeamEditForm()
    _manager_choices(form, None, team.manager)
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


# --- catalog and the internal certification track ---------------------------


@bp.route("/catalog", methods=["GET", "POST"])
@role_required("admin")
def catalog():
    """Show the catalog and create an internal certification track."""
    session = db_session()
    form = TrackForm()
    form.prerequisites.choices = choices(
        (c.code, f"{c.code} · {named(c)}") for c in credentials(session)
    )
    if form.validate_on_submit():
        try:
            path = create_internal_track(
                session,
                exam_code=form.exam_code.data,
                exam_name=form.exam_name.data,
                validity_months=form.validity_months.data,
                prerequisites=form.prerequisites.data,
                experience_months=form.experience_months.data,
                retake_wait_days=form.retake_wait_days.data,
                courses=form.courses.data,
                path_code=form.path_code.data,
                path_name=form.path_name.data,
                target_months=form.target_months.data,
                exam_name_es=form.exam_name_es.data or "",
                path_name_es=form.path_name_es.data or "",
                locale=current_locale(),
            )
        except ValidationError as exc:
            show_errors(form, exc)
        else:
            flash(
                ngettext(
                    "Internal track %(name)s created: %(num)d course ending in exam %(exam)s.",
                    "Internal track %(name)s created: %(num)d courses ending in exam %(exam)s.",
                    len(path.path_courses),
                    name=named(path),
                    exam=form.exam_code.data.strip(),
                ),
                "success",
            )
            return redirect(url_for("admin.catalog"))
    return render_template(
        "admin/catalog.html",
        form=form,
        catalog=catalog_dict(session),
        internal=internal_codes(session),
    ), _status(form)


# --- CSV imports ------------------------------------------------------------


@bp.route("/imports", methods=["GET", "POST"])
@role_required("admin")
def imports():
    """Import people, hour logs, exam attempts or external credentials from a CSV file."""
    form = ImportForm()
    form.kind.choices = choices((k.code, localized(k.label)) for k in IMPORT_KINDS.values())
    row_errors: list[RowError] = []
    if form.validate_on_submit():
        try:
            text = decode_csv(form.file.data.read())
            result = import_csv(
                db_session(), form.kind.data, text, today(), actor=_actor(), fetch=badge_fetch()
            )
        except ImportRefused as exc:
            row_errors = exc.errors
            bad_lines = len({e.line for e in row_errors})
            form.file.errors = [
                *form.file.errors,
                ngettext(
                    "%(num)d row breaks a rule (listed below); nothing was imported",
                    "%(num)d rows break a rule (listed below); nothing was imported",
                    bad_lines,
                ),
            ]
        except ValidationError as exc:
            show_errors(form, exc)
        else:
            flash(localized(result.summary), "success")
            return redirect(url_for("admin.imports"))
    return render_template(
        "admin/imports.html",
        form=form,
        kinds=IMPORT_KINDS.values(),
        row_errors=row_errors,
    ), _status(form)


# --- the outbox -------------------------------------------------------------

OUTBOX_ARGS = ("status", "kind", "q", "page")


def _outbox_args() -> dict[str, Any]:
    """Return the outbox's filters and page from the query string (to keep them on links)."""
    return {k: request.args[k] for k in OUTBOX_ARGS if request.args.get(k)}


def _outbox_page(status: int = 200, error: str | None = None):
    form = OutboxFilterForm(request.args)
    if request.args and not form.validate():
        status = 400
    valid = not form.errors
    page = outbox_page(
        db_session(),
        status=form.status.data if valid else None,
        kind=form.kind.data if valid else None,
        search=(form.q.data or "") if valid else "",
        page=requested_page(),
    )
    filters = {k: v for k, v in _outbox_args().items() if k != "page"}
    retry_forms = {
        n.id: ConfirmForm(formdata=None, prefix=f"retry-{n.id}")
        for n in page.rows
        if n.status == "failed"
    }
    return render_template(
        "admin/outbox.html",
        form=form,
        page=page,
        filters=filters,
        retry_forms=retry_forms,
        counts=outbox_counts(db_session()),
        status_names=NOTIFICATION_STATUS_NAMES,
        kind_names=NOTIFICATION_KIND_NAMES,
        error=error,
    ), status


@bp.get("/outbox")
@role_required("admin")
def outbox():
    """List the outbox newest first: status, attempts, last error; filter by status, kind, text."""
    return _outbox_page()


@bp.post("/outbox/<int:notification_id>/retry")
@role_required("admin")
def retry_notification(notification_id: int):
    """Put a failed notice back in the queue; the sender delivers it on its next run."""
    notification = _get_or_404(Notification, notification_id)
    form = ConfirmForm(prefix=f"retry-{notification_id}")
    if not form.validate_on_submit():
        return _outbox_page(400, _("The form expired: reload the page and try again."))
    try:
        retry_failed(db_session(), notification, utcnow())
    except ValidationError as exc:
        status = NOTIFICATION_STATUS_NAMES.get(notification.status, notification.status)
        return _outbox_page(
            400,
            _(
                "Notice #%(id)s is %(status)s: %(message)s.",
                id=notification.id,
                status=status,
                message=localized(join(exc.errors.values())),
            ),
        )
    flash(
        _("Notice #%(id)s queued again: the sender retries it shortly.", id=notification.id),
        "success",
    )
    return redirect(url_for("admin.outbox", **_outbox_args()))
