"""/webhooks: the endpoints that receive events (admins only); their secrets on creation."""

from __future__ import annotations

from flask import Response, current_app, url_for
from sqlalchemy import select

from tracker.api.access import get_record, writes
from tracker.api.auth import caller
from tracker.api.blueprint import bp
from tracker.api.errors import ApiError
from tracker.api.inputs import NoQuery
from tracker.api.openapi import Operation
from tracker.api.pages import Key, page
from tracker.clock import utcnow
from tracker.db import release
from tracker.extensions import db_session
from tracker.i18n import N_, msg
from tracker.schemas import PageQuery
from tracker.webhooks.models import WebhookEndpoint
from tracker.webhooks.schemas import WebhookBody, WebhookOut, WebhookSecretOut, WebhooksOut
from tracker.webhooks.services.endpoints import add_endpoint, remove_endpoint
from tracker.webhooks.services.endpoints import rotate_secret as rotate

LIST_WEBHOOKS = Operation(
    answers={200: WebhooksOut},
    query_model=PageQuery,
    refusals=(403,),
    gives={"endpoint_id": "/items/0/id"},
)
WEBHOOKS_ORDER = (Key(WebhookEndpoint.id, lambda e: e.id, int),)
ADD_WEBHOOK = Operation(
    answers={201: WebhookSecretOut},
    body_model=WebhookBody,
    refusals=(403,),
    headers={"Location": "the endpoint list's URL"},
    gives={"endpoint_id": "/id"},
)
WEBHOOK = Operation(
    answers={200: WebhookOut}, query_model=NoQuery, refusals=(403, 404), versioned=True
)
DELETE_WEBHOOK = Operation(answers={204: None}, refusals=(403, 404), versioned=True)
# Rotating changes the endpoint (its previous secret's end): at the version GET /webhooks/ID read.
ROTATE_SECRET = Operation(answers={200: WebhookSecretOut}, refusals=(403, 404), versioned=True)


def _admins_only() -> None:
    if caller().access_role != "admin":
        raise ApiError(403, {"webhooks": N_("only an admin manages webhooks")})


def _endpoint(endpoint_id: int) -> WebhookEndpoint:
    _admins_only()
    endpoint = get_record(WebhookEndpoint, endpoint_id, for_change=writes())
    if endpoint is None:
        raise ApiError(404, {"webhook": msg("no webhook endpoint with id %(id)s", id=endpoint_id)})
    return endpoint


@bp.get("/webhooks")
@LIST_WEBHOOKS
def list_webhooks() -> tuple[Response, int]:
    """The registered endpoints, oldest first (without secrets), a page."""
    _admins_only()
    params = LIST_WEBHOOKS.query()
    return LIST_WEBHOOKS.answer(
        page(WebhooksOut, select(WebhookEndpoint), WEBHOOKS_ORDER, params, WebhookOut.of)
    )


@bp.post("/webhooks")
@ADD_WEBHOOK
def add_webhook() -> tuple[Response, int]:
    """Register an endpoint: url, events, format (generic, slack or teams); answers its secret."""
    _admins_only()
    body = ADD_WEBHOOK.body()
    session, actor = db_session(), caller().id
    release(session)  # nothing held while the URL's host is looked up
    endpoint = add_endpoint(
        session,
        body.url,
        body.events,
        body.format,
        actor,
        allow_hosts=current_app.config.get("WEBHOOK_ALLOW_HOSTS", frozenset()),
    )
    return ADD_WEBHOOK.answer(
        WebhookSecretOut.with_secret(endpoint), 201, url_for("api.list_webhooks")
    )


@bp.get("/webhooks/<int:endpoint_id>", endpoint="webhook")
@WEBHOOK
def get_webhook(endpoint_id: int) -> tuple[Response, int]:
    """One registered endpoint (without its secret)."""
    endpoint = _endpoint(endpoint_id)
    WEBHOOK.query()
    return WEBHOOK.answer(WebhookOut.of(endpoint))


@bp.delete("/webhooks/<int:endpoint_id>")
@DELETE_WEBHOOK
def delete_webhook(endpoint_id: int) -> tuple[Response, int]:
    """Remove an endpoint and its deliveries; nothing more is sent to it."""
    endpoint = _endpoint(endpoint_id)
    DELETE_WEBHOOK.unchanged_since_read(WebhookOut.of(endpoint))
    remove_endpoint(db_session(), endpoint, caller().id)
    return DELETE_WEBHOOK.no_content()


@bp.post("/webhooks/<int:endpoint_id>/rotate-secret")
@ROTATE_SECRET
def rotate_webhook_secret(endpoint_id: int) -> tuple[Response, int]:
    """Give an endpoint a new secret; the previous one signs too for 24 hours."""
    endpoint = _endpoint(endpoint_id)
    ROTATE_SECRET.unchanged_since_read(WebhookOut.of(endpoint))
    rotate(db_session(), endpoint, utcnow(), caller().id)
    return ROTATE_SECRET.answer(
        WebhookSecretOut.with_secret(endpoint), record=WebhookOut.of(endpoint)
    )
