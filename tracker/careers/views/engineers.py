"""An engineer's career page: the ladder, the level, evidence, skills and rotation."""

from __future__ import annotations

import datetime as dt

from flask import abort, flash, redirect, render_template, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required
from flask_wtf import FlaskForm
from sqlalchemy.orm import Session

from tracker.careers.forms import ConfirmForm, EvidenceForm, LevelForm, SkillForm
from tracker.careers.rules import EVIDENCE_LABELS, PROFICIENCY_LABELS
from tracker.careers.services.apprenticeships import apprenticeships_of
from tracker.careers.services.evidence import can_record_evidence, evidence_of, record_evidence
from tracker.careers.services.ladder import Career, can_manage, career, change_level, load_levels
from tracker.careers.services.rotation import rotation
from tracker.careers.services.skills import assess as assess_skill
from tracker.careers.services.skills import (
    assessors,
    can_assess,
    current_skills,
    find_speciality,
    skill_history,
    specialities,
)
from tracker.careers.services.skills import confirm as confirm_skill
from tracker.careers.views.blueprint import bp, signed_in_person
from tracker.clock import today
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.forms import choices, show_errors
from tracker.people.models import Engineer
from tracker.people.services.reads import level_history
from tracker.people.views import engineer_or_404, person_name
from tracker.signals import showing_dashboard
from tracker.web.filters import named
from tracker.web.language import localized, localized_errors


@showing_dashboard.connect
def _career_panel(person: Engineer, on: dt.date) -> dict[str, Career]:
    """Give the dashboard its career panel: the level, what the next one asks."""
    return {"career": career(db_session(), person, on)}


@bp.get("/")
@login_required
def mine():
    """The signed-in person's own career page."""
    return redirect(url_for("careers.engineer", engineer_id=current_user.id))


def _level_form(session: Session, form: LevelForm | None = None) -> LevelForm:
    form = form or LevelForm(prefix="level")
    form.level.choices = choices(
        (n, f"{n} · {named(lv)}") for n, lv in sorted(load_levels(session).items())
    )
    return form


def _skill_form(session: Session, form: SkillForm | None = None) -> SkillForm:
    form = form or SkillForm(prefix="skill")
    form.speciality.choices = choices((s.code, named(s)) for s in specialities(session))
    return form


def _page(person: Engineer, status: int = 200, **forms: FlaskForm):
    session = db_session()
    on = today()
    actor = signed_in_person()
    manage = can_manage(actor, person)
    level_form = forms.get("level_form") or _level_form(session)
    if "level_form" not in forms:
        level_form.level.data = person.level
    history = skill_history(session, person.id)
    current = current_skills(session, [person.id])[person.id]
    return render_template(
        "careers/engineer.html",
        person=person,
        career=career(session, person, on),
        on=on,
        own=person.id == actor.id,
        manage=manage,
        level_form=level_form if manage else None,
        levels=level_history(session, person),
        evidence=evidence_of(session, person.id),
        evidence_form=forms.get("evidence_form") or EvidenceForm(prefix="evidence"),
        specialities=specialities(session),
        current=current,
        history=history,
        assessors=assessors(session, history),
        skill_form=forms.get("skill_form") or _skill_form(session),
        confirm_forms={
            s.speciality.code: ConfirmForm(prefix=f"confirm-{s.speciality.code}")
            for s in current.values()
            if manage and not s.confirmed
        },
        ladder=sorted(load_levels(session).values(), key=lambda lv: lv.number),
        labels=PROFICIENCY_LABELS,
        evidence_labels=EVIDENCE_LABELS,
        rotation=rotation(person),
        apprenticeships=apprenticeships_of(session, person, on),
    ), status


@bp.get("/engineers/<int:engineer_id>")
@login_required
def engineer(engineer_id: int):
    """Show a person's ladder, evidence, skills, apprenticeships and job-role history."""
    return _page(engineer_or_404(engineer_id))


