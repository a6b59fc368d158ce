"""The personal-data file's JSON shape, as the API answers it; the erasure's body and answer."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field

from tracker.privacy.rules import FORMAT, VERSION
from tracker.schemas import Answer, Body

# The file writes its times and days as text already (services/values.py): they are
# answered as written, never read into dates and written again another way.
Moment = Annotated[str, Field(json_schema_extra={"format": "date-time"})]
Day = Annotated[str, Field(json_schema_extra={"format": "date"})]
Rows = Annotated[
    list[dict[str, Any]],
    Field(description="the person's records of this kind, each an object, by date then id"),
]


class _Exact(Answer):
    # A key the file gains is a key this shape must say: refused until it does.
    model_config = ConfigDict(extra="forbid")


class NamedRef(_Exact):
    """Another person or a team, as the file names them: id and name only."""

    id: int
    name: str | None


class PersonalAccountOut(_Exact):
    """The person's own record, without any secret of it."""

    id: int
    name: str
    email: str
    access_role: str
    level: int
    team: NamedRef | None
    manager: NamedRef | None
    hired_on: Day | None
    experience_months: int
    experience_text: str
    active: bool
    locale: str
    weekly_digest: bool
    two_step_sign_in: bool
    recovery_codes_left: int
    calendar_feed: bool = Field(description="whether a calendar feed is on (never its address)")
    created_at: Moment | None
    updated_at: Moment | None


class PersonalDataOut(_Exact):
    """Everything the tracker holds about a person (GDPR articles 15 and 20), no secret."""

    format: str = Field(json_schema_extra={"const": FORMAT})
    version: int = Field(
        json_schema_extra={"const": VERSION},
        description="moves when a key is renamed or removed; added keys keep it",
    )
    generated_at: Moment
    person: PersonalAccountOut
    job_roles: Rows
    level_changes: Rows
    api_tokens: Rows
    identities: Rows
    hour_logs: Rows
    exam_attempts: Rows
    exam_plans: Rows
    certifications: Rows
    evidence: Rows
    skill_assessments: Rows
    apprenticeships: Rows
    imported_badges: Rows
    issued_credentials: Rows
    notifications: Rows
    audit_events: Rows
    account_events: Rows


class EraseBody(Body):
    """The confirmation of an erasure: the person's e-mail address, typed again."""

    email: str = Field(
        max_length=254,
        description="the address of the person to erase, exactly (letter case aside)",
    )


class ErasedOut(Answer):
    """An erased person: their id, the pseudonym their records keep, when they were erased."""

    id: int
    name: str
    email: str
    erased_at: Moment
