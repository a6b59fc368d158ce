"""Career pages: an engineer's ladder, evidence, skills and rotation; promotions;
team skill coverage; apprenticeships; the bonus ledger and bonus amounts.

Thin views: forms check the shape of the input, tracker.careers.services the
rules; a refusal answers 400 with the message next to its field and stores nothing.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import current_user, login_required
from flask_wtf import FlaskForm
from sqlalchemy.orm import Session

from tracker.careers.forms import (
    ApprenticeshipForm,
    BonusForm,
    ConfirmForm,
    EvidenceForm,
    LevelForm,
    QuarterForm,
    SkillForm,
)
from tracker.careers.rules import EVIDENCE_LABELS, HELD_AT, PROFICIENCY_LABELS
from tracker.careers.services.apprenticeships import (
    apprenticeships_of,
    can_pair,
    create_apprenticeship,
    visible_apprenticeships,
)
from tracker.careers.services.bonuses import (
    BonusRow,
    Quarter,
    bonus_credential,
    bonus_credentials,
    ledger,
    set_bonus,
    since,
)
from tracker.careers.services.bonuses import bonuses as bonus_list
from tracker.careers.services.evidence import can_record_evidence, evidence_of, record_evidence
from tracker.careers.services.ladder import (
    Career,
    can_manage,
    career,
    change_level,
    load_levels,
    managed_people,
)
from tracker.careers.services.ladder import promotions as promotion_careers
from tracker.careers.services.rotation import rotation
from tracker.careers.services.skills import assess as assess_skill
from tracker.careers.services.skills import (
    assessors,
    can_assess,
    current_skills,
    find_speciality,
    skill_history,
    specialities,
    team_coverage,
)
from tracker.careers.services.skills import confirm as confirm_skill
from tracker.catalog.rules import DECIMAL_PLACES
from tracker.catalog.services.reads import paths_with_courses
from tracker.clock import today
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.forms import NO_CHOICE, choices, show_errors
from tracker.i18n import day
from tracker.people.models import Engineer, Team
from tracker.people.rules import MANAGER_ROLES
from tracker.people.services.access import can_view, visible_engineers
from tracker.people.services.persons import level_history
from tracker.readiness.services.team import can_view_team
from tracker.signals import showing_dashboard
from tracker.web.downloads import csv_download
from tracker.web.filters import money_filter, named
from tracker.web.language import localized, localized_errors
from tracker.web.roles import role_required

bp = Blueprint("careers", __name__, url_prefix="/careers")

# An apprenticeship's state (a code the templates compare) named in the page's language.
APPRENTICESHIP_STATE_LABELS = {
    "planned": _l("planned"),
    "running": _l("running"),
    "finished": _l("finished"),
}


@bp.app_template_filter("apprenticeship_state")
def apprenticeship_state(state: str) -> object:
    """Name an apprenticeship's state in the page's language."""
    return APPRENTICESHIP_STATE_LABELS.get(state, state)


@showing_dashboard.connect
def _career_panel(person: Engineer, on: dt.date) -> dict[str, Career]:
    """Give the dashboard its career panel: the level, what the next one asks."""
    return {"career": career(db_session(), person, on)}


def _actor() -> Engineer:
    return current_user._get_current_object()


def _engineer_or_404(engineer_id: int) -> Engineer:
    engineer = db_session().get(Engineer, engineer_id)
    if engineer is None:
        abort(404)
    if not can_view(current_user, engineer):
        abort(403)
    return engineer


# --- an engineer's career page ------------------------------------------------


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
    actor = _actor()
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
    return _page(_engineer_or_404(engineer_id))


@bp.post("/engineers/<int:engineer_id>/level")
@login_required
def set_level(engineer_id: int):
    """Set a report's level (their manager or an admin); the history keeps who, when, from, to."""
    session = db_session()
    person = _engineer_or_404(engineer_id)
    if not can_manage(_actor(), person):
        abort(403)
    form = _level_form(session, LevelForm(prefix="level"))
    if form.validate_on_submit():
        before = person.level
        try:
            change = change_level(session, person, form.level.data, _actor(), today(), via="web")
        except ValidationError as exc:
            show_errors(form, exc)
        else:
            if change is None:
                flash(
                    _("%(name)s is already level %(level)s.", name=person.name, level=before),
                    "info",
                )
            else:
                flash(
                    _(
                        "%(name)s: level %(before)s → %(after)s.",
                        name=person.name,
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
    person = _engineer_or_404(engineer_id)
    if not can_record_evidence(_actor(), person):
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
    person = _engineer_or_404(engineer_id)
    if not can_assess(_actor(), person):
        abort(403)
    form = _skill_form(session, SkillForm(prefix="skill"))
    if form.validate_on_submit():
        speciality = find_speciality(session, form.speciality.data)
        # The form accepts only the listed specialities, each of which exists.
        assert speciality is not None
        try:
            row = assess_skill(session, person, speciality, form.proficiency.data, _actor())
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
    person = _engineer_or_404(engineer_id)
    if not can_manage(_actor(), person):
        abort(403)
    found = find_speciality(session, speciality)
    if found is None:
        abort(404)
    form = ConfirmForm(prefix=f"confirm-{found.code}")
    if form.validate_on_submit():
        try:
            row = confirm_skill(session, person, found, _actor())
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


# --- managers: promotions, coverage, apprenticeships -----------------------------


@bp.get("/promotions")
@role_required(*MANAGER_ROLES)
def promotions():
    """The manager's people: who meets the next level's rule, and what the others lack."""
    session = db_session()
    on = today()
    rows = promotion_careers(session, _actor(), on)
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
    if not can_view_team(_actor(), team):
        abort(403)
    return render_template(
        "careers/coverage.html",
        team=team,
        coverage=team_coverage(db_session(), team),
        labels=PROFICIENCY_LABELS,
        held_at=HELD_AT,
    )


def _apprenticeship_choices(session: Session, form: ApprenticeshipForm) -> None:
    actor = _actor()
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
        if junior is None or senior is None or not can_pair(_actor(), junior, senior):
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
        rows=visible_apprenticeships(session, _actor(), on),
        on=on,
    ), status


# --- bonuses ------------------------------------------------------------------------


def _quarter() -> tuple[QuarterForm, Quarter | None]:
    """Read ?quarter=YYYY-Qn (default: today's quarter); None when malformed."""
    form = QuarterForm(request.args)
    if request.args.get("quarter", "").strip():
        if not form.validate():
            return form, None
        try:
            return form, Quarter.parse(form.quarter.data)
        except ValidationError as exc:
            # Written as the form asks, yet of a year the ledger does not read.
            form.quarter.errors = [localized(exc.errors["quarter"])]
            return form, None
    quarter = Quarter.of(today())
    form.quarter.data = str(quarter)
    return form, quarter


def _ledger_rows(quarter: Quarter) -> list[BonusRow]:
    session = db_session()
    actor = _actor()
    ids = None
    if actor.access_role != "admin":
        ids = [e.id for e in visible_engineers(session, actor)]
    return ledger(session, quarter, ids)


@bp.get("/bonuses")
@login_required
def bonuses():
    """The bonuses earned in a quarter: everyone's for an admin, a manager's people, one's own."""
    form, quarter = _quarter()
    if quarter is None:
        return render_template("careers/bonuses.html", form=form, quarter=None, rows=[]), 400
    rows = _ledger_rows(quarter)
    return render_template(
        "careers/bonuses.html",
        form=form,
        quarter=quarter,
        rows=rows,
        total=sum((r.amount for r in rows), Decimal(0)),
    )


@bp.get("/bonuses.csv")
@login_required
def bonuses_csv():
    """Download a quarter's bonus ledger for payroll."""
    form, quarter = _quarter()
    if quarter is None:
        abort(400, str(form.quarter.errors[0]))
    header = (
        _("quarter"),
        _("engineer"),
        _("email"),
        _("certification"),
        _("name"),
        _("passed_on"),
        _("renewal"),
        _("amount"),
    )
    rows = [
        (
            str(quarter),
            row.engineer.name,
            row.engineer.email,
            row.credential.code,
            # Named as the page names it; the code beside it is the data.
            named(row.credential),
            row.passed_on.isoformat(),
            "yes" if row.renewal else "no",
            f"{row.amount:.{DECIMAL_PLACES}f}",
        )
        for row in _ledger_rows(quarter)
    ]
    return csv_download([header, *rows], f"bonuses-{quarter}.csv")


@bp.route("/bonuses/amounts", methods=["GET", "POST"])
@role_required("admin")
def bonus_amounts():
    """Set the amount the organisation pays per certification, and whether renewals earn it."""
    session = db_session()
    on = today()
    form = BonusForm()
    form.credential.choices = choices(
        (c.code, f"{c.code} · {named(c)}") for c in bonus_credentials(session)
    )
    if not form.is_submitted():
        form.effective_on.data = on
    status = 200
    if form.validate_on_submit():
        try:
            credential = bonus_credential(session, form.credential.data)
            bonus = set_bonus(
                session,
                credential,
                form.amount.data,
                form.renewals_earn.data,
                effective_on=form.effective_on.data,
                today=on,
                verified_only=form.verified_only.data,
            )
        except ValidationError as exc:
            show_errors(form, exc)
        else:
            message = (
                _(
                    "%(code)s: bonus %(amount)s (renewals earn it too), "
                    "for certifications passed %(since)s."
                )
                if bonus.renewals_earn
                else _(
                    "%(code)s: bonus %(amount)s (renewals do not earn it), "
                    "for certifications passed %(since)s."
                )
            )
            flash(
                message
                % {
                    "code": credential.code,
                    "amount": money_filter(bonus.amount),
                    "since": localized(since(bonus)),
                },
                "success",
            )
            return redirect(url_for("careers.bonus_amounts"))
    if form.is_submitted():
        status = 400
    # The history comes by credential, latest first: the first of each is its
    # current amount, and each earlier one ran until the day before the next.
    current, earlier, later = [], [], None
    for bonus in bonus_list(session, history=True):
        if later is not None and later.credential_id == bonus.credential_id:
            earlier.append((bonus, day(later.effective_on - dt.timedelta(days=1))))
        else:
            current.append(bonus)
        later = bonus
    return render_template(
        "careers/bonus_amounts.html",
        form=form,
        bonuses=current,
        earlier=earlier,
        since=since,
    ), status
