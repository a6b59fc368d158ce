"""The reminder outbox: notices by status, and a failed one sent again."""

from __future__ import annotations

from typing import Any

from flask import flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from tracker.admin.forms import (
    NOTIFICATION_KIND_NAMES,
    NOTIFICATION_STATUS_NAMES,
    ConfirmForm,
    OutboxFilterForm,
)
from tracker.admin.views.blueprint import bp
from tracker.clock import utcnow
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.i18n import join
from tracker.reminders.models import Notification
from tracker.reminders.services.delivery import retry_failed
from tracker.reminders.services.outbox import outbox as outbox_page
from tracker.reminders.services.outbox import outbox_counts
from tracker.web.converters import requested_page
from tracker.web.database import record_or_404
from tracker.web.language import localized
from tracker.web.roles import role_required

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
    notification = record_or_404(Notification, notification_id)
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
