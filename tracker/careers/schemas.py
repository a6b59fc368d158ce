"""Careers' JSON shapes: the ladder, evidence, skills, team coverage and the bonus ledger."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from decimal import Decimal
from typing import Annotated, Any

from pydantic import AfterValidator, Field

from tracker.careers.models import Evidence, SkillAssessment
from tracker.careers.rules import (
    EVIDENCE_KINDS,
    FIRST_QUARTER_YEAR,
    HELD_AT,
    LAST_QUARTER_YEAR,
    MAX_EVIDENCE_NOTE,
    MAX_EVIDENCE_TITLE,
    MAX_PROFICIENCY,
    MIN_PROFICIENCY,
    PROFICIENCY_LABELS,
    PROFICIENCY_RANGE,
    QUARTER_PATTERN,
    QUARTER_RULE,
)
from tracker.careers.services.bonuses import BonusRow, Quarter
from tracker.careers.services.ladder import Career
from tracker.careers.services.rotation import rotation
from tracker.careers.services.skills import Coverage
from tracker.catalog.schemas import BodyLevel, Code, SpecialityRef
from tracker.i18n import DEFAULT_LOCALE, msg, translate
from tracker.people.models import Engineer
from tracker.people.schemas import PersonRef, TeamOut, person_ref
from tracker.readiness.schemas import OnDate
from tracker.schemas import (
    Amount,
    Answer,
    Body,
    Date,
    Page,
    PageQuery,
    Query,
    Timestamp,
    refusal,
    text,
    worded,
)

PROFICIENCY_RULE = msg("must be a whole number %(range)s", range=PROFICIENCY_RANGE)
EVIDENCE_KIND_RULE = msg("must be one of %(kinds)s", kinds=", ".join(EVIDENCE_KINDS))


def _evidence_kind(kind: str) -> str:
    if kind not in EVIDENCE_KINDS:
        raise refusal(EVIDENCE_KIND_RULE)
    return kind


# --- query strings and bodies --------------------------------------------------------


class OnQuery(Query):
    """?on=YYYY-MM-DD (default today)."""

    on: OnDate | None = None


class QuarterQuery(PageQuery):
    """?quarter=YYYY-Qn (default this quarter), and the page."""

    quarter: (
        Annotated[
            str,
            Field(pattern=f"^{QUARTER_PATTERN}$"),
            worded(QUARTER_RULE, "string_pattern_mismatch"),
        ]
        | None
    ) = Field(
        None,
        description="a quarter written YYYY-Qn, e.g. 2026-Q4:"
        f" from {FIRST_QUARTER_YEAR}-Q1 to {LAST_QUARTER_YEAR}-Q4",
    )


class LevelBody(Body):
    """A report's new level."""

    level: BodyLevel


class EvidenceBody(Body):
    """A patent, publication or deployment led."""

    kind: Annotated[
        Code,
        AfterValidator(_evidence_kind),
        Field(json_schema_extra={"enum": list(EVIDENCE_KINDS)}),
    ]
    title: Annotated[str, text(MAX_EVIDENCE_TITLE, required=True)]
    date: Date
    note: Annotated[str, text(MAX_EVIDENCE_NOTE)] = ""


class SkillBody(Body):
    """A proficiency in a speciality."""

    level: Annotated[
        int, Field(ge=MIN_PROFICIENCY, le=MAX_PROFICIENCY, strict=True), worded(PROFICIENCY_RULE)
    ]


# --- answers ------------------------------------------------------------------------------


class EvidenceOut(Answer):
    """A piece of level-5 evidence."""

    id: int
    kind: str
    title: str
    date: dt.date
    note: str

    @classmethod
    def of(cls, entry: Evidence) -> EvidenceOut:
        return cls(
            id=entry.id,
            kind=entry.kind,
            title=entry.title,
            date=entry.occurred_on,
            note=entry.note,
        )


class NextLevelRuleOut(Answer):
    """What the next level asks for."""

    min_experience_months: int | None
    requires: list[str]
    requires_evidence: bool


class RoleSpanOut(Answer):
    """A job role held from one date to another."""

    role: str
    started_on: dt.date
    ended_on: dt.date | None


class CareerOut(Answer):
    """Where an engineer stands on the ladder: level, experience, next level, lacks."""

    engineer: PersonRef | None
    on: dt.date
    level: int
    level_name: str | None
    level_name_es: str | None
    experience_months: int
    next_level: int | None
    next_level_name: str | None
    next_level_name_es: str | None
    meets_next_level: bool
    lacks: list[str]
    next_level_rule: NextLevelRuleOut | None
    evidence: list[EvidenceOut]
    job_roles_history: list[RoleSpanOut]
    across_domains: bool

    @classmethod
    def of(cls, career: Career, locale: str = DEFAULT_LOCALE) -> CareerOut:
        """Answer with where the engineer stands; what they lack is said in `locale`."""
        following = career.next_level
        roles = rotation(career.engineer, career.on)
        return cls(
            engineer=person_ref(career.engineer),
            on=career.on,
            level=career.level,
            level_name=career.level_row.name if career.level_row else None,
            level_name_es=career.level_row.name_es if career.level_row else None,
            experience_months=career.experience_months,
            next_level=following.number if following else None,
            next_level_name=following.name if following else None,
            next_level_name_es=following.name_es if following else None,
            meets_next_level=career.meets_next_level,
            lacks=[translate(lack, locale) for lack in career.lacks],
            next_level_rule=None
            if following is None
            else NextLevelRuleOut(
                min_experience_months=following.min_experience_months,
                requires=[c.code for c in following.required_credentials],
                requires_evidence=following.requires_evidence,
            ),
            evidence=[EvidenceOut.of(e) for e in career.evidence],
            job_roles_history=[
                RoleSpanOut(role=a.job_role.code, started_on=a.started_on, ended_on=a.ended_on)
                for a in roles.assignments
            ],
            across_domains=roles.across_domains,
        )


