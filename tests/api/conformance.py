"""Check an API answer against the OpenAPI document: its status declared, its body its schema."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

import jsonschema
from flask import Flask, Response, request, request_finished

from tracker.api.docs import openapi_document
from tracker.api.openapi import API_PREFIX, api_routes, operation_id

JSON = "application/json"


@cache
def _operations(app: Flask) -> dict[str, dict[str, Any]]:
    """Return each operation of the app's document by endpoint."""
    doc = openapi_document(app)
    by_id = {
        spec["operationId"]: spec for methods in doc["paths"].values() for spec in methods.values()
    }
    routes = api_routes(app)
    return {f"{r.endpoint} {r.method}": by_id[operation_id(r, routes)] for r in routes}


def _resolve(doc: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in answer:
        return doc["components"]["responses"][answer["$ref"].rsplit("/", 1)[-1]]
    return answer


def problems(app: Flask, endpoint: str, method: str, response: Response) -> list[str]:
    """Return how `response` to `method` on `endpoint` departs from the document."""
    doc = openapi_document(app)
    spec = _operations(app)[f"{endpoint} {method}"]
    status = str(response.status_code)
    if status not in spec["responses"]:
        declared = ", ".join(spec["responses"])
        return [f"{method} {endpoint} answered {status}, not among {declared}"]
    content = _resolve(doc, spec["responses"][status]).get("content")
    if content is None:
        return [] if not response.get_data() else [f"{status} should have no body"]
    if response.mimetype != JSON:
        return [f"{method} {endpoint} {status}: {response.mimetype}, not {JSON}"]
    # The response's schema, in a root that holds the components its $refs name.
    schema = {**content[JSON]["schema"], "components": doc["components"]}
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    return [
        f"{method} {endpoint} {status} at {list(e.absolute_path)}: {e.message}"
        for e in validator.iter_errors(response.get_json())
    ]


@contextmanager
def conforming(app: Flask) -> Iterator[list[str]]:
    """Check every API answer given inside the block; yield the problems found."""
    found: list[str] = []

    def check(sender: Flask, response: Response, **extra: Any) -> None:
        endpoint = request.endpoint or ""
        # A URL no route matches (404, 405) names no operation.
        if not endpoint.startswith(API_PREFIX) or request.method in ("HEAD", "OPTIONS"):
            return
        found.extend(problems(app, endpoint, request.method, response))

    request_finished.connect(check, app)
    try:
        yield found
    finally:
        request_finished.disconnect(check, app)
