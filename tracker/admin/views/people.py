"""The admin's people: the list, a new person, a person's page, deactivating and reactivating."""

from __future__ import annotations

import datetime as dt
from typing import Any

from flask import flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_wtf import FlaskForm
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tracker.admin.forms import ConfirmForm, PersonAddForm, PersonEditForm
from tracker.admin.views.blueprint import (
    bp,
    form_status,
    manager_choices,
    signed_in_person,
)
from tracker.careers.services.ladder import career
from tracker.clock import today
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.forms import NO_CHOICE, choices, draw, page_status, show_errors, unchanged_since_drawn
from tracker.people.models import Engineer
from tracker.people.services.persons import create_person, set_active, set_identity, update_engineer
from tracker.people.services.reads import job_roles, level_history, levels, people_overview
from tracker.people.services.teams import teams as all_teams
from tracker.progress.models import ExamAttempt, HourLog
from tracker.web.confirm import confirmation_page
from tracker.web.database import record_or_404
from tracker.web.filters import named
from tracker.web.language import localized_errors
from tracker.web.roles import role_required


def _person_choices(form: FlaskForm, person: Engineer | None = None) -> None:
    session = db_session()
    form.job_roles.choices = choices((r.code, named(r)) for r in job_roles(session))
    form.level.choices = choices(
        (lv.number, f"{lv.number} · {named(lv)}") for lv in levels(session)
    )
    form.team.choices = choices([NO_CHOICE, *((t.id, t.name) for t in all_teams(session))])
    manager_choices(form, person, person.manager if person else None)


def _first_record(session: Session, person: Engineer) -> dt.date | None:
    """Return the day of the person's first recorded hours or exam attempt, if any."""
    dates = [
        session.scalar(select(func.min(HourLog.logged_on)).where(HourLog.engineer_id == person.id)),
        session.scalar(
            select(func.min(ExamAttempt.attempted_on)).where(ExamAttempt.engineer_id == person.id)
        ),
    ]
    return min((d for d in dates if d is not None), default=None)


# An erased person keeps their pseudonym and its address for good: no field to change them.
IDENTITY_FIELDS = ("name", "email")


def _edit_form(person: Engineer, **kwargs: Any) -> PersonEditForm:
    """Return the person's edit form, without the name and address of an erased person."""
    form = PersonEditForm(**kwargs)
    if person.erased_at is not None:
        for name in IDENTITY_FIELDS:
            delattr(form, name)
    _person_choices(form, person)
    return form


def _person_values(person: Engineer) -> dict[str, Any]:
    """Return what the edit form shows of a person, by field: the version it saves against."""
    identity = {} if person.erased_at is not None else {"name": person.name, "email": person.email}
    return {
        **identity,
        "access_role": person.access_role,
        "job_roles": sorted(person.job_role_codes),
        "level": person.level,
        "team": person.team_id,
        "manager": person.manager_id,
        "hired_on": person.hired_on,
        "experience_months": person.experience_months,
        "locale": person.locale,
    }


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
                actor=signed_in_person(),
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
    return render_template("admin/person_form.html", form=form, person=None), form_status(form)


@bp.route("/people/<int:person_id>", methods=["GET", "POST"])
@role_required("admin")
def edit_person(person_id: int):
    """Edit a person: name, email, access role, job roles, level, team, manager, hire date..."""
    session = db_session()
    person = record_or_404(Engineer, person_id)
    form = _edit_form(person)
    values = _person_values(person)
    if not form.is_submitted():
        draw(form, values)
    elif unchanged_since_drawn(form, values) and form.validate():
        # Every refusal at once: the identity's and the rest's (a 400 commits neither).
        errors: dict[str, str] = {}
        try:
            if person.erased_at is None:
                set_identity(
                    session,
                    person,
                    email=form.email.data,
                    name=form.name.data,
                    actor=signed_in_person(),
                    via="web",
                )
        except ValidationError as exc:
            errors.update(exc.errors)
        try:
            update_engineer(
                session,
                person,
                signed_in_person(),
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
    return render_template(
        "admin/person_form.html",
        form=form,
        person=person,
        active_form=active_form or ConfirmForm(),
        levels=level_history(session, person),
        career=career(session, person, today()),
    ), status


@bp.route("/people/<int:person_id>/deactivate", methods=["GET", "POST"])
@role_required("admin")
def deactivate_person(person_id: int):
    """Ask, then deactivate an account; the person's sessions end at once."""
    if request.method == "POST":
        return _set_active(person_id, False)
    person = record_or_404(Engineer, person_id)
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
    person = record_or_404(Engineer, person_id)
    form = ConfirmForm()
    if form.validate_on_submit():
        try:
            set_active(db_session(), person, active, signed_in_person(), via="web")
        except ValidationError as exc:
            form.form_errors.extend(localized_errors(exc.errors).values())
        else:
            if active:
                flash(_("%(name)s reactivated.", name=person.name), "success")
            else:
                flash(_("%(name)s deactivated.", name=person.name), "success")
            return redirect(url_for("admin.edit_person", person_id=person.id))
    edit_form = _edit_form(person, formdata=None)
    draw(edit_form, _person_values(person))
    return _person_page(person, edit_form, 400, active_form=form)
