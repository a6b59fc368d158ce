"""The webhooks' JSON shapes: each event's data, the API's endpoint bodies and answers."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Protocol

from pydantic import Field

from tracker.people.schemas import PersonRef
from tracker.schemas import VALID_THROUGH, Amount, Answer, Body, Page, Timestamp, text, worded
from tracker.webhooks.models import WebhookEndpoint
from tracker.webhooks.rules import EVENTS, EVENTS_COUNT_RULE, FORMATS, MAX_EVENTS, MAX_URL_LENGTH

# --- each event's data ----------------------------------------------------------------


class HeldCredential(Protocol):
    """A certification as events name it: its id, dates, and credential's code and name."""

    @property
    def id(self) -> int: ...
    @property
    def earned_on(self) -> dt.date: ...
    @property
    def expires_on(self) -> dt.date | None: ...
    @property
    def credential(self) -> Coded: ...


class Coded(Protocol):
    @property
    def code(self) -> str: ...
    @property
    def name(self) -> str: ...


class CertificationRef(Answer):
    """A certification: its credential's code and name, when earned, the last day it is valid."""

    id: int
    code: str
    name: str
    earned_on: dt.date
    expires_on: dt.date | None = Field(description=VALID_THROUGH)

    @classmethod
    def of(cls, cert: HeldCredential) -> CertificationRef:
        return cls(
            id=cert.id,
            code=cert.credential.code,
            name=cert.credential.name,
            earned_on=cert.earned_on,
            expires_on=cert.expires_on,
        )


class CertificationData(Answer):
    """certification.earned and certification.renewed: `renews` is the one renewed."""

    certification: CertificationRef
    engineer: PersonRef
    renews: int | None = None


class ExpiringData(Answer):
    """certification.expiring: sent at each reminder window (90, 60, 30, 7 days by default)."""

    certification: CertificationRef
    engineer: PersonRef
    window_days: int
    days_left: int


class LapsedData(Answer):
    """certification.lapsed: the day after its expiry, when it was not renewed."""

    certification: CertificationRef
    engineer: PersonRef


class RevokedData(Answer):
    """certification.revoked: its issuer revoked the badge that proved it (the daily re-check)."""

    certification: CertificationRef
    engineer: PersonRef
    revoked_on: dt.date
    reason: str


class TeamRef(Answer):
    """A team, as events name it."""

    id: int
    name: str


class ReadinessDroppedData(Answer):
    """readiness.dropped: a lapse that left the team's readiness lower."""

    team: TeamRef
    certification: CertificationRef
    engineer: PersonRef
    impact: str


class CourseRef(Answer):
    """A course, as events name it."""

    id: int
    code: str
    title: str


class HoursLoggedData(Answer):
    """hours.logged: an hour log entry as it was written."""

    id: int
    engineer: PersonRef
    course: CourseRef
    date: dt.date
    hours: Amount
    note: str


EventData = CertificationData | ExpiringData | LapsedData | ReadinessDroppedData | HoursLoggedData


# --- the API's endpoints ----------------------------------------------------------------


class WebhookBody(Body):
    """An endpoint to register: its URL, the events it takes and the format of its bodies."""

    url: Annotated[str, text(MAX_URL_LENGTH, required=True)] = Field(
        description="an http:// or https:// URL"
    )
    events: Annotated[
        list[Annotated[str, text(40, required=True)]],
        Field(max_length=MAX_EVENTS, description="one or more of: " + ", ".join(EVENTS)),
        worded(EVENTS_COUNT_RULE, "too_long"),
    ]
    format: Annotated[str, text(16, required=True)] = Field(
        "generic", description="one of: " + ", ".join(FORMATS)
    )


class WebhookOut(Answer):
    """A registered endpoint (its secret is shown only when it is created or rotated)."""

    id: int
    url: str
    events: list[str]
    format: str
    active: bool
    created_at: Timestamp
    previous_secret_until: Timestamp | None = Field(
        None, description="until when the secret before the latest rotation signs too"
    )

    @classmethod
    def of(cls, endpoint: WebhookEndpoint) -> WebhookOut:
        return cls(
            id=endpoint.id,
            url=endpoint.url,
            events=endpoint.event_names,
            format=endpoint.format,
            active=endpoint.active,
            created_at=endpoint.created_at,
            previous_secret_until=endpoint.previous_until if endpoint.previous_secret else None,
        )


class WebhookSecretOut(WebhookOut):
    """An endpoint just created or rotated, with the secret that signs its deliveries."""

    secret: str = Field(description="whsec_...: verify each delivery's webhook-signature with it")

    @classmethod
    def with_secret(cls, endpoint: WebhookEndpoint) -> WebhookSecretOut:
        return cls(**WebhookOut.of(endpoint).model_dump(), secret=endpoint.secret)


class WebhooksOut(Page[WebhookOut]):
    """A page of the registered endpoints, oldest first."""
