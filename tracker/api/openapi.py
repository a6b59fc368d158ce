"""Each API operation's models, declared once: the views read and answer through them.

A view's `Operation` names its query model, its body model, its answers by
status and the refusals its checks can give. The view reads its input through
the operation (`query()`, `json_body()`, `validated()`, `body()`), so the
models that validate a request are the ones the OpenAPI document describes;
`document()` builds that document from the app's URL map and the declared
operations, with pydantic's JSON Schema (2020-12, which OpenAPI 3.1 uses).
Declaring costs a request nothing: an operation is a module constant, and its
methods are the input helpers with the model filled in.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic

from flask import Flask, Response, request
from pydantic import BaseModel
from pydantic.json_schema import JsonSchemaMode, models_json_schema
from typing_extensions import TypeVar

from tracker.api import blueprint
from tracker.api.errors import ErrorsOut
from tracker.api.inputs import (
    answer,
    form_body,
    json_body,
    no_content,
    query,
    validated,
)
from tracker.api.links import JSON, link
from tracker.api.versions import (
    ETAG,
    IF_MATCH,
    IF_NONE_MATCH,
    NOT_MODIFIED,
    PRECONDITION_FAILED,
    unchanged_since_read,
    versioned,
)
from tracker.db import MAX_ID
from tracker.i18n import N_
from tracker.schemas import Answer, Body, Query

OPENAPI_VERSION = "3.1.0"
REF = "#/components/schemas/{model}"
MULTIPART = "multipart/form-data"
# The document's own endpoint is public and not one of the operations it lists.
ENDPOINT = "api_docs.openapi"
API_PREFIX = "api."

# An operation that reads no query (or no body) leaves its type the base class.
Q = TypeVar("Q", bound=Query, default=Query)
B = TypeVar("B", bound=Body, default=Body)
V = TypeVar("V", bound=Callable[..., Any])

# What each refusal means; the answer is always the error envelope (ErrorsOut).
# Marked, so the reference page shows them in its reader's language (the document stays English).
REFUSALS = {
    400: N_("Bad input: each field named with the rule it breaks; nothing is stored."),
    401: N_("No live token: missing, unknown, revoked, or its account deactivated."),
    403: N_("The caller may not do this (another person's records, or a manager's view)."),
    404: N_("No record with the id or code the URL (or ?engineer=) names."),
    412: PRECONDITION_FAILED,
    413: N_("The body is larger than the server accepts."),
    414: N_("The URL is longer than the server reads."),
    415: N_("The body is not sent as JSON (Content-Type: application/json)."),
    431: N_("The headers are more or larger than the server reads."),
    503: N_("The database is unavailable or busy: nothing was changed; retry later."),
}
REFUSAL_NAMES = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    412: "PreconditionFailed",
    413: "ContentTooLarge",
    414: "UriTooLong",
    415: "UnsupportedMediaType",
    431: "HeadersTooLarge",
    503: "Unavailable",
}
# Every operation: the blueprint authenticates each request, any may meet the database
# down, and the server refuses a URL or headers beyond its limits (tracker.server).
ALWAYS = (401, 414, 431, 503)
# The methods that change a record: with `versioned`, they take If-Match (a versioned
# POST changes the record its URL names, as rotating a webhook's secret does).
WRITES = ("POST", "PUT", "PATCH", "DELETE")


@dataclass(frozen=True, eq=False)
class Operation(Generic[Q, B]):
    """One API operation's query, body, answers and refusals; decorate its view with it."""

    answers: Mapping[int, type[Answer] | None]
    query_model: type[Q] | None = None
    body_model: type[B] | None = None
    refusals: tuple[int, ...] = ()
    # False for a body that may be left out, or sent as `{}`; one that is sent is JSON.
    body_required: bool = True
    # Headers of the success answers, by name: what each says.
    headers: Mapping[str, str] = field(default_factory=dict)
    # The ids its success answer gives other operations: a parameter's name (a path's
    # `engineer_id`, a query's `engineer`) and the JSON pointer of its value in the answer.
    # The document links each to every operation that takes that parameter (OpenAPI links).
    gives: Mapping[str, str] = field(default_factory=dict)
    # A multipart/form-data body it takes instead of JSON (an uploaded file), if any.
    upload_model: type[Body] | None = None
    # Whether its record has versions (tracker.api.versions): answers carry an ETag, a
    # GET takes If-None-Match (304), a write If-Match (412).
    versioned: bool = False

    def __call__(self, view: V) -> V:
        """Declare `view` as this operation; the view itself is unchanged."""
        _DECLARED[view] = self
        return view

    def query(self) -> Q:
        """Return the query string read with the declared query model."""
        assert self.query_model is not None, "declare query_model to read the query string"
        return query(self.query_model)

    def json_body(self) -> dict[str, Any]:
        """Return the JSON object of the request, with the declared body model's fields."""
        assert self.body_model is not None, "declare body_model to read a body"
        return json_body(self.body_model, self.body_required)

    def validated(self, data: dict[str, Any]) -> B:
        """Return `data` read with the declared body model; a 400 naming every bad field."""
        assert self.body_model is not None, "declare body_model to read a body"
        return validated(self.body_model, data)

    def uploading(self) -> bool:
        """Return whether the request sends the declared upload (multipart/form-data)."""
        return self.upload_model is not None and request.mimetype == MULTIPART

    def upload(self) -> Body:
        """Return the request's multipart/form-data body read with the declared upload model."""
        assert self.upload_model is not None, "declare upload_model to read an upload"
        return form_body(self.upload_model)

    def body(self) -> B:
        """Return the request's JSON body read with the declared body model."""
        return self.validated(self.json_body())

    def answer(
        self,
        result: Answer,
        status: int = 200,
        location: str | None = None,
        record: Answer | None = None,
    ) -> tuple[Response, int]:
        """Return `result` as the answer (one of the declared answers), with its status.

        `record`: what the record's read says, when the answer says something else; its
        version is the answer's ETag (a versioned operation's only).
        """
        if self.versioned:
            return versioned(result, status, location, record)
        assert record is None, "declare versioned=True to answer a record's version"
        return answer(result, status, location)

    def unchanged_since_read(self, current: Answer) -> None:
        """Refuse the write with 412 when If-Match names another version than `current`'s."""
        assert self.versioned, "declare versioned=True to take If-Match"
        unchanged_since_read(current)

    def no_content(self) -> tuple[Response, int]:
        """Return the declared empty answer, 204."""
        assert 204 in self.answers, "declare the answer 204 to give it"
        return no_content()

    def statuses(self, has_path_ids: bool, method: str = "GET") -> list[int]:
        """Return every refusal status the operation can answer, sorted."""
        found = set(ALWAYS) | set(self.refusals)
        if self.versioned and method in WRITES:
            found.add(412)
        if self.query_model is not None or self.body_model is not None:
            found.add(400)
        if self.body_model is not None:
            found.update((413, 415))
        if has_path_ids:
            found.add(404)  # an id beyond what the database holds matches no route
        return sorted(found)


