"""The API's description: the OpenAPI document and a reference page drawn from it.

Both are public (they describe the API, not anyone's records) and sit outside
the token-checking blueprint; the document is built once per app, from the
operations the views declare (tracker/api/openapi.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, render_template
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l

from tracker.api.openapi import REFUSAL_NAMES, document

bp = Blueprint("api_docs", __name__)

CACHE_KEY = "tracker.openapi"


def openapi_document(app: Flask) -> dict[str, Any]:
    """Return the app's OpenAPI document, built on first use."""
    found = app.extensions.get(CACHE_KEY)
    if found is None:
        found = app.extensions[CACHE_KEY] = document(app)
    return found


@bp.get("/api/v1/openapi.json")
def openapi() -> Response:
    """The OpenAPI 3.1 document of /api/v1."""
    return jsonify(openapi_document(current_app))


@bp.get("/api/docs")
def reference() -> str:
    """The API reference: every operation, its parameters, body, answers and refusals."""
    doc = openapi_document(current_app)
    return render_template("api/docs.html", doc=doc, **Reference.of(doc).__dict__)


# --- the page's view of the document -------------------------------------------------

# A type as the page writes it: text, and the anchor of a schema it names (or "").
# The words between the schemas' names are in the page's language; JSON's type
# names (string, integer) are the API's own and stay as they are.
Part = tuple[str, str]
RULES = {
    "minLength": _l("at least %(n)s characters"),
    "maxLength": _l("at most %(n)s characters"),
    "minimum": _l("at least %(n)s"),
    "maximum": _l("at most %(n)s"),
    "exclusiveMinimum": _l("more than %(n)s"),
    "exclusiveMaximum": _l("less than %(n)s"),
    "minProperties": _l("at least %(n)s entries"),
    "pattern": _l("matches %(n)s"),
}


def anchor(name: str) -> str:
    return f"schema-{name}"


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def type_parts(schema: dict[str, Any]) -> list[Part]:
    """Return a schema's type as words and links: `list of HourLogOut`, `string or null`."""
    if "$ref" in schema:
        name = _ref_name(schema["$ref"])
        return [(name, anchor(name))]
    if "anyOf" in schema:
        parts: list[Part] = []
        for i, branch in enumerate(schema["anyOf"]):
            if i:
                parts.append((f" {_('or')} ", ""))
            parts += type_parts(branch)
        return parts
    if "enum" in schema:
        return [(_("one of %(values)s", values=", ".join(str(v) for v in schema["enum"])), "")]
    kind = schema.get("type", "any")
    if kind == "array":
        return [(_("list of") + " ", ""), *type_parts(schema.get("items", {}))]
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return [(_("object of names to") + " ", ""), *type_parts(schema["additionalProperties"])]
    if "format" in schema:
        return [(f"{kind} ({schema['format']})", "")]
    return [(str(kind), "")]


def rules_of(schema: dict[str, Any]) -> str:
    """Return a schema's constraints in words, its branches' included."""
    found = [str(text) % {"n": schema[key]} for key, text in RULES.items() if key in schema]
    for branch in schema.get("anyOf", ()):
        found += [str(text) % {"n": branch[key]} for key, text in RULES.items() if key in branch]
    if "default" in schema and schema["default"] is not None:
        found.append(_("default %(value)s", value=repr(schema["default"])))
    return "; ".join(found)


@dataclass(frozen=True)
class Field:
    name: str
    type: list[Part]
    required: bool
    rules: str
    description: str


@dataclass(frozen=True)
class SchemaView:
    name: str
    anchor: str
    description: str
    fields: list[Field]
    type: list[Part]  # for a schema that is not an object of fields


@dataclass(frozen=True)
class Answer:
    status: str
    description: str
    type: list[Part]


@dataclass(frozen=True)
class OperationView:
    id: str
    method: str
    path: str
    summary: str
    description: str
    parameters: list[Field]
    body: list[Part]
    body_required: bool
    answers: list[Answer]


@dataclass(frozen=True)
class Reference:
    """What the page shows: operations by resource, the schemas, the refusals."""

    groups: list[tuple[str, list[OperationView]]]
    schemas: list[SchemaView]
    refusals: list[Answer]

    @classmethod
    def of(cls, doc: dict[str, Any]) -> Reference:
        responses = doc["components"]["responses"]
        groups: dict[str, list[OperationView]] = {t["name"]: [] for t in doc["tags"]}
        for path, methods in doc["paths"].items():
            for method, spec in methods.items():
                groups[spec["tags"][0]].append(_operation(path, method, spec, responses))
        refusals = [
            Answer(
                str(status),
                responses[name]["description"],
                type_parts(responses[name]["content"]["application/json"]["schema"]),
            )
            for status, name in REFUSAL_NAMES.items()
        ]
        schemas = [_schema(name, s) for name, s in doc["components"]["schemas"].items()]
        return cls(list(groups.items()), schemas, refusals)


def _field(name: str, schema: dict[str, Any], required: bool) -> Field:
    return Field(
        name, type_parts(schema), required, rules_of(schema), schema.get("description", "")
    )


def _schema(name: str, schema: dict[str, Any]) -> SchemaView:
    required = set(schema.get("required", ()))
    fields = [
        _field(field, prop, field in required)
        for field, prop in schema.get("properties", {}).items()
    ]
    return SchemaView(
        name,
        anchor(name),
        schema.get("description", ""),
        fields,
        [] if fields else type_parts(schema),
    )


def _described(parameter: dict[str, Any]) -> dict[str, str]:
    return {"description": parameter["description"]} if "description" in parameter else {}


def _operation(
    path: str, method: str, spec: dict[str, Any], responses: dict[str, Any]
) -> OperationView:
    parameters = [
        _field(f"{p['name']} ({p['in']})", {**p["schema"], **_described(p)}, p["required"])
        for p in spec.get("parameters", ())
    ]
    body = spec.get("requestBody")
    answers = []
    for status, answer in spec["responses"].items():
        if "$ref" in answer:
            answer = responses[_ref_name(answer["$ref"])]
        content = answer.get("content", {}).get("application/json")
        answers.append(
            Answer(status, answer["description"], type_parts(content["schema"]) if content else [])
        )
    return OperationView(
        spec["operationId"],
        method.upper(),
        path,
        spec.get("summary", ""),
        spec.get("description", ""),
        parameters,
        type_parts(body["content"]["application/json"]["schema"]) if body else [],
        bool(body and body.get("required")),
        answers,
    )
