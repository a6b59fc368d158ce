"""The personal-data file for download: a person's own, and anyone's for an admin.

`/profile/data.json` gives the signed-in person theirs (endpoint privacy.own_data);
`/admin/people/<id>/data.json` gives an admin anyone's, for a request made outside the
tracker (the admin blueprint holds it: endpoint admin.personal_data.person_data). Each
download is noted in the account trail: whose data, and who downloaded it.
"""

from __future__ import annotations

import json

from flask import Blueprint, Response, g
from flask_login import current_user, login_required

from tracker.clock import today, utcnow
from tracker.db import WRITE_INTENT
from tracker.extensions import db_session
from tracker.people.models import Engineer
from tracker.people.signin import address
from tracker.privacy.services.export import filename, personal_data, record_export
from tracker.web.database import record_or_404
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