_DECLARED: dict[Callable[..., Any], Operation[Any, Any]] = {}


def declared(view: Callable[..., Any]) -> Operation[Any, Any] | None:
    """Return the operation `view` was declared as, if any."""
    return _DECLARED.get(view)


# --- the document ---------------------------------------------------------------------

_ARGUMENT = re.compile(r"<(?:([a-zA-Z_][a-zA-Z0-9_]*)(?:\([^)]*\))?:)?([a-zA-Z_][a-zA-Z0-9_]*)>")


@dataclass(frozen=True)
class Route:
    """One method of one URL rule of the API and the operation its view declared."""

    rule: str
    method: str
    endpoint: str
    view: Callable[..., Any]
    operation: Operation[Any, Any]

    @property
    def path(self) -> str:
        """The rule as an OpenAPI path: `<int:engineer_id>` becomes `{engineer_id}`."""
        return _ARGUMENT.sub(lambda m: "{" + m.group(2) + "}", self.rule)

    @property
    def arguments(self) -> list[tuple[str, str]]:
        """The rule's URL parameters: (name, converter)."""
        return [(m.group(2), m.group(1) or "default") for m in _ARGUMENT.finditer(self.rule)]


def api_routes(app: Flask) -> list[Route]:
    """Return every method of every /api/v1 rule, with its operation; refuse an undeclared one."""
    routes = []
    for rule in app.url_map.iter_rules():
        if not rule.endpoint.startswith(API_PREFIX):
            continue
        view = app.view_functions[rule.endpoint]
        operation = declared(view)
        if operation is None:
            raise LookupError(f"{rule.endpoint} ({rule.rule}) declares no Operation")
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            routes.append(Route(rule.rule, method, rule.endpoint, view, operation))
    return sorted(routes, key=lambda r: (r.rule, r.method))


