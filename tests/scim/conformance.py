"""scim2-tester's client for a served tracker: discovery as served, userName values as e-mails.

The tracker's userName is a person's e-mail address, and it refuses any
other (400 invalidValue); scim2-tester fills userName with random UUIDs. The
models the client reads the server with are the ones the server publishes,
except that userName carries e-mail examples, which is what scim2-tester
fills an attribute with when its field has them: a fresh address each time.
"""

from __future__ import annotations

import itertools
import uuid
from typing import Annotated, Any

import httpx2
from pydantic import Field
from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_models import Required, Resource, ScimProvider, Uniqueness

_serial = itertools.count(1)


class FreshEmails(list[str]):
    """Examples that are a new e-mail address each time one is picked."""

    def __init__(self) -> None:
        super().__init__(["conformance@example.com"])

    def __getitem__(self, index: Any) -> Any:
        return f"conformance-{next(_serial)}-{uuid.uuid4().hex[:8]}@example.com"


def http_client(url: str, token: str) -> httpx2.Client:
    """Return an HTTP client of the tracker's SCIM at `url` (close it: a context manager)."""
    return httpx2.Client(base_url=f"{url}/scim/v2", headers={"Authorization": f"Bearer {token}"})


def client(http: httpx2.Client) -> SyncSCIMClient:
    """Return a SCIM client over `http`, described by what the tracker serves."""
    discovering = SyncSCIMClient(http)
    discovering.discover()
    served = discovering.provider
    models: list[Any] = []
    for model in served.models:
        if model.__name__ == "User":
            model = _with_email_user_names(model)
        models.append(model)
    provider = ScimProvider(models, served.resource_types, served.config, served.policy)
    return SyncSCIMClient(http, provider=provider)


def _with_email_user_names(model: type[Resource[Any]]) -> type[Resource[Any]]:
    class User(model):  # type: ignore[valid-type,misc]
        user_name: Annotated[str | None, Uniqueness.server, Required.true] = Field(
            None, examples=FreshEmails()
        )

    User.__doc__ = model.__doc__
    return User
