"""The careers blueprint and what its pages share: the apprenticeship states' names, the caller."""

from __future__ import annotations

from flask import Blueprint
from flask_babel import lazy_gettext as _l
from flask_login import current_user

from tracker.people.models import Engineer

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


def signed_in_person() -> Engineer:
    """Return the signed-in person asking."""
    return current_user._get_current_object()
