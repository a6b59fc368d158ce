"""People's JSON shapes: an engineer, references to people and teams, a team."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Protocol

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
)

from tracker.catalog.rules import MAX_CODE_LENGTH, MIN_LEVEL
from tracker.catalog.schemas import BodyLevel
from tracker.people.models import Engineer, Team
from tracker.people.rules import (
    ACCESS_ROLE_RULE,
    ACCESS_ROLES,
    BROWSER_LOCALE,
    EARLIEST_DATE,
    EXPERIENCE_RULE,
    JOB_ROLES_COUNT_RULE,
    LOCALE_RULE,
    LOCALES,
    MAX_EMAIL_LENGTH,
    MAX_EXPERIENCE_MONTHS,
    MAX_JOB_ROLES,
    MAX_NAME_LENGTH,
    MAX_PASSWORD_LENGTH,
    MIN_PASSWORD_LENGTH,
    PASSWORD_LENGTH_RULE,
)
from tracker.schemas import Answer, Body, Date, Id, Page, TrueFalse, refusal, text, worded

# A person's language setting: a locale of the interface, or "" for the browser's choice.
LOCALE_CHOICES = (BROWSER_LOCALE, *LOCALES)
LOCALE_DESCRIPTION = (
    "the interface's language for this person: "
    + ", ".join(LOCALES)
    + ', or "" for the browser\'s choice (Accept-Language)'
)
WEEKLY_DIGEST_DESCRIPTION = (
    "whether the person gets the weekly digest mail (on by default; off as on the profile"
    " or with the digest's unsubscribe link)"
)


def _locale(value: Any) -> str:
    if not isinstance(value, str) or value not in LOCALE_CHOICES:
        raise refusal(LOCALE_RULE)
    return value


def _access_role(value: str) -> str:
    if value not in ACCESS_ROLES:
        raise refusal(ACCESS_ROLE_RULE)
    return value


# The constraints come first, so that the JSON schema lists the values; the validator's
# message (the rule) answers anything else.
Locale = Annotated[
    str,
    Field(json_schema_extra={"enum": list(LOCALE_CHOICES)}, description=LOCALE_DESCRIPTION),
    BeforeValidator(_locale),
]


class Named(Protocol):
    """Anything that names a person: an engineer, or the plain values read of one."""

    @property
    def id(self) -> int: ...

    @property
    def name(self) -> str: ...


class PersonRef(Answer):
    """A person, as records name them."""

    id: int
    name: str

    @classmethod
    def of(cls, engineer: Named) -> PersonRef:
        return cls(id=engineer.id, name=engineer.name)


def person_ref(engineer: Named | None) -> PersonRef | None:
    """Return a reference to `engineer`, or None for nobody."""
    return None if engineer is None else PersonRef.of(engineer)


class TeamRef(Answer):
    """A team, as its members name it."""

    id: int
    name: str


class EngineerOut(Answer):
    """An engineer's account."""

    id: int
    name: str
    email: str
    access_role: str
    active: bool
    level: int
    job_roles: list[str]
    team: TeamRef | None
    manager: PersonRef | None
    hired_on: dt.date | None
    documented_experience_months: int
    experience_text: str
    locale: Annotated[
        str,
        Field(json_schema_extra={"enum": list(LOCALE_CHOICES)}, description=LOCALE_DESCRIPTION),
    ]
    weekly_digest: bool = Field(description=WEEKLY_DIGEST_DESCRIPTION)

    @classmethod
    def fields_of(cls, engineer: Engineer) -> dict[str, object]:
        """Return the fields of `engineer`'s account, for this shape and its extensions."""
        team = engineer.team
        return {
            "id": engineer.id,
            # The stored name, an erased person's English pseudonym included: programs read
            # it (the API, SCIM); only pages, CSV files and mail translate it (shown_name).
            "name": engineer.name,
            "email": engineer.email,
            "access_role": engineer.access_role,
            "active": engineer.active,
            "level": engineer.level,
            "job_roles": sorted(engineer.job_role_codes),
            "team": None if team is None else TeamRef(id=team.id, name=team.name),
            "manager": person_ref(engineer.manager),
            "hired_on": engineer.hired_on,
            "documented_experience_months": engineer.experience_months,
            "experience_text": engineer.experience_text,
            "locale": engineer.locale,
            "weekly_digest": engineer.weekly_digest,
        }

    @classmethod
    def of(cls, engineer: Engineer) -> EngineerOut:
        return cls.model_validate(cls.fields_of(engineer))


class MeOut(EngineerOut):
    """The caller's account, with their experience as of today."""

    experience_months: int

    @classmethod
    def of_on(cls, engineer: Engineer, experience_months: int) -> MeOut:
        return cls.model_validate(
            {**cls.fields_of(engineer), "experience_months": experience_months}
        )


class TeamOut(Answer):
    """A team: its fleet size and its manager."""

    id: int
    name: str
    gpus: int
    manager: PersonRef | None

    @classmethod
    def of(cls, team: Team) -> TeamOut:
        return cls(id=team.id, name=team.name, gpus=team.gpus, manager=person_ref(team.manager))


class TeamsOut(Page[TeamOut]):
    """A page of the teams a caller may see, by name."""


class EngineerField(BaseModel):
    """The `engineer` a write is for, read alone before the rest of its body."""

    model_config = ConfigDict(extra="ignore")

    engineer: Id | None = None


# --- request bodies ---------------------------------------------------------------------


class EngineerBody(Body):
    """A person to add, with their account; an admin's call."""

    email: Annotated[str, text(MAX_EMAIL_LENGTH, required=True)]
    name: Annotated[str, text(MAX_NAME_LENGTH, required=True)]
    access_role: Annotated[
        str,
        Field(json_schema_extra={"enum": list(ACCESS_ROLES)}),
        text(max(len(r) for r in ACCESS_ROLES), required=True),
        AfterValidator(_access_role),
    ] = "engineer"
    job_roles: Annotated[
        list[Annotated[str, text(MAX_CODE_LENGTH, required=True)]],
        Field(
            max_length=MAX_JOB_ROLES,
            description=f"job-role codes of the catalog, at most {MAX_JOB_ROLES};"
            " a code named twice is held once",
        ),
        worded(JOB_ROLES_COUNT_RULE, "too_long"),
    ] = Field(default_factory=list)
    level: BodyLevel = MIN_LEVEL
    team_id: Id | None = None
    manager_id: Id | None = Field(None, description="an active manager or admin")
    hired_on: Date | None = Field(
        None, description=f"from {EARLIEST_DATE.isoformat()} to today; not in the future"
    )
    experience_months: Annotated[
        int,
        Field(ge=0, le=MAX_EXPERIENCE_MONTHS, strict=True),
        worded(EXPERIENCE_RULE),
    ] = Field(0, description="documented months of GPU-infrastructure experience before joining")
    password: (
        Annotated[
            str,
            StringConstraints(
                strict=True, min_length=MIN_PASSWORD_LENGTH, max_length=MAX_PASSWORD_LENGTH
            ),
            worded(PASSWORD_LENGTH_RULE, "string_too_short"),
        ]
        | None
    ) = Field(None, description="left out, the person cannot sign in until one is set")
    locale: Locale = BROWSER_LOCALE
    weekly_digest: TrueFalse = Field(True, description=WEEKLY_DIGEST_DESCRIPTION)


class EngineerChangeBody(Body):
    """A person's settings to change, each left as it is when left out: language, weekly digest."""

    locale: Locale | None = Field(None, description=LOCALE_DESCRIPTION)
    weekly_digest: TrueFalse | None = Field(None, description=WEEKLY_DIGEST_DESCRIPTION)
