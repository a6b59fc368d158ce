"""People's JSON shapes: an engineer, references to people and teams, a team."""

from __future__ import annotations

import datetime as dt
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from tracker.people.models import Engineer, Team
from tracker.schemas import Answer, Id, Page


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

    @classmethod
    def fields_of(cls, engineer: Engineer) -> dict[str, object]:
        """Return the fields of `engineer`'s account, for this shape and its extensions."""
        team = engineer.team
        return {
            "id": engineer.id,
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
