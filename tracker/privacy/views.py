"""The personal-data file for download: a person's own, and anyone's for an admin.

`/profile/data.json` gives the signed-in person theirs (endpoint privacy.own_data);
`/admin/people/<id>/data.json` gives an admin anyone's, for a request made outside the
tracker (the admin blueprint holds it: endpoint admin.personal_data.person_data). Each
download is noted in the account trail: whose data, and who downloaded it.
`/admin/people/<id>/erase` erases a deactivated person's personal data (GDPR art. 17),
once the admin types their address.
"""

from __future__ import annotations

import json

from flask import Blueprint, Response, flash, g, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_login import current_user, login_required

from tracker.clock import today, utcnow
from tracker.db import WRITE_INTENT
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.people.models import Engineer
from tracker.people.signin import address
from tracker.privacy.forms import EraseForm
from tracker.privacy.rules import CONFIRM_RULE
from tracker.privacy.services.erasure import erase_person as erase
from tracker.privacy.services.export import filename, personal_data, record_export
from tracker.web.database import record_or_404
from tracker.web.language import localized_errors
from tracker.web.roles import role_required
from tracker.web.security import PRIVATE_CACHING

bp = Blueprint("privacy", __name__)
# Registered by the admin blueprint: /admin/people/<id>/data.json.
admin_bp = Blueprint("personal_data", __name__, url_prefix="/people")


def _writer() -> None:
    # A download writes its account-trail event: a writer's transaction from BEGIN.
    g.write_intent = WRITE_INTENT.set(True)


bp.before_request(_writer)
admin_bp.before_request(_writer)


def _download(person: Engineer) -> Response:
    """Answer `person`'s data as a JSON file to save, noting who downloaded it."""
    session = db_session()
    document = personal_data(session, person, utcnow())
    record_export(session, person, current_user._get_current_object(), via="web", address=address())
    response = Response(
        json.dumps(document, ensure_ascii=False, indent=2) + "\n", mimetype="application/json"
    )
    response.headers["Content-Disposition"] = f'attachment; filename="{filename(today())}"'
    response.headers["Cache-Control"] = PRIVATE_CACHING
    return response


@bp.get("/profile/data.json")
@login_required
def own_data():
    """Download everything the tracker holds about the signed-in person."""
    return _download(current_user._get_current_object())


@admin_bp.get("/<int:person_id>/data.json")
@role_required("admin")
def person_data(person_id: int):
    """Download everything the tracker holds about a person (admins)."""
    return _download(record_or_404(Engineer, person_id))


@admin_bp.route("/<int:person_id>/erase", methods=["GET", "POST"])
@role_required("admin")
def erase_person(person_id: int):
    """Ask for the person's address, then erase a deactivated person's personal data."""
    person = record_or_404(Engineer, person_id)
    back = redirect(url_for("admin.edit_person", person_id=person.id))
    if request.method == "GET" and (person.erased_at is not None or person.active):
        return back  # nothing to confirm: the person's page says why
    form = EraseForm()
    if form.validate_on_submit():
        if (form.email.data or "").strip().lower() != person.email.lower():
            form.email.errors = [_(CONFIRM_RULE)]
        else:
            admin = current_user._get_current_object()
            try:
                erased = erase(db_session(), person, admin, utcnow(), via="web")
            except ValidationError as exc:
                form.form_errors.extend(localized_errors(exc.errors).values())
            else:
                if erased:
                    flash(_("Personal data of person #%(id)s erased.", id=person.id), "success")
                return back
    status = 400 if request.method == "POST" else 200
    return render_template("privacy/erase.html", person=person, form=form), status