class SkillOut(Answer):
    """A proficiency assessment."""

    id: int
    speciality: SpecialityRef
    level: int
    label: str
    confirmed: bool
    assessed_by: PersonRef | None
    assessed_at: Timestamp | None

    @classmethod
    def fields_of(cls, row: SkillAssessment, assessed_by: Engineer | None = None) -> dict[str, Any]:
        return {
            "id": row.id,
            "speciality": SpecialityRef.of(row.speciality),
            "level": row.proficiency,
            "label": PROFICIENCY_LABELS[row.proficiency],
            "confirmed": row.confirmed,
            "assessed_by": person_ref(assessed_by),
            "assessed_at": row.created_at,
        }

    @classmethod
    def of(cls, row: SkillAssessment, assessed_by: Engineer | None = None) -> SkillOut:
        return cls.model_validate(cls.fields_of(row, assessed_by))


class AssessedOut(SkillOut):
    """A proficiency just set, and whose it is."""

    engineer: PersonRef

    @classmethod
    def of_engineer(
        cls, row: SkillAssessment, assessed_by: Engineer, engineer: Engineer
    ) -> AssessedOut:
        return cls.model_validate(
            {**cls.fields_of(row, assessed_by), "engineer": PersonRef.of(engineer)}
        )


class SkillsOut(Answer):
    """An engineer's current proficiency per speciality, and the history."""

    engineer: PersonRef
    skills: list[SkillOut]
    history: list[SkillOut]


class CoverageCellOut(Answer):
    """One member's proficiency in a speciality (null: never assessed)."""

    engineer: PersonRef
    level: int | None
    confirmed: bool | None


class SpecialityCoverageOut(SpecialityRef):
    """Who in a team holds a speciality."""

    levels: list[CoverageCellOut]
    holders: list[PersonRef]
    single_point_of_failure: bool


class CoverageOut(Answer):
    """A team's specialities by people, with single points of failure by code."""

    team: TeamOut
    held_at: int
    people: list[PersonRef]
    specialities: list[SpecialityCoverageOut]
    single_points_of_failure: list[str]
    uncovered: list[str]

    @classmethod
    def of(cls, coverage: Coverage) -> CoverageOut:
        return cls(
            team=TeamOut.of(coverage.team),
            held_at=HELD_AT,
            people=[PersonRef.of(m) for m in coverage.members],
            specialities=[
                SpecialityCoverageOut(
                    code=row.speciality.code,
                    name=row.speciality.name,
                    name_es=row.speciality.name_es,
                    emerging=row.speciality.emerging,
                    levels=[
                        CoverageCellOut(
                            engineer=PersonRef.of(member),
                            level=None if a is None else a.proficiency,
                            confirmed=None if a is None else a.confirmed,
                        )
                        for member, a in row.cells
                    ],
                    holders=[PersonRef.of(m) for m in row.holders],
                    single_point_of_failure=row.single_point_of_failure,
                )
                for row in coverage.rows
            ],
            single_points_of_failure=[s.code for s in coverage.single_points_of_failure],
            uncovered=[s.code for s in coverage.uncovered],
        )


class PaidPersonOut(PersonRef):
    """A person a bonus is paid to."""

    email: str


class BonusCertificationOut(Answer):
    """The certification a bonus is for."""

    code: str
    name: str
    id: int


class BonusOut(Answer):
    """One bonus earned: who, which certification, pass date, amount."""

    engineer: PaidPersonOut
    certification: BonusCertificationOut
    passed_on: dt.date
    amount: Amount
    renewal: bool

    @classmethod
    def of(cls, row: BonusRow) -> BonusOut:
        return cls(
            engineer=PaidPersonOut(
                id=row.engineer.id, name=row.engineer.name, email=row.engineer.email
            ),
            certification=BonusCertificationOut(
                code=row.credential.code, name=row.credential.name, id=row.certification.id
            ),
            passed_on=row.passed_on,
            amount=row.amount,
            renewal=row.renewal,
        )


class BonusesOut(Page[BonusOut]):
    """A page of a quarter's bonus ledger, by pass date, then certification."""


class LedgerOut(Answer):
    """A quarter's bonus ledger."""

    quarter: str
    starts_on: dt.date = Field(serialization_alias="from")
    ends_on: dt.date = Field(serialization_alias="to")
    rows: list[BonusOut]
    total: Amount

    @classmethod
    def of(cls, quarter: Quarter, rows: Iterable[BonusRow]) -> LedgerOut:
        rows = list(rows)
        return cls(
            quarter=str(quarter),
            starts_on=quarter.starts_on,
            ends_on=quarter.ends_on,
            rows=[BonusOut.of(r) for r in rows],
            total=sum((r.amount for r in rows), Decimal(0)),
        )


def ledger_json(quarter: Quarter, rows: Iterable[BonusRow]) -> dict[str, Any]:
    """Return a quarter's bonus ledger as JSON-ready data."""
    return LedgerOut.of(quarter, rows).dump()
