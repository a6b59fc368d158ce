"""The /scim/v2 blueprint (RFC 7644): discovery, Users and Groups, behind a provisioning token.

Authenticated only by `Authorization: Bearer TOKEN` (a token of `tracker
scim-token create`; no cookies, so no CSRF). Every answer is
application/scim+json; every refusal a SCIM Error with its status as a
string and, where RFC 7644 §3.12 has one, its scimType. Each resource carries
meta (created, lastModified, location, resourceType, version) and its version
as a weak ETag: If-Match makes a write conditional (412), If-None-Match a read
(304).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response, g, request
from pydantic import ValidationError as PydanticValidationError
from scim2_models import (
    Context,
    Error,
    InvalidSyntaxException,
    InvalidValueException,
    ListResponse,
    Meta,
    NotFoundException,
    NotImplementedException,
    PreconditionFailedException,
    Resource,
    ResourceType,
    ResponseParameters,
    Schema,
    SCIMException,
    UnauthorizedException,
)
from werkzeug.exceptions import RequestEntityTooLarge

from tracker import jsontext
from tracker.clock import today, utcnow
from tracker.extensions import csrf, db_session
from tracker.i18n import N_
from tracker.scim import schemas
from tracker.scim.rules import MAX_SCIM_TOKEN_LENGTH
from tracker.scim.services import groups, users
from tracker.scim.services.queries import list_groups, list_users, read_search
from tracker.scim.services.tokens import live_scim_token
from tracker.versions import names
from tracker.web.language import localized
from tracker.web.security import UNSTORABLE_TEXT, storable

bp = Blueprint("scim", __name__, url_prefix="/scim/v2")
csrf.exempt(bp)

CONTENT_TYPE = "application/scim+json"
EVERY_METHOD = ["GET", "POST", "PUT", "PATCH", "DELETE"]
ONLY_GET = N_("only GET is allowed here")


class MethodNotAllowed(SCIMException):
    """A method the endpoint does not answer."""

    status = 405
    _default_detail = "method not allowed"


def _answer(
    payload: dict[str, Any] | None, status: int = 200, headers: dict[str, str] | None = None
) -> Response:
    if payload is None:
        # No body (204, 304): nothing to name a type of.
        response = Response(status=status)
        del response.headers["Content-Type"]
    else:
        response = Response(json.dumps(payload), status, content_type=CONTENT_TYPE)
    response.headers.update(headers or {})
    return response


def _error(exc: SCIMException) -> Response:
    error = exc.to_error()
    error.detail = localized(exc.detail)
    headers = {}
    if error.status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="tracker-scim"'
    if error.status == 405:
        headers["Allow"] = "GET"
    return _answer(
        error.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE), error.status or 400, headers
    )


@bp.errorhandler(SCIMException)
def scim_error(exc: SCIMException) -> Response:
    db_session().rollback()
    return _error(exc)


@bp.errorhandler(PydanticValidationError)
def invalid(exc: PydanticValidationError) -> Response:
    db_session().rollback()
    error = Error.from_validation_errors(exc)[0]
    return _answer(error.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE), error.status or 400)


@bp.errorhandler(RequestEntityTooLarge)
def too_large(exc: RequestEntityTooLarge) -> Response:
    error = Error(status=413, detail=localized(N_("the body is too large")))
    return _answer(error.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE), 413)


@bp.after_request
def not_cached(response: Response) -> Response:
    """Keep SCIM answers (people's accounts) out of every cache."""
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.before_request
def authenticate() -> None:
    """Refuse a request without a live provisioning token with 401."""
    scheme, _, secret = request.headers.get("Authorization", "").strip().partition(" ")
    secret = secret.strip()
    if scheme.lower() != "bearer" or not secret:
        raise UnauthorizedException(
            detail=N_("send a SCIM token in the header Authorization: Bearer TOKEN")
        )
    session = db_session()
    token = (
        live_scim_token(session, secret, utcnow()) if len(secret) <= MAX_SCIM_TOKEN_LENGTH else None
    )
    if token is None:
        raise UnauthorizedException(detail=N_("the SCIM token is not valid: unknown or revoked"))
    session.commit()
    g.scim_token_id = token.id


def _base_url() -> str:
    return request.url_root.rstrip("/") + (bp.url_prefix or "")


def _body() -> Any:
    try:
        payload = jsontext.loads(request.get_data())
    except ValueError:
        payload = None
    if payload is None:
        raise InvalidSyntaxException(detail=N_("the body must be JSON"))
    if not storable(payload):
        raise InvalidValueException(detail=UNSTORABLE_TEXT)
    return payload


def _parameters(model: type[Resource[Any]]) -> ResponseParameters[Any]:
    found = {
        key: request.args[key]
        for key in ("attributes", "excludedAttributes")
        if request.args.get(key)
    }
    return ResponseParameters[model].model_validate(found)  # type: ignore[valid-type]


def _resource(
    resource: Resource[Any], status: int = 200, context: Context = Context.RESOURCE_QUERY_RESPONSE
) -> Response:
    """Answer one resource, with its ETag (and its Location when just created)."""
    assert resource.meta is not None and resource.meta.location and resource.meta.version
    headers = {"ETag": resource.meta.version, "Content-Location": resource.meta.location}
    if status == 201:
        headers["Location"] = resource.meta.location
    payload = resource.model_dump(scim_ctx=context, response_parameters=_parameters(type(resource)))
    return _answer(payload, status, headers)


def _conditional_read(resource: Resource[Any]) -> Response:
    assert resource.meta is not None
    if resource.meta.version and names(request.headers.get("If-None-Match"), resource.meta.version):
        return _answer(None, 304, {"ETag": resource.meta.version or ""})
    return _resource(resource)


def _precondition(resource: Resource[Any]) -> None:
    """Refuse a write whose If-Match names another version than the resource's (412)."""
    assert resource.meta is not None and resource.meta.version
    wanted = request.headers.get("If-Match")
    if wanted and not names(wanted, resource.meta.version):
        raise PreconditionFailedException(
            detail=N_("the resource changed since that version was read")
        )


def _only_get() -> None:
    if request.method not in ("GET", "HEAD"):
        raise MethodNotAllowed(detail=ONLY_GET)


def _listed(items: list[Resource[Any]], model: type[Resource[Any]]) -> Response:
    page = ListResponse[model](  # type: ignore[valid-type]
        total_results=len(items), start_index=1, items_per_page=len(items), resources=items
    )
    return _answer(page.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE))


