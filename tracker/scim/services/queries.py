"""Lists of Users and Groups: a filter (RFC 7644 §3.4.2.2), startIndex and count, as a ListResponse.

Equality on the attributes the tracker indexes (userName, emails.value,
externalId, active, id; a Group's displayName and members) narrows the rows
in SQL; every filter is then matched by scim2-models on the resources, so
any filter the schemas allow answers exactly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import ValidationError as PydanticValidationError
from scim2_models import (
    Context,
    Error,
    InvalidFilterException,
    InvalidValueException,
    ListResponse,
    Resource,
    SearchRequest,
)
from scim2_models.path.expressions import (
    AttrPath,
    CompareOperator,
    Comparison,
    FilterNode,
    LogicalExpr,
    LogicalOperator,
)
from sqlalchemy import ColumnElement, Select, false, func, select
from sqlalchemy.orm import Session

from tracker.db import MAX_ID
from tracker.people.models import Engineer, Team
from tracker.scim.models import ScimGroup, ScimUser
from tracker.scim.rules import DEFAULT_COUNT, MAX_COUNT
from tracker.scim.schemas import Group, User
from tracker.scim.services.groups import group_resource, visible_groups
from tracker.scim.services.users import user_resource, visible_users


def read_search(model: type[Resource[Any]], parameters: dict[str, Any]) -> SearchRequest[Any]:
    """Validate a list's query parameters or a /.search body; a bad filter is invalidFilter."""
    try:
        return SearchRequest[model].model_validate(  # type: ignore[valid-type]
            parameters, scim_ctx=Context.SEARCH_REQUEST
        )
    except PydanticValidationError as exc:
        first = Error.from_validation_errors(exc)[0]
        if any(str(part) == "filter" for error in exc.errors() for part in error["loc"]):
            raise InvalidFilterException(detail=first.detail) from None
        raise InvalidValueException(detail=first.detail) from None


def _id_equals(column: Any, value: Any) -> ColumnElement[bool]:
    text = str(value)
    return column == int(text) if text.isdigit() and len(text) < 10 else false()


def _user_condition(node: Comparison) -> ColumnElement[bool] | None:
    attr, sub = _names(node.attr_path)
    value = node.value
    if attr == "username" and sub is None and isinstance(value, str):
        return Engineer.email == value.strip().lower()
    if attr == "emails" and sub in (None, "value") and isinstance(value, str):
        return Engineer.email == value.strip().lower()
    if attr == "externalid" and sub is None and isinstance(value, str):
        return ScimUser.external_id == value
    if attr == "active" and sub is None and isinstance(value, bool):
        return Engineer.active.is_(value)
    if attr == "id" and sub is None:
        return _id_equals(Engineer.id, value)
    return None


def _group_condition(node: Comparison) -> ColumnElement[bool] | None:
    attr, sub = _names(node.attr_path)
    value = node.value
    if attr == "displayname" and sub is None and isinstance(value, str):
        return func.lower(Team.name) == value.strip().lower()
    if attr == "externalid" and sub is None and isinstance(value, str):
        return ScimGroup.external_id == value
    if attr == "members" and sub in (None, "value"):
        return Team.id.in_(
            select(Engineer.team_id).where(_id_equals(Engineer.id, value)).scalar_subquery()
        )
    if attr == "id" and sub is None:
        return _id_equals(Team.id, value)
    return None


def _names(path: AttrPath) -> tuple[str, str | None]:
    return path.attr.lower(), path.sub_attr.lower() if path.sub_attr else None


def _narrowing(
    node: FilterNode, condition: Callable[[Comparison], ColumnElement[bool] | None]
) -> list[ColumnElement[bool]]:
    """Return SQL conditions every row the filter matches meets (none: no narrowing)."""
    if isinstance(node, Comparison) and node.op == CompareOperator.eq:
        found = condition(node)
        return [found] if found is not None else []
    if isinstance(node, LogicalExpr) and node.op == LogicalOperator.and_:
        return [c for term in node.terms for c in _narrowing(term, condition)]
    return []


def _page(
    model: type[Resource[Any]], resources: Sequence[Resource[Any]], total: int, start: int
) -> ListResponse[Any]:
    page: type[ListResponse[Any]] = ListResponse[model]  # type: ignore[valid-type]
    return page(
        total_results=total,
        start_index=start,
        items_per_page=len(resources),
        resources=list(resources) or None,
    )


def _bounds(request: SearchRequest[Any]) -> tuple[int, int]:
    start = request.start_index or 1
    count = DEFAULT_COUNT if request.count is None else min(request.count, MAX_COUNT)
    return start, count


def _offset(start: int) -> int:
    """Return the rows before a page that starts at `start`, as a database counts them.

    A start past every row (however many digits it has) is an empty page, so it is
    held to MAX_ID: an OFFSET beyond a 64-bit integer fails the query instead.
    """
    return min(start, MAX_ID) - 1


def list_users(session: Session, request: SearchRequest[Any], base_url: str) -> ListResponse[Any]:
    """Return a page of the Users the request's filter matches, by id."""
    start, count = _bounds(request)
    query: Select[Any] = visible_users().order_by(Engineer.id)
    if request.filter is None:
        total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
        rows = session.execute(query.offset(_offset(start)).limit(count)).tuples().all()
        return _page(User, [user_resource(e, s, base_url) for e, s in rows], total, start)
    for condition in _narrowing(request.filter.ast, _user_condition):
        query = query.where(condition)
    matched = [
        resource
        for engineer, state in session.execute(query).tuples()
        if request.filter.match(resource := user_resource(engineer, state, base_url))
    ]
    return _page(User, matched[start - 1 : start - 1 + count], len(matched), start)


def list_groups(session: Session, request: SearchRequest[Any], base_url: str) -> ListResponse[Any]:
    """Return a page of the Groups the request's filter matches, by id."""
    start, count = _bounds(request)
    query: Select[Any] = visible_groups().order_by(Team.id)
    if request.filter is None:
        total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
        rows = session.execute(query.offset(_offset(start)).limit(count)).tuples().all()
        resources = [group_resource(session, t, s, base_url) for t, s in rows]
        return _page(Group, resources, total, start)
    for condition in _narrowing(request.filter.ast, _group_condition):
        query = query.where(condition)
    matched = [
        resource
        for team, state in session.execute(query).tuples().all()
        if request.filter.match(resource := group_resource(session, team, state, base_url))
    ]
    return _page(Group, matched[start - 1 : start - 1 + count], len(matched), start)
