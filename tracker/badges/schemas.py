"""The badges' JSON shapes: a credential body that may carry a badge, and a badge upload."""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Annotated, Any

from pydantic import ConfigDict, Field, JsonValue, field_validator

from tracker.badges.rules import MAX_DOCUMENT_BYTES, MAX_URL_LENGTH
from tracker.badges.rules import BadgeSource as Source
from tracker.catalog.schemas import Code
from tracker.i18n import N_
from tracker.progress.rules import (
    EVIDENCE_REQUIRED,
    MAX_CREDENTIAL_NAME_LENGTH,
    MAX_EVIDENCE_LENGTH,
    MAX_ISSUER_LENGTH,
)
from tracker.progress.schemas import CredentialBody
from tracker.schemas import VALID_THROUGH, Body, Date, Id, refusal, text

BADGE_FIELDS = ("badge_url", "badge_json")
# What a body must hold, as JSON Schema says it: a badge, or a credential (from the
# catalog, or by name and issuer) with its issue date and evidence.
ONE_OF_THE_FORMS: list[JsonValue] = [
    {"required": ["badge_url"]},
    {"required": ["badge_json"]},
    {"required": ["code", "issued_on", "evidence"]},
    {"required": ["name", "issuer", "issued_on", "evidence"]},
]
NUMBER_OUT_OF_RANGE = N_("a number in the badge is out of range")


def _as_parsed(document: dict[str, Any]) -> dict[str, Any]:
    """Return a badge sent as an object with its numbers as a verifier parses them: floats.

    The API reads a body's fractions as Decimals, which a badge's JSON text
    cannot be written from; the same badge sent as text is read with floats.
    """
    stack: list[Any] = [document]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in items:
            if isinstance(value, Decimal):
                number = float(value)
                if not math.isfinite(number):
                    raise refusal(NUMBER_OUT_OF_RANGE)
                node[key] = number
            elif isinstance(value, dict | list):
                stack.append(value)
    return document


class CredentialOrBadgeBody(Body):
    """A credential earned elsewhere (a catalog `code`, or `name` and `issuer`), or a badge.

    A badge comes as `badge_url` (where its issuer hosts it) or `badge_json` (the
    assertion or credential, as an object or as text; a signed 2.0 assertion as
    its compact JWS); the tracker verifies it
    and takes the credential, dates and evidence from it.
    """

    model_config = ConfigDict(json_schema_extra={"anyOf": ONE_OF_THE_FORMS})

    code: Code | None = None
    name: Annotated[str, text(MAX_CREDENTIAL_NAME_LENGTH, required=True)] | None = None
    issuer: Annotated[str, text(MAX_ISSUER_LENGTH, required=True)] | None = None
    # Required without a badge (cross_errors); a badge gives its own.
    issued_on: Date | None = Field(None, description="required without a badge")
    expires_on: Date | None = Field(None, description=VALID_THROUGH)
    evidence: Annotated[str, text(MAX_EVIDENCE_LENGTH, required=True)] | None = Field(
        None,
        description="required without a badge (which is its own evidence):"
        " a certificate number, a link or a note",
    )
    engineer: Id | None = None
    badge_url: Annotated[str, text(MAX_URL_LENGTH, required=True)] | None = None
    badge_json: Annotated[str, text(MAX_DOCUMENT_BYTES, required=True)] | dict[str, Any] | None = (
        None
    )

    @field_validator("badge_json")
    @classmethod
    def _badge_as_parsed(cls, value: str | dict[str, Any] | None) -> str | dict[str, Any] | None:
        return _as_parsed(value) if isinstance(value, dict) else value

    @classmethod
    def cross_errors(cls, data: dict[str, Any]) -> dict[str, str]:
        given = [name for name in BADGE_FIELDS if name in data]
        if len(given) > 1:
            return {"badge_json": N_("give one badge: badge_url or badge_json, not both")}
        if given:
            others = sorted(set(data) - {*BADGE_FIELDS, "engineer"})
            return dict.fromkeys(others, N_("not taken with a badge, which gives it"))
        errors = dict(CredentialBody.cross_errors(data))
        if "issued_on" not in data:
            errors["issued_on"] = N_("this field is required")
        evidence = data.get("evidence", "")
        if isinstance(evidence, str) and not evidence.strip():
            errors["evidence"] = EVIDENCE_REQUIRED
        return errors

    def badge(self) -> tuple[Source, str] | None:
        """Return the badge the body gives: its source and its URL or document."""
        if self.badge_url is not None:
            return "url", self.badge_url
        if isinstance(self.badge_json, dict):
            return "json", json.dumps(self.badge_json)
        if self.badge_json is not None:
            return "json", self.badge_json
        return None


class BadgeUpload(Body):
    """A baked badge image (PNG or SVG) sent as multipart/form-data, for `engineer`."""

    badge_image: Annotated[bytes, Field(description="The baked PNG or SVG image.")]
    engineer: Id | None = None
