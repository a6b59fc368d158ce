"""The badge pages: an engineer's import (its panel on the credentials page) and the mappings.

The mappings page is the admin section's: tracker.admin.views.blueprint registers
`mappings_bp`, so it is /admin/badges, admins only.
"""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext as _
from flask_login import current_user, login_required
from sqlalchemy import select
from werkzeug.datastructures import FileStorage

from tracker.badges.forms import BadgeForm, MappingForm, RemoveForm
from tracker.badges.models import BadgeMapping, ImportedBadge
from tracker.badges.rules import MAX_IMAGE_BYTES
from tracker.badges.services.fetching import make_fetch
from tracker.badges.services.imports import Source, check_badge, record_badge
from tracker.badges.services.mapping import map_badge_class, mappings, unmap_badge_class
from tracker.catalog.models.credentials import Credential
from tracker.clock import today
from tracker.db import release
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.forms import show_errors
from tracker.i18n import day, msg
from tracker.people.models import Engineer
from tracker.people.services.access import visible_engineers
from tracker.progress.models import Certification
from tracker.progress.views.blueprint import person_for_results
from tracker.signals import showing_credentials
from tracker.web.confirm import confirmation_page
from tracker.web.filters import named
from tracker.web.language import localized
from tracker.web.roles import role_required

bp = Blueprint("badges", __name__)
mappings_bp = Blueprint("badge_mappings", __name__, url_prefix="/badges")


def badge_fetch():
    """Return the Fetch of this app's settings (TRACKER_BADGE_ALLOW_HOSTS)."""
    return make_fetch(current_app.config.get("BADGE_ALLOW_HOSTS", frozenset()))


def _badge_form(read: bool = True) -> BadgeForm:
    """Return the import form (reading the request's when `read`), with its people."""
    form = BadgeForm() if read else BadgeForm(formdata=None)
    people = [e for e in visible_engineers(db_session(), current_user) if e.active]
    form.badge_engineer.choices = [(e.id, e.name) for e in people]
    if form.badge_engineer.data is None:
        form.badge_engineer.data = current_user.id
    return form


@showing_credentials.connect
def _badge_panel(person: Engineer, held: list[Certification]) -> dict[str, Any]:
    """Give the credentials page its import form and the badges behind its certifications."""
    ids = [c.id for c in held]
    badges = (
        db_session()
        .scalars(select(ImportedBadge).where(ImportedBadge.certification_id.in_(ids)))
        .all()
        if ids
        else []
    )
    return {
        "badge_form": _badge_form(read=False),
        "badges": {b.certification_id: b for b in badges},
    }


def _given(form: BadgeForm) -> tuple[Source, str | bytes] | None:
    """Return the one badge the form gives, or None after marking what is wrong."""
    given: list[tuple[Source, str | bytes]] = []
    if (form.badge_url.data or "").strip():
        given.append(("url", form.badge_url.data.strip()))
    upload: FileStorage | None = form.badge_image.data
    if upload is not None and upload.filename:
        data = upload.stream.read(MAX_IMAGE_BYTES + 1)
        if len(data) > MAX_IMAGE_BYTES:
            form.badge_image.errors = [
                localized(msg("the image is larger than %(most)s bytes", most=MAX_IMAGE_BYTES))
            ]
            return None
        given.append(("image", data))
    if (form.badge_json.data or "").strip():
        given.append(("json", form.badge_json.data))
    if len(given) != 1:
        form.form_errors.append(_("Give one badge: its URL, a baked image, or its JSON."))
        return None
    return given[0]


@bp.route("/credentials/badges", methods=["GET", "POST"])
@login_required
def import_page():
    """Import a badge: verified with its issuer, recorded as a verified certification."""
    session = db_session()
    form = _badge_form()
    if form.validate_on_submit():
        person = person_for_results(form.badge_engineer.data)
        given = _given(form)
        if given is not None:
            try:
                email = person.email
                release(session)  # nothing held while the issuer answers
                checked = check_badge(given[0], given[1], email, today(), badge_fetch())
                person = person_for_results(form.badge_engineer.data)
                recorded = record_badge(session, person, checked, today(), current_user)
            except ValidationError as exc:
                show_errors(form, exc)
            else:
                cert = recorded.certification
                if recorded.existing:
                    shown = _(
                        "%(credential)s earned on %(date)s was already recorded:"
                        " the badge verifies it; nothing was added.",
                        credential=named(cert.credential),
                        date=localized(day(cert.earned_on)),
                    )
                else:
                    shown = _(
                        "%(credential)s verified and recorded.", credential=named(cert.credential)
                    )
                flash(shown, "success")
                return redirect(url_for("progress.credentials"))
    status = 400 if form.is_submitted() else 200
    return render_template("badges/import.html", form=form), status


# --- the admin's mappings ---------------------------------------------------------


def _mapping_form(read: bool = True) -> MappingForm:
    form = MappingForm() if read else MappingForm(formdata=None)
    credentials = db_session().scalars(
        select(Credential)
        .where(Credential.kind.in_(("external", "exam")), Credential.origin != "engineer")
        .order_by(Credential.code)
    )
    form.credential.choices = [(c.code, f"{c.code} · {named(c)}") for c in credentials]
    return form


def _mappings_page(form: MappingForm, status: int = 200):
    listed = mappings(db_session())
    return render_template(
        "admin/badge_mappings.html",
        form=form,
        mappings=listed,
    ), status


@mappings_bp.get("")
@role_required("admin")
def mappings_page():
    """List the badge classes mapped to catalog credentials; map another."""
    return _mappings_page(_mapping_form(read=False))


@mappings_bp.post("")
@role_required("admin")
def add_mapping():
    """Map a badge class to a catalog credential."""
    form = _mapping_form()
    if form.validate_on_submit():
        try:
            mapping = map_badge_class(db_session(), form.badge_class.data, form.credential.data)
        except ValidationError as exc:
            show_errors(form, exc, {"code": "credential"})
        else:
            flash(
                _(
                    "Badges of %(badge_class)s now record %(credential)s.",
                    badge_class=mapping.badge_class_id,
                    credential=named(mapping.credential),
                ),
                "success",
            )
            return redirect(url_for("admin.badge_mappings.mappings_page"))
    return _mappings_page(form, 400)


@mappings_bp.route("/<int:mapping_id>/remove", methods=["GET", "POST"])
@role_required("admin")
def remove_mapping(mapping_id: int):
    """Ask, then remove a mapping; certifications already imported stay as they are."""
    mapping = db_session().get(BadgeMapping, mapping_id)
    if mapping is None:
        abort(404)
    if request.method == "GET":
        return confirmation_page(
            question=_(
                "Remove the mapping of %(badge_class)s to %(code)s?",
                badge_class=mapping.badge_class_id,
                code=mapping.credential.code,
            ),
            happens=_(
                "Badges of this class imported from now on are recorded as credentials "
                "outside the catalog."
            ),
            kept=_("Certifications already imported stay as they are."),
            submit=_("Remove the mapping"),
            back=url_for("admin.badge_mappings.mappings_page"),
            form=RemoveForm(formdata=None, prefix=f"remove-{mapping_id}"),
        )
    form = RemoveForm(prefix=f"remove-{mapping_id}")
    if not form.validate_on_submit():
        flash(_("The form expired: reload the page and try again."), "error")
        return redirect(url_for("admin.badge_mappings.mappings_page"))
    unmap_badge_class(db_session(), mapping_id)
    flash(_("Mapping removed."), "success")
    return redirect(url_for("admin.badge_mappings.mappings_page"))