def operation_id(route: Route, routes: Iterable[Route]) -> str:
    """The endpoint's name; with the method first when its rule has several methods."""
    name = route.endpoint.removeprefix(API_PREFIX)
    shared = sum(1 for r in routes if r.endpoint == route.endpoint) > 1
    return f"{route.method.lower()}_{name}" if shared else name


def _path_parameter(name: str, converter: str) -> dict[str, Any]:
    if converter == "int":
        schema: dict[str, Any] = {"type": "integer", "minimum": 1, "maximum": MAX_ID}
    else:
        schema = {"type": "string", "minLength": 1, "pattern": "^[^/]+$"}
    return {"name": name, "in": "path", "required": True, "schema": schema}


def _without_null(schema: dict[str, Any]) -> dict[str, Any]:
    """Return a parameter's schema without its null branch: an absent parameter is the null."""
    branches = [b for b in schema.get("anyOf", ()) if b != {"type": "null"}]
    rest = {k: v for k, v in schema.items() if k not in ("anyOf", "title", "default")}
    if "anyOf" in schema:
        if len(branches) == 1:
            rest.update(branches[0])
        else:
            rest["anyOf"] = branches
    if schema.get("default") is not None:
        rest["default"] = schema["default"]
    return rest


def _query_parameters(model: type[Query], components: dict[str, Any]) -> list[dict[str, Any]]:
    schema = model.model_json_schema(ref_template=REF)
    components.update(schema.pop("$defs", {}))
    required = set(schema.get("required", ()))
    parameters = []
    for name, prop in schema.get("properties", {}).items():
        parameter: dict[str, Any] = {
            "name": name,
            "in": "query",
            "required": name in required,
            "schema": _without_null(prop),
        }
        # A query reads an empty value as absent (tracker.schemas.Query).
        if name not in required:
            parameter["allowEmptyValue"] = True
        # Said once, by the parameter.
        if "description" in parameter["schema"]:
            parameter["description"] = parameter["schema"].pop("description")
        parameters.append(parameter)
    return parameters


def _docstring(obj: object) -> tuple[str, str]:
    """Return an object's docstring as its first line and the rest."""
    text = inspect.getdoc(obj) or ""
    first, _, rest = text.partition("\n")
    return first.strip(), rest.strip()


def _models(routes: list[Route]) -> list[tuple[type[BaseModel], JsonSchemaMode]]:
    """Return each model the operations read or answer, once, with its JSON Schema mode."""
    found: dict[tuple[type[BaseModel], JsonSchemaMode], None] = {(ErrorsOut, "serialization"): None}
    for route in routes:
        operation = route.operation
        if operation.body_model is not None:
            found[(operation.body_model, "validation")] = None
        if operation.upload_model is not None:
            found[(operation.upload_model, "validation")] = None
        for model in operation.answers.values():
            if model is not None:
                found[(model, "serialization")] = None
    return list(found)