# --- discovery --------------------------------------------------------------


@bp.route("/ServiceProviderConfig", methods=EVERY_METHOD)
def service_provider_config() -> Response:
    _only_get()
    config = schemas.service_provider_config()
    return _answer(config.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE))


def _resource_types() -> list[ResourceType]:
    found = schemas.resource_types()
    for resource_type in found:
        resource_type.meta = _meta("ResourceType", f"/ResourceTypes/{resource_type.id}")
    return found


def _schemas() -> list[Schema]:
    found = schemas.schemas()
    for schema in found:
        schema.meta = _meta("Schema", f"/Schemas/{schema.id}")
    return found


def _meta(kind: str, path: str) -> Meta:
    return Meta(resource_type=kind, location=_base_url() + path)


@bp.route("/ResourceTypes", methods=EVERY_METHOD)
def resource_types() -> Response:
    _only_get()
    return _listed(list(_resource_types()), ResourceType)


@bp.route("/ResourceTypes/<name>", methods=EVERY_METHOD)
def resource_type(name: str) -> Response:
    _only_get()
    for found in _resource_types():
        if found.id == name:
            return _answer(found.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE))
    raise NotFoundException(detail=N_("no such resource type"))


@bp.route("/Schemas", methods=EVERY_METHOD)
def all_schemas() -> Response:
    _only_get()
    return _listed(list(_schemas()), Schema)


@bp.route("/Schemas/<path:uri>", methods=EVERY_METHOD)
def schema(uri: str) -> Response:
    _only_get()
    for found in _schemas():
        if found.id == uri:
            return _answer(found.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE))
    raise NotFoundException(detail=N_("no such schema"))


# --- Users --------------------------------------------------------------------


