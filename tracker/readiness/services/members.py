"""Load the catalog templates and the teams' members as readiness reads them."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from sqlalchemy import ColumnElement, Select, bindparam, select
from sqlalchemy.orm import Session, selectinload

from tracker.catalog.models.credentials import Credential
from tracker.catalog.models.skills import JobRole
from tracker.catalog.models.team_templates import TeamTemplate, TemplateSlot
from tracker.catalog.services.snapshot import CredentialInfo
from tracker.db import plain_rows
from tracker.people.models import Engineer, JobRoleAssignment
from tracker.progress.models import Certification

# A certification as matching reads it: (id, engineer, credential, earned on, expires on).
CertRow = tuple[int, int, int, dt.date, dt.date | None]
# A credential, mapped or the catalog snapshot's plain copy: they read alike.
AnyCredential = Credential | CredentialInfo


def load_templates(session: Session) -> list[TeamTemplate]:
    """Return every template with its slots, roles and credentials, smallest band first."""
    return list(
        session.scalars(
            select(TeamTemplate)
            .options(
                # Many-to-one loads ride on their parent's query (joined).
                selectinload(TeamTemplate.slots).joinedload(TemplateSlot.job_role),
                selectinload(TeamTemplate.slots)
                .selectinload(TemplateSlot.credentials)
                .selectinload(Credential.members),
                selectinload(TeamTemplate.team_credentials).selectinload(Credential.members),
            )
            .order_by(TeamTemplate.min_gpus)
        )
    )


class Member:
    """An engineer with what readiness reads: job roles, level and certifications.

    Plain values read once: matching asks for every slot of every template and
    date, and plain values are many times cheaper to read than mapped
    attributes (or cached properties). Compares like the (engineer,
    certifications) pair it stands for.
    """

    __slots__ = (
        "_certifications",
        "_credentials",
        "_rows",
        "_valid",
        "engineer",
        "id",
        "level",
        "name",
        "role_codes",
    )

    engineer: Engineer | Person
    id: int
    name: str
    level: int
    role_codes: frozenset[str]

    def __init__(
        self,
        engineer: Engineer | Person,
        certifications: Iterable[Certification | HeldCertification],
    ) -> None:
        certs = tuple(certifications)
        self._set(
            engineer,
            [(c.id, c.engineer_id, c.credential_id, c.earned_on, c.expires_on) for c in certs],
        )
        self._certifications: tuple[Certification | HeldCertification, ...] | None = certs
        self._credentials: Mapping[int, Credential | CredentialInfo] | None = None

    @classmethod
    def _of_rows(
        cls,
        person: Person,
        rows: Sequence[CertRow],
        credentials: Mapping[int, Credential | CredentialInfo],
    ) -> Member:
        """A member from certification rows (id, engineer, credential, earned, expires).

        Matching reads the rows alone; the `HeldCertification`s, which name
        their credential, are made when first asked for (a page names few).
        """
        member = cls.__new__(cls)
        member._set(person, rows)
        member._certifications = None
        member._credentials = credentials
        return member

    def _set(self, engineer: Engineer | Person, rows: Sequence[CertRow]) -> None:
        self.engineer = engineer
        self.id = engineer.id
        self.name = engineer.name
        self.level = engineer.level
        self.role_codes = engineer.job_role_codes
        self._rows = rows
        self._valid: dict[dt.date, frozenset[int]] = {}

    @property
    def certifications(self) -> tuple[Certification | HeldCertification, ...]:
        certs = self._certifications
        if certs is None:
            credentials = self._credentials
            assert credentials is not None
            certs = self._certifications = tuple(
                HeldCertification(*row, credentials[row[2]]) for row in self._rows
            )
        return certs

    @property
    def held(self) -> tuple[tuple[int, dt.date, dt.date | None], ...]:
        """Return (credential id, earned on, expires on) of every certification."""
        return tuple((c, earned, expires) for _, _, c, earned, expires in self._rows)

    def __repr__(self) -> str:
        return f"Member({self.engineer!r}, {self.certifications!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Member):
            return NotImplemented
        return (self.engineer, self.certifications) == (other.engineer, other.certifications)

    def __hash__(self) -> int:
        return hash((self.engineer, self.certifications))

    def valid_on(self, on: dt.date) -> frozenset[int]:
        """Return the ids of the credentials this member holds a valid certification of on `on`."""
        valid = self._valid.get(on)
        if valid is None:
            valid = frozenset(
                [
                    c
                    for _, _, c, earned, expires in self._rows
                    if earned <= on and (expires is None or on <= expires)
                ]
            )
            self._valid[on] = valid
        return valid

    def lapsing(self, on: dt.date, last: dt.date) -> int:
        """Count the credentials held valid on `on` whose cover ends by `last`.

        Of several valid certifications of one credential the one valid longest
        counts, as on the heat map: a renewal taken early is not lapsing.
        """
        rows = self._rows
        soon = {
            c
            for _, _, c, earned, expires in rows
            if expires is not None and earned <= on <= expires <= last
        }
        if not soon:  # most people, looked at in one pass
            return 0
        later = {
            c
            for _, _, c, earned, expires in rows
            if earned <= on and (expires is None or expires > last)
        }
        return len(soon - later)

    def holds(self, wanted: frozenset[int], on: dt.date) -> bool:
        """Return whether a certification of one of `wanted` is valid on `on`."""
        return not wanted.isdisjoint(self.valid_on(on))

    def latest(
        self, wanted: frozenset[int], on: dt.date
    ) -> Certification | HeldCertification | None:
        """Return the newest certification of one of `wanted` earned by `on`, valid or not.

        What `latest_for` returns of the certifications earned by `on`.
        """
        best = None
        best_key = None
        for i, (cert_id, _, credential_id, earned, _) in enumerate(self._rows):
            if credential_id in wanted and earned <= on:
                key = (earned, cert_id or 0)
                if best_key is None or key > best_key:
                    best, best_key = i, key
        return None if best is None else self.certifications[best]


class Person(NamedTuple):
    """What readiness reads of an engineer, as plain values (the engineer's `Member.engineer`)."""

    id: int
    name: str
    email: str
    level: int
    team_id: int | None
    hired_on: dt.date | None
    experience_months: int
    job_role_codes: frozenset[str]


class HeldCertification(NamedTuple):
    """A certification as readiness reads it: plain values and the credential it is of."""

    id: int
    engineer_id: int
    credential_id: int
    earned_on: dt.date
    expires_on: dt.date | None
    credential: Credential | CredentialInfo


def load_members(
    session: Session,
    team_ids: Iterable[int] | None,
    credentials: Mapping[int, Credential | CredentialInfo] | None = None,
) -> dict[int, list[Member]]:
    """Return the active members of teams with job roles and certifications.

    Two queries however many people the teams hold (three without
    `credentials`), none per person, and plain rows rather than mapped
    entities: an organisation's page reads tens of thousands of
    certifications, and building an entity for each would cost many times the
    query. Members carry a `Person` and `HeldCertification`s, which read like
    the engineer and the certifications they stand for.

    `team_ids` None means every team. With `credentials` (id -> credential,
    e.g. a catalog snapshot's) the certifications point at those, and the
    query that loads the credentials held is not needed.
    """
    params: dict[str, object] = {}
    if team_ids is None:
        people, certs = _MEMBER_QUERIES["all"]
    else:
        ids = list(team_ids)
        if not ids:
            return {}
        if len(ids) == 1:
            people, certs = _MEMBER_QUERIES["one"]
            params = {"team_id": ids[0]}
        else:
            people, certs = _member_queries(Engineer.team_id.in_(ids))
    # Plain rows (Core), not the ORM's: nothing here becomes an entity; and
    # fetched at once, not row by row.
    connection = plain_rows(session)
    if credentials is None:
        held = certs.with_only_columns(Certification.credential_id).distinct()
        credentials = {
            c.id: c
            for c in session.scalars(
                select(Credential).where(Credential.id.in_(held.scalar_subquery())), params
            )
        }
    by_engineer: dict[int, list] = {}
    cert_rows = connection.execute(certs, params).all()
    for row in cert_rows:
        by_engineer.setdefault(row[1], []).append(row)
    missing = {row[2] for row in cert_rows}.difference(credentials)
    if missing:
        # Made after the snapshot was (an engineer's new credential, just now).
        credentials = {**credentials, **{c: _credential(session, c) for c in missing}}
    members: dict[int, list[Member]] = {}
    of_rows = Member._of_rows
    # One row per engineer and current job role (one without a role), by name.
    person: Person | None = None
    member: Member | None = None
    for id_, name, email, level, team_id, hired_on, months, code in connection.execute(
        people, params
    ).all():
        if person is None or person.id != id_:
            person = Person(id_, name, email, level, team_id, hired_on, months, frozenset())
            member = of_rows(person, by_engineer.get(id_, ()), credentials)
            members.setdefault(team_id, []).append(member)
        if code is not None:
            assert member is not None  # made with the engineer's first row
            person = person._replace(job_role_codes=person.job_role_codes | {code})
            member.engineer, member.role_codes = person, person.job_role_codes
    return members


def _member_queries(team: ColumnElement[bool]) -> tuple[Select, Select]:
    """Return the queries of `load_members` for the active engineers of teams (`team`)."""
    members_of = (team, Engineer.active.is_(True))
    people = (
        select(
            Engineer.id,
            Engineer.name,
            Engineer.email,
            Engineer.level,
            Engineer.team_id,
            Engineer.hired_on,
            Engineer.experience_months,
            JobRole.code,
        )
        .outerjoin(
            JobRoleAssignment,
            (JobRoleAssignment.engineer_id == Engineer.id) & JobRoleAssignment.ended_on.is_(None),
        )
        .outerjoin(JobRole, JobRole.id == JobRoleAssignment.job_role_id)
        .where(*members_of)
        .order_by(Engineer.name, Engineer.id)
    )
    certs = (
        select(
            Certification.id,
            Certification.engineer_id,
            Certification.credential_id,
            Certification.earned_on,
            Certification.expires_on,
        )
        .join(Engineer, Engineer.id == Certification.engineer_id)
        # A certification its issuer revoked counts for nothing (tracker.badges re-checks).
        .where(*members_of, Certification.revoked_on.is_(None))
    )
    return people, certs


# Built once: an organisation's teams, and one team (:team_id).
_MEMBER_QUERIES = {
    "all": _member_queries(Engineer.team_id.is_not(None)),
    "one": _member_queries(Engineer.team_id == bindparam("team_id")),
}


def _credential(session: Session, credential_id: int) -> Credential:
    """Load a credential a snapshot lacks (made after it: a race with an engineer's new one)."""
    credential = session.get(Credential, credential_id)
    assert credential is not None  # the certification's foreign key
    return credential