def document(app: Flask, title: str = "Tracker API", version: str = "1") -> dict[str, Any]:
    """Return the OpenAPI 3.1 document of every /api/v1 operation the app registers."""
    routes = api_routes(app)
    refs, top = models_json_schema(_models(routes), ref_template=REF)
    components: dict[str, Any] = dict(top.get("$defs", {}))
    paths: dict[str, dict[str, Any]] = {}
    for route in routes:
        paths.setdefault(route.path, {})[route.method.lower()] = _operation(
            route, routes, refs, components
        )
    link(paths, [(r.endpoint, r.path, r.method, r.operation.gives) for r in routes], components)
    error_ref = refs[(ErrorsOut, "serialization")]
    responses = {
        REFUSAL_NAMES[status]: {
            "description": description,
            "content": {JSON: {"schema": error_ref}},
            **(
                {"headers": {"WWW-Authenticate": _header("the Bearer challenge")}}
                if status == 401
                else {}
            ),
        }
        for status, description in REFUSALS.items()
    }
    # The blueprint's module says what every answer and refusal is.
    summary, description = _docstring(blueprint)
    return {
        "openapi": OPENAPI_VERSION,
        "jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
        "info": {
            "title": title,
            "version": version,
            "summary": summary,
            "description": description,
        },
        "paths": paths,
        "components": {
            "schemas": dict(sorted(components.items())),
            "responses": responses,
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": N_(
                        "An API token (`tracker token create EMAIL`),"
                        " sent as Authorization: Bearer TOKEN."
                    ),
                }
            },
        },
        "security": [{"bearer": []}],
        "tags": sorted(
            ({"name": tag} for tag in {_tag(r) for r in routes}), key=lambda t: t["name"]
        ),
    }


def _header(description: str) -> dict[str, Any]:
    return {"description": description, "schema": {"type": "string"}}


def _version_header(method: str) -> dict[str, Any]:
    """Return the header a versioned operation takes: If-Match to write, If-None-Match to read."""
    name, text = ("If-Match", IF_MATCH) if method in WRITES else ("If-None-Match", IF_NONE_MATCH)
    return {"name": name, "in": "header", "required": False, **_header(text)}


def _tag(route: Route) -> str:
    """The resource: the module that holds the view."""
    return route.view.__module__.rsplit(".", 1)[-1]


def _operation(
    route: Route,
    routes: list[Route],
    refs: Mapping[tuple[Any, JsonSchemaMode], dict[str, Any]],
    components: dict[str, Any],
) -> dict[str, Any]:
    operation = route.operation
    summary, description = _docstring(route.view)
    parameters = [_path_parameter(name, kind) for name, kind in route.arguments]
    if operation.query_model is not None:
        parameters += _query_parameters(operation.query_model, components)
    if operation.versioned:
        parameters.append(_version_header(route.method))
    spec: dict[str, Any] = {
        "operationId": operation_id(route, routes),
        "tags": [_tag(route)],
        "summary": summary,
    }
    if description:
        spec["description"] = description
    if parameters:
        spec["parameters"] = parameters
    if operation.body_model is not None:
        body = refs[(operation.body_model, "validation")]
        if not operation.body_required:
            body = {"anyOf": [body, {"type": "object", "maxProperties": 0}]}
        spec["requestBody"] = {
            "required": operation.body_required,
            "content": {JSON: {"schema": body}},
        }
        if operation.upload_model is not None:
            spec["requestBody"]["content"][MULTIPART] = {
                "schema": refs[(operation.upload_model, "validation")]
            }
    responses: dict[str, Any] = {}
    for status, model in sorted(operation.answers.items()):
        if model is None:
            responses[str(status)] = {"description": N_("Done; no content.")}
            continue
        response: dict[str, Any] = {
            "description": _docstring(model)[0] or model.__name__,
            "content": {JSON: {"schema": refs[(model, "serialization")]}},
        }
        headers = {**operation.headers, **({"ETag": ETAG} if operation.versioned else {})}
        if headers and 200 <= status < 300:
            response["headers"] = {name: _header(text) for name, text in sorted(headers.items())}
        responses[str(status)] = response
    if operation.versioned and route.method == "GET":
        responses["304"] = {"description": NOT_MODIFIED, "headers": {"ETag": _header(ETAG)}}
    has_path_ids = any(kind == "int" for _, kind in route.arguments)
    for status in operation.statuses(has_path_ids, route.method):
        responses[str(status)] = {"$ref": f"#/components/responses/{REFUSAL_NAMES[status]}"}
    spec["responses"] = responses
    return spec
