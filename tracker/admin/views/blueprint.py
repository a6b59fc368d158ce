"""The admin blueprint (/admin, endpoints admin.*), the sections it holds, what its pages share."""

from __future__ import annotations

from flask import Blueprint
from flask_login import current_user
from flask_wtf import FlaskForm

from tracker.admin.audit import bp as audit_bp
from tracker.badges.views import mappings_bp as badge_mappings_bp
from tracker.extensions import db_session
from tracker.forms import NO_CHOICE, choices
from tracker.people.models import Engineer
from tracker.people.services.access import manager_candidates
from tracker.privacy.views import admin_bp as personal_data_bp
from tracker.webhooks.views import bp as webhooks_bp

bp = Blueprint("admin", __name__, url_prefix="/admin")
# The webhooks page is the admin section's: /admin/webhooks, endpoints admin.webhooks.*.
bp.register_blueprint(webhooks_bp)
# The account trail: /admin/audit, endpoints admin.audit.*.
bp.register_blueprint(audit_bp)
# Badge classes mapped to catalog credentials: /admin/badges, endpoints admin.badge_mappings.*.
bp.register_blueprint(badge_mappings_bp)
# A person's data for download, for a request made outside the tracker:
# /admin/people/<id>/data.json, endpoint admin.personal_data.person_data.
bp.register_blueprint(personal_data_bp)


def signed_in_person() -> Engineer:
    """Return the signed-in admin."""
    return current_user._get_current_object()


def form_status(form: FlaskForm) -> int:
    """Return a form page's status: 400 once sent (it is shown again with its errors), else 200."""
    return 400 if form.is_submitted() else 200


def manager_choices(form: FlaskForm, person: Engineer | None, current: Engineer | None) -> None:
    """Offer the managers a person (or a team) may report to, keeping the current one."""
    candidates = [
        m for m in manager_candidates(db_session()) if person is None or m.id != person.id
    ]
    if current is not None and current not in candidates:
        candidates.append(current)
    form.manager.choices = choices(
        [NO_CHOICE, *((m.id, f"{m.name} ({m.email})") for m in candidates)]
    )
