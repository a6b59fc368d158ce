"""The SCIM resources the tracker serves, as scim2-models models, and its discovery documents.

The User and Group schemas hold only what the tracker stores, so that every
attribute they publish is kept as written (RFC 7643 §2.2): a person's
userName is their e-mail address; name.formatted their name, which
displayName and the one work e-mail repeat (read-only); active whether they
may sign in. A Group is a team: displayName its name, members its people.
Attributes of the standard schemas the tracker does not keep (phone numbers,
addresses, the enterprise extension...) are accepted and ignored.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field
from scim2_models import (
    URN,
    AuthenticationScheme,
    Bulk,
    CaseExact,
    ChangePassword,
    ComplexAttribute,
    ETag,
    Filter,
    Mutability,
    Pagination,
    Patch,
    Reference,
    Required,
    Resource,
    ResourceType,
    Schema,
    ScimPolicy,
    ServiceProviderConfig,
    Sort,
    Uniqueness,
)

from tracker.scim.rules import DEFAULT_COUNT, MAX_COUNT

USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User"
GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group"
# What a work e-mail is called in `emails.type`.
WORK = "work"

# Identity providers send the whole standard User (Okta, Entra): what the
# tracker does not keep is dropped rather than refused.
POLICY = ScimPolicy(
    unknown=ScimPolicy.Unknown.ignore,
    # Entra names what a remove takes away in its value, not in its path.
    remove_value_as_filter=ScimPolicy.RemoveValue.apply,
)


class Name(ComplexAttribute):
    """The components of the person's name."""

    formatted: Annotated[str | None, Required.true] = None
    """The person's full name, as the tracker shows it."""


class Email(ComplexAttribute):
    """The person's work e-mail address: their userName."""

    value: Annotated[str | None, Mutability.read_only] = None
    """The address; the same as userName."""

    type: Annotated[str | None, Mutability.read_only] = None
    """Always "work"."""

    primary: Annotated[bool | None, Mutability.read_only] = None
    """Always true: a person has one address."""


class User(Resource[Any]):
    """A person of the organisation: an engineer, manager or admin of the tracker."""

    __schema__ = URN(USER_SCHEMA)

    user_name: Annotated[str | None, Uniqueness.server, Required.true] = None
    """The person's e-mail address, unique regardless of case; they sign in with it."""

    name: Annotated[Name | None, Required.true] = None
    """The person's name."""

    display_name: Annotated[str | None, Mutability.read_only] = None
    """The person's name (name.formatted)."""

    emails: Annotated[list[Email] | None, Mutability.read_only] = None
    """The person's work e-mail address (userName)."""

    active: Annotated[bool | None, Required.true] = None
    """Whether the person may sign in and counts in readiness; true when left out on creation."""


class Member(ComplexAttribute):
    """A person in the team."""

    value: Annotated[str | None, Mutability.immutable, CaseExact.true] = None
    """The id of the User."""

    ref: Annotated[Reference[User] | None, Mutability.immutable] = Field(
        None, serialization_alias="$ref", validation_alias="$ref"
    )
    """The URI of the User."""

    type: Annotated[str | None, Mutability.immutable] = Field(None, examples=["User"])
    """Always "User": a team holds people, not other teams."""


class Group(Resource[Any]):
    """A team of the tracker; adding a person to it moves them from their team."""

    __schema__ = URN(GROUP_SCHEMA)

    display_name: Annotated[str | None, Required.true] = None
    """The team's name, unique regardless of case."""

    members: list[Member] | None = None
    """The team's people."""


RESOURCES: dict[str, type[Resource[Any]]] = {"Users": User, "Groups": Group}


def resource_types() -> list[ResourceType]:
    """Return the resource types, as /ResourceTypes publishes them."""
    return [ResourceType.from_resource(User), ResourceType.from_resource(Group)]


def schemas() -> list[Schema]:
    """Return the schemas, as /Schemas publishes them: the resources' and discovery's own."""
    return [
        User.to_schema(),
        Group.to_schema(),
        ServiceProviderConfig.to_schema(),
        ResourceType.to_schema(),
        Schema.to_schema(),
    ]


def service_provider_config() -> ServiceProviderConfig:
    """Return what the service supports, as /ServiceProviderConfig publishes it."""
    return ServiceProviderConfig(
        patch=Patch(supported=True),
        bulk=Bulk(supported=False, max_operations=0, max_payload_size=0),
        filter=Filter(supported=True, max_results=MAX_COUNT),
        change_password=ChangePassword(supported=False),
        sort=Sort(supported=False),
        etag=ETag(supported=True),
        pagination=Pagination(
            cursor=False, index=True, default_page_size=DEFAULT_COUNT, max_page_size=MAX_COUNT
        ),
        authentication_schemes=[
            AuthenticationScheme(
                type=AuthenticationScheme.Type.oauthbearertoken,
                name="Bearer token",
                description="A token from `tracker scim-token create`, sent as"
                " `Authorization: Bearer TOKEN`.",
                primary=True,
            )
        ],
    )
