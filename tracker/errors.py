"""Errors the services raise; views and the API turn them into 4xx answers."""

from __future__ import annotations


class ValidationError(Exception):
    """Input broke a rule; `errors` maps each field to a message naming the rule."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
        self.errors = errors


class NotFound(Exception):
    """The record asked for does not exist."""


class Forbidden(Exception):
    """The actor may not read or change this record."""
