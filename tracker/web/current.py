"""The request being answered, looked up once by code that reads several of its attributes."""

from __future__ import annotations

from flask import Request, request


def current_request() -> Request:
    """Return this request itself, for code that reads several of its attributes.

    Each attribute read through `flask.request` goes through its proxy
    (a context lookup, and a failed attribute lookup first): on the API's
    hot path the request is looked up once.
    """
    current: Request = request._get_current_object()  # type: ignore[attr-defined]
    return current
