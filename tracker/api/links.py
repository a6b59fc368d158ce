"""The OpenAPI document's links: where the ids of an operation's answer lead."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

JSON = "application/json"


def _parameters(spec: Mapping[str, Any]) -> dict[str, str]:
    """Return an operation's parameters: name -> where (path, query)."""
    return {p["name"]: p["in"] for p in spec.get("parameters", ())}


def _resolve(schema: Mapping[str, Any], components: Mapping[str, Any]) -> Mapping[str, Any]:
    while "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def _points_to_integer(
    schema: Mapping[str, Any], pointer: str, components: Mapping[str, Any]
) -> bool:
    """Return whether a JSON pointer into an answer of `schema` can name an integer."""
    for part in pointer.removeprefix("/").split("/"):
        schema = _resolve(schema, components)
        branches = [_resolve(b, components) for b in schema.get("anyOf", ())] or [schema]
        objects = [b for b in branches if b.get("type") in ("object", "array")]
        if not objects:
            return False
        found = objects[0]
        schema = found["items"] if found["type"] == "array" else found["properties"].get(part, {})
    schema = _resolve(schema, components)
    kinds = {b.get("type") for b in schema.get("anyOf", ())} | {schema.get("type")}
    return "integer" in kinds


def link(
    paths: dict[str, dict[str, Any]],
    sources: Iterable[tuple[str, str, str, Mapping[str, str]]],
    components: Mapping[str, Any],
) -> None:
    """Add to each success answer that gives ids a link to every operation that takes one.

    Each source is an operation's endpoint, path, method and the ids it gives (a
    parameter's name and the JSON pointer of its value in the answer). A declared id
    that its answer cannot hold, or that no operation takes, is refused:
    the links stay true to the operations.
    """
    operations = {
        spec["operationId"]: spec for methods in paths.values() for spec in methods.values()
    }
    for endpoint, path, method, gives in sources:
        if not gives:
            continue
        source = paths[path][method.lower()]
        successes = [
            response
            for status, response in source["responses"].items()
            if status.startswith("2") and "content" in response
        ]
        if not successes:
            raise LookupError(f"{endpoint} gives ids but answers no body")
        links: dict[str, Any] = {}
        for name, pointer in sorted(gives.items()):
            for response in successes:
                schema = response["content"][JSON]["schema"]
                if not _points_to_integer(schema, pointer, components):
                    raise LookupError(f"{endpoint}: {pointer} of its answer is not an id")
            targets = [
                (target, where)
                for target, spec in operations.items()
                if spec is not source and (where := _parameters(spec).get(name))
            ]
            if not targets:
                raise LookupError(f"{endpoint} gives {name}, which no operation takes")
            for target, where in targets:
                link = links.setdefault(target, {"operationId": target, "parameters": {}})
                link["parameters"][f"{where}.{name}"] = f"$response.body#{pointer}"
        for response in successes:
            response["links"] = dict(sorted(links.items()))
