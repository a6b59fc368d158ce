"""What every SCIM resource carries (meta: created, lastModified, location, version)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from scim2_models import Context, Meta, Resource

from tracker.i18n import join, msg
from tracker.versions import version

# The attributes a resource derives from others: written, they are ignored
# (RFC 7644 §3.3 ignores read-only attributes of a request), whatever the
# operation, since providers send them on every change (Entra's displayName).
DERIVED: dict[str, frozenset[str]] = {
    "User": frozenset({"displayname", "emails"}),
    "Group": frozenset(),
}

# The fields the people and teams services name, as SCIM names the attributes.
ATTRIBUTES = {
    "email": "userName",
    "name": "name.formatted",
    "active": "active",
    "team": "members",
}


def utc(value: dt.datetime) -> dt.datetime:
    """Return a stored (naive UTC) time as an aware one."""
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value


def stamp(
    resource: Resource[Any],
    kind: str,
    location: str,
    created: dt.datetime,
    modified: dt.datetime,
) -> Resource[Any]:
    """Give a resource its meta; its version is a hash of what it says (a weak ETag)."""
    resource.meta = Meta(
        resource_type=kind,
        created=utc(created),
        last_modified=max(utc(created), utc(modified)),
        location=location,
    )
    said = resource.model_dump(scim_ctx=Context.RESOURCE_QUERY_RESPONSE)
    said.get("meta", {}).pop("lastModified", None)
    resource.meta.version = version(said)
    return resource


def field(payload: Any, name: str) -> Any:
    """Return an attribute of a payload, its name matched regardless of case (RFC 7643 §2.1)."""
    if not isinstance(payload, Mapping):
        return None
    for key, value in payload.items():
        if key.lower() == name.lower():
            return value
    return None


def without_derived(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    """Return a payload without the attributes the resource derives from others."""
    derived = DERIVED[kind]
    return {key: value for key, value in payload.items() if key.lower() not in derived}


def patch_without_derived(kind: str, body: Any) -> Any:
    """Return a PatchOp body without the operations that write derived attributes."""
    derived = DERIVED[kind]
    if not derived or not isinstance(body, dict):
        return body
    operations = field(body, "Operations")
    if not isinstance(operations, list):
        return body
    kept: list[Any] = []
    for operation in operations:
        if not isinstance(operation, dict):
            kept.append(operation)
            continue
        path = field(operation, "path")
        if isinstance(path, str):
            name = path.split(":")[-1] if path.lower().startswith("urn:") else path
            if name.split("[")[0].split(".")[0].strip().lower() in derived:
                continue
        value = field(operation, "value")
        if path is None and isinstance(value, dict):
            operation = {**operation, "value": without_derived(kind, value)}
        kept.append(operation)
    return {**body, "Operations": kept}


def refusal(errors: Mapping[str, str]) -> str:
    """Return a service's refusal as one SCIM detail, each field named as SCIM names it."""
    return join(
        [
            msg("%(attribute)s: %(rule)s", attribute=ATTRIBUTES.get(key, key), rule=message)
            for key, message in errors.items()
        ]
    )