def _search(model: type[Resource[Any]], lister: Callable[..., ListResponse[Any]]) -> Response:
    if request.method == "POST":
        body = _body()
        if not isinstance(body, dict):
            raise InvalidValueException(detail=N_("the body must be a JSON object"))
        parameters = {k: v for k, v in body.items() if k != "schemas"}
    else:
        parameters = {k: request.args[k] for k in request.args}
    search = read_search(model, parameters)
    page = lister(db_session(), search, _base_url())
    return _answer(page.model_dump(scim_ctx=Context.SEARCH_RESPONSE, response_parameters=search))


@bp.post("/Users/.search")
def search_users() -> Response:
    return _search(schemas.User, list_users)


@bp.route("/Users", methods=["GET", "POST"])
def user_list() -> Response:
    if request.method == "GET":
        return _search(schemas.User, list_users)
    session = db_session()
    data = users.read_user(_body(), active=True)
    engineer, state = users.create_user(session, data, today())
    session.commit()
    resource = users.user_resource(engineer, state, _base_url())
    return _resource(resource, 201, Context.RESOURCE_CREATION_RESPONSE)


@bp.route("/Users/<user_id>", methods=["GET", "PUT", "PATCH", "DELETE"])
def user(user_id: str) -> Response:
    session = db_session()
    engineer, state = users.find_user(session, user_id, for_change=request.method != "GET")
    current = users.user_resource(engineer, state, _base_url())
    if request.method == "GET":
        return _conditional_read(current)
    _precondition(current)
    if request.method == "DELETE":
        users.delete_user(session, engineer, state, utcnow())
        session.commit()
        return _answer(None, 204)
    if request.method == "PUT":
        data = users.read_user(_body(), active=engineer.active)
        data.replace(current)
        state = users.write_user(session, engineer, state, data)
        context = Context.RESOURCE_REPLACEMENT_RESPONSE
    else:
        state = users.patch_user(session, engineer, state, users.read_patch(_body()), _base_url())
        context = Context.RESOURCE_PATCH_RESPONSE
    session.commit()
    return _resource(users.user_resource(engineer, state, _base_url()), 200, context)


# --- Groups -------------------------------------------------------------------


@bp.post("/Groups/.search")
def search_groups() -> Response:
    return _search(schemas.Group, list_groups)


@bp.route("/Groups", methods=["GET", "POST"])
def group_list() -> Response:
    if request.method == "GET":
        return _search(schemas.Group, list_groups)
    session = db_session()
    team, state = groups.create_group(session, groups.read_group(_body()), today(), utcnow())
    session.commit()
    resource = groups.group_resource(session, team, state, _base_url())
    return _resource(resource, 201, Context.RESOURCE_CREATION_RESPONSE)


@bp.route("/Groups/<group_id>", methods=["GET", "PUT", "PATCH", "DELETE"])
def group(group_id: str) -> Response:
    session = db_session()
    team, state = groups.find_group(session, group_id, for_change=request.method != "GET")
    current = groups.group_resource(session, team, state, _base_url())
    if request.method == "GET":
        return _conditional_read(current)
    _precondition(current)
    if request.method == "DELETE":
        groups.delete_group(session, team, state, utcnow(), today())
        session.commit()
        return _answer(None, 204)
    if request.method == "PUT":
        data = groups.read_group(_body())
        data.replace(current)
        state = groups.write_group(session, team, state, data, today(), utcnow())
        context = Context.RESOURCE_REPLACEMENT_RESPONSE
    else:
        patch = groups.read_patch(_body())
        state = groups.patch_group(session, team, state, patch, _base_url(), today(), utcnow())
        context = Context.RESOURCE_PATCH_RESPONSE
    session.commit()
    return _resource(groups.group_resource(session, team, state, _base_url()), 200, context)


# --- the rest -----------------------------------------------------------------


@bp.post("/.search")
def search_everything() -> Response:
    raise NotImplementedException(
        detail=N_("search /Users/.search or /Groups/.search: one resource type at a time")
    )


@bp.route("/", methods=EVERY_METHOD)
@bp.route("/<path:anything>", methods=EVERY_METHOD)
def unknown(anything: str = "") -> Response:
    raise NotFoundException(detail=N_("no such SCIM endpoint"))