@bp.post("/engineers/<int:engineer_id>/level")
@login_required
def set_level(engineer_id: int):
    """Set a report's level (their manager or an admin); the history keeps who, when, from, to."""
    session = db_session()
    person = engineer_or_404(engineer_id)
    if not can_manage(signed_in_person(), person):
        abort(403)
    form = _level_form(session, LevelForm(prefix="level"))
    if form.validate_on_submit():
        before = person.level
        try:
            change = change_level(
                session, person, form.level.data, signed_in_person(), today(), via="web"
            )
        except ValidationError as exc:
            show_errors(form, exc)
        else:
            if change is None:
                flash(
                    _(
                        "%(name)s is already level %(level)s.",
                        name=person_name(person),
                        level=before,
                    ),
                    "info",
                )
            else:
                flash(
                    _(
                        "%(name)s: level %(before)s → %(after)s.",
                        name=person_name(person),
                        before=before,
                        after=change.to_level,
                    ),
                    "success",
                )
            return redirect(url_for("careers.engineer", engineer_id=person.id))
    return _page(person, 400, level_form=form)


@bp.post("/engineers/<int:engineer_id>/evidence")
@login_required
def add_evidence(engineer_id: int):
    """Record a patent, publication or deployment led (the level-5 evidence)."""
    person = engineer_or_404(engineer_id)
    if not can_record_evidence(signed_in_person(), person):
        abort(403)
    form = EvidenceForm(prefix="evidence")
    if form.validate_on_submit():
        try:
            entry = record_evidence(
                db_session(),
                person,
                form.kind.data,
                form.title.data,
                form.occurred_on.data,
                today(),
                form.note.data or "",
            )
        except ValidationError as exc:
            show_errors(form, exc)
        else:
            flash(_("Evidence recorded: %(title)s.", title=entry.title), "success")
            return redirect(url_for("careers.engineer", engineer_id=person.id))
    return _page(person, 400, evidence_form=form)


@bp.post("/engineers/<int:engineer_id>/skills")
@login_required
def assess(engineer_id: int):
    """Write a proficiency: self-assessed by the engineer, confirmed by their manager."""
    session = db_session()
    person = engineer_or_404(engineer_id)
    if not can_assess(signed_in_person(), person):
        abort(403)
    form = _skill_form(session, SkillForm(prefix="skill"))
    if form.validate_on_submit():
        speciality = find_speciality(session, form.speciality.data)
        # The form accepts only the listed specialities, each of which exists.
        assert speciality is not None
        try:
            row = assess_skill(
                session, person, speciality, form.proficiency.data, signed_in_person()
            )
        except ValidationError as exc:
            show_errors(form, exc, {"level": "proficiency"})
        else:
            message = (
                _("%(speciality)s: %(number)s · %(label)s (confirmed).")
                if row.confirmed
                else _("%(speciality)s: %(number)s · %(label)s (self-assessed).")
            )
            flash(
                message
                % {
                    "speciality": named(speciality),
                    "number": row.proficiency,
                    "label": localized(PROFICIENCY_LABELS[row.proficiency]),
                },
                "success",
            )
            return redirect(url_for("careers.engineer", engineer_id=person.id))
    return _page(person, 400, skill_form=form)


@bp.post("/engineers/<int:engineer_id>/skills/<speciality>/confirm")
@login_required
def confirm(engineer_id: int, speciality: str):
    """Confirm a report's current proficiency in a speciality (their manager or an admin)."""
    session = db_session()
    person = engineer_or_404(engineer_id)
    if not can_manage(signed_in_person(), person):
        abort(403)
    found = find_speciality(session, speciality)
    if found is None:
        abort(404)
    form = ConfirmForm(prefix=f"confirm-{found.code}")
    if form.validate_on_submit():
        try:
            row = confirm_skill(session, person, found, signed_in_person())
        except ValidationError as exc:
            form.form_errors.extend(localized_errors(exc.errors).values())
        else:
            flash(
                _(
                    "%(speciality)s: %(number)s confirmed.",
                    speciality=named(found),
                    number=row.proficiency,
                ),
                "success",
            )
            return redirect(url_for("careers.engineer", engineer_id=person.id))
    skill_form = _skill_form(session)
    skill_form.form_errors.extend(form.form_errors or [_("the form expired; try again")])
    return _page(person, 400, skill_form=skill_form)
