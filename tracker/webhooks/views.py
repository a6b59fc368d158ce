"""The webhooks page (under /admin): endpoints to register, remove or rotate; deliveries to retry.

The blueprint is the admin blueprint's own (tracker.admin.views.blueprint registers it),
so its pages are the admin section's: /admin/webhooks, admins only.
"""

from __future__ import annotations

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
from flask_login import current_user

from tracker.clock import utcnow
from tracker.db import release
from tracker.errors import ValidationError
from tracker.extensions import db_session
from tracker.forms import show_errors
from tracker.web.confirm import confirmation_page
from tracker.web.roles import role_required
from tracker.webhooks.forms import EVENT_LABELS, FORMAT_LABELS, ButtonForm, EndpointForm
from tracker.webhooks.models import WebhookDelivery, WebhookEndpoint
from tracker.webhooks.rules import MAX_ATTEMPTS
from tracker.webhooks.services.delivery import delivery_counts, recent_deliveries, retry_failed
from tracker.webhooks.services.endpoints import add_endpoint, endpoints
from tracker.webhooks.services.endpoints import remove_endpoint as remove
from tracker.webhooks.services.endpoints import rotate_secret as rotate

bp = Blueprint("webhooks", __name__, url_prefix="/webhooks")


def _expired() -> str:
    return _("The form expired: reload the page and try again.")


def _page(form=None, status: int = 200, error: str | None = None):
    session = db_session()
    listed = endpoints(session)
    deliveries = recent_deliveries(session)
    return render_template(
        "admin/webhooks.html",
        form=form or EndpointForm(formdata=None),
        endpoints=listed,
        deliveries=deliveries,
        counts=delivery_counts(session),
        event_labels=EVENT_LABELS,
        format_labels=FORMAT_LABELS,
        rotate_forms={e.id: ButtonForm(formdata=None, prefix=f"rotate-{e.id}") for e in listed},
        retry_forms={
            d.id: ButtonForm(formdata=None, prefix=f"retry-{d.id}")
            for d in deliveries
            if d.status == "failed"
        },
        now=utcnow(),
        max_attempts=MAX_ATTEMPTS,
        error=error,
    ), status


def _get_or_404(model: type, ident: int):
    found = db_session().get(model, ident)
    if found is None:
        abort(404)
    return found


def _shown_secret(endpoint: WebhookEndpoint, message: str) -> None:
    # Shown once, on the page the redirect leads to.
    flash(
        _("%(done)s Its signing secret: %(secret)s", done=message, secret=endpoint.secret),
        "success",
    )


@bp.get("")
@role_required("admin")
def page():
    """List the endpoints and the latest deliveries; register an endpoint."""
    return _page()


@bp.post("")
@role_required("admin")
def add():
    """Register an endpoint; its signing secret is shown once."""
    form = EndpointForm()
    if not form.validate_on_submit():
        return _page(form, 400)
    session, actor = db_session(), current_user.id
    release(session)  # nothing held while the URL's host is looked up
    try:
        endpoint = add_endpoint(
            session,
            form.url.data,
            form.chosen_events(),
            form.format.data,
            actor,
            allow_hosts=current_app.config.get("WEBHOOK_ALLOW_HOSTS", frozenset()),
        )
    except ValidationError as exc:
        show_errors(form, exc)
        return _page(form, 400)
    _shown_secret(endpoint, _("Webhook #%(id)s registered.", id=endpoint.id))
    return redirect(url_for(".page"))


@bp.route("/<int:endpoint_id>/remove", methods=["GET", "POST"])
@role_required("admin")
def remove_endpoint(endpoint_id: int):
    """Ask, then remove an endpoint and its deliveries."""
    endpoint = _get_or_404(WebhookEndpoint, endpoint_id)
    if request.method == "GET":
        return confirmation_page(
            question=_("Remove webhook #%(id)s, %(url)s?", id=endpoint.id, url=endpoint.url),
            happens=_("Nothing more is sent to it, and its deliveries go with it."),
            kept=_(
                "The audit trail keeps a record of the endpoint; the events stay in the tracker."
            ),
            submit=_("Remove the webhook"),
            back=url_for(".page"),
            form=ButtonForm(formdata=None, prefix=f"remove-{endpoint_id}"),
        )
    if not ButtonForm(prefix=f"remove-{endpoint_id}").validate_on_submit():
        return _page(status=400, error=_expired())
    remove(db_session(), endpoint, current_user.id)
    flash(_("Webhook #%(id)s removed: nothing more is sent to it.", id=endpoint_id), "success")
    return redirect(url_for(".page"))


@bp.post("/<int:endpoint_id>/rotate-secret")
@role_required("admin")
def rotate_secret(endpoint_id: int):
    """Give an endpoint a new secret; the old one signs too for a day."""
    endpoint = _get_or_404(WebhookEndpoint, endpoint_id)
    if not ButtonForm(prefix=f"rotate-{endpoint_id}").validate_on_submit():
        return _page(status=400, error=_expired())
    rotate(db_session(), endpoint, utcnow(), current_user.id)
    _shown_secret(
        endpoint,
        _(
            "Webhook #%(id)s has a new secret; the old one signs too for 24 hours.",
            id=endpoint_id,
        ),
    )
    return redirect(url_for(".page"))


@bp.post("/deliveries/<int:delivery_id>/retry")
@role_required("admin")
def retry_delivery(delivery_id: int):
    """Put a failed delivery back in the queue; the sender tries it on its next run."""
    delivery = _get_or_404(WebhookDelivery, delivery_id)
    if not ButtonForm(prefix=f"retry-{delivery_id}").validate_on_submit():
        return _page(status=400, error=_expired())
    try:
        retry_failed(db_session(), delivery, utcnow())
    except ValidationError:
        return _page(
            status=400,
            error=_(
                "Delivery #%(id)s is %(status)s: only a failed delivery can be retried.",
                id=delivery_id,
                status=delivery.status,
            ),
        )
    flash(
        _("Delivery #%(id)s queued again: the sender retries it shortly.", id=delivery_id),
        "success",
    )
    return redirect(url_for(".page"))
