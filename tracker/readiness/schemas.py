"""Readiness's JSON shapes: a team's readiness and forecast, ROI, and their query strings."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Annotated, Any, Literal, cast, get_args

from pydantic import AfterValidator, Field

from tracker.catalog.rules import MAX_CODE_LENGTH
from tracker.i18n import DEFAULT_LOCALE, N_, msg, translate
from tracker.people.rules import MAX_GPUS, MAX_NAME_LENGTH, MAX_TEAM_NAME_LENGTH
from tracker.people.schemas import PersonRef, TeamOut, person_ref
from tracker.progress.rules import EXPIRING_WITHIN_DAYS
from tracker.readiness.rules import (
    CALENDAR_RULE,
    FIRST_DAY,
    FORECAST_MONTHS,
    GPUS_NUMBER_RULE,
    HISTORY_MONTHS,
    LAST_DAY,
    MAX_FORECAST_MONTHS,
    MAX_HISTORY_MONTHS,
    MAX_ROI_AMOUNT,
    MAX_ROI_LABEL_LENGTH,
    MAX_ROI_LINES,
    ROI_LABEL_RULE,
    ROI_LINE_RULE,
    ROI_LINES_RULE,
    TREND_DAYS,
)
from tracker.readiness.services.forecast import ForecastPoint
from tracker.readiness.services.history import HistoryPoint
from tracker.readiness.services.matching import Seat
from tracker.readiness.services.organisation import DEFAULT_SORT, SORTS, SummaryRow
from tracker.readiness.services.roi import Roi
from tracker.readiness.services.team import TeamReadiness
from tracker.schemas import (
    DATE_RULE,
    RANGE_ERRORS,
    WITHOUT_NUL,
    Answer,
    Body,
    Page,
    PageQuery,
    Query,
    WholeNumber,
    date_worded,
    query_int,
    refusal,
    text,
    worded,
)

NAMED_AMOUNTS = N_('must be an object of named amounts, e.g. {"training": 75000}')
MONTHS_RULE = msg("must be a whole number from 1 to %(max)s", max=MAX_FORECAST_MONTHS)

# A day a readiness or career query may ask about: the web forms' calendar. JSON
# Schema has no bounds of its own for a date; formatMinimum and formatMaximum are
# the vocabulary validators such as Ajv read.
OnDate = Annotated[
    dt.date,
    Field(
        ge=FIRST_DAY,
        le=LAST_DAY,
        json_schema_extra={
            "formatMinimum": FIRST_DAY.isoformat(),
            "formatMaximum": LAST_DAY.isoformat(),
        },
    ),
    date_worded(DATE_RULE),
    worded(CALENDAR_RULE),
]
Gpus = Annotated[
    int, Field(ge=0, le=MAX_GPUS), query_int(GPUS_NUMBER_RULE), worded(GPUS_NUMBER_RULE)
]


# --- query strings and bodies --------------------------------------------------------


class ReadinessQuery(Query):
    """?gpus=N (default the team's fleet), ?on=YYYY-MM-DD (default today)."""

    gpus: Gpus | None = None
    on: OnDate | None = None


class ForecastQuery(Query):
    """?gpus=N (default the team's fleet), ?months=N (default 12)."""

    gpus: Gpus | None = None
    months: Annotated[
        int, Field(ge=1, le=MAX_FORECAST_MONTHS), query_int(MONTHS_RULE), worded(MONTHS_RULE)
    ] = FORECAST_MONTHS


SortName = Literal["team", "manager", "band", "seats", "ready", "lapsing", "trend"]
assert set(get_args(SortName)) == set(SORTS)  # the services' columns, each once
SORT_RULE = msg("must be one of %(sorts)s", sorts=", ".join(SORTS))
ORDER_RULE = N_("must be asc or desc")


class OrganisationQuery(PageQuery):
    """The organisation table's filters, order and page, as the organisation page reads them."""

    band: Annotated[str, text(MAX_CODE_LENGTH)] | None = Field(
        None, description="only teams of this fleet band: its template's code (e.g. small)"
    )
    manager: Annotated[str, text(MAX_NAME_LENGTH)] | None = Field(
        None, description="only teams whose manager's name contains this (any case)"
    )
    name: Annotated[str, text(MAX_TEAM_NAME_LENGTH)] | None = Field(
        None, description="only teams whose name contains this (any case)"
    )
    sort: Annotated[SortName, worded(SORT_RULE, "literal_error")] = Field(
        cast(SortName, DEFAULT_SORT), description="the column to sort by; then by team name"
    )
    order: Annotated[Literal["asc", "desc"], worded(ORDER_RULE, "literal_error")] = Field(
        "asc", description="the sort column's direction"
    )


HISTORY_MONTHS_RULE = msg("must be a whole number from 1 to %(max)s", max=MAX_HISTORY_MONTHS)


class HistoryQuery(PageQuery):
    """?months=N of daily snapshots ending today (default 12), a page of them, oldest first."""

    months: Annotated[
        int,
        Field(
            ge=1,
            le=MAX_HISTORY_MONTHS,
            description=f"months of daily snapshots ending today, 1 to {MAX_HISTORY_MONTHS}",
        ),
        query_int(HISTORY_MONTHS_RULE),
        worded(HISTORY_MONTHS_RULE),
    ] = HISTORY_MONTHS


def _labels_within(lines: dict[str, int]) -> dict[str, int]:
    """Refuse a line whose name is longer than the calculator's form takes."""
    if any(len(name) > MAX_ROI_LABEL_LENGTH for name in lines):
        raise refusal(ROI_LABEL_RULE)
    return lines


Lines = Annotated[
    dict[
        str,
        Annotated[
            WholeNumber,
            Field(ge=0, le=MAX_ROI_AMOUNT),
            worded(ROI_LINE_RULE, "int_type", *RANGE_ERRORS),
        ],
    ],
    Field(
        min_length=1,
        max_length=MAX_ROI_LINES,
        json_schema_extra={
            "propertyNames": {"pattern": WITHOUT_NUL, "maxLength": MAX_ROI_LABEL_LENGTH}
        },
    ),
    AfterValidator(_labels_within),
    worded(NAMED_AMOUNTS, "dict_type", "too_short"),
    worded(ROI_LINES_RULE, "too_long"),
]


class RoiBody(Body):
    """Named investment and return lines, in whole currency units."""

    investment: Lines
    returns: Lines


# --- answers ------------------------------------------------------------------------------


class SlotOut(Answer):
    """A seat of a team template: its job role, levels and certifications (`title_es`: Spanish)."""

    title: str
    title_es: str
    role: str
    min_level: int | None
    max_level: int | None
    certifications: list[str]

    @classmethod
    def fields_of(cls, seat: Seat) -> dict[str, Any]:
        s = seat.slot
        return {
            "title": s.title,
            "title_es": s.title_es,
            "role": s.job_role.code,
            "min_level": s.min_level,
            "max_level": s.max_level,
            "certifications": [c.code for c in s.credentials],
        }


class SeatOut(SlotOut):
    """A seat and who fills it."""

    engineer: PersonRef | None


class CandidateOut(Answer):
    """A member who could fill a seat, and what they lack."""

    engineer: PersonRef
    lacks: list[str]


class GapOut(SlotOut):
    """An empty seat, its nearest candidates, and whether it needs a hire."""

    candidates: list[CandidateOut]
    hire: bool


class TeamCredentialOut(Answer):
    """A certification the team needs once, and who holds it."""

    code: str
    met: bool
    holders: list[PersonRef]


class TeamReadinessOut(Answer):
    """A team's readiness: template, filled/total/percent, seats, gaps, team-wide."""

    team: TeamOut
    gpus: int
    on: dt.date
    template: str
    filled: int
    total: int
    percent: float
    slots: list[SeatOut]
    gaps: list[GapOut]
    team_certifications: list[TeamCredentialOut]

    @classmethod
    def of(cls, result: TeamReadiness, locale: str = DEFAULT_LOCALE) -> TeamReadinessOut:
        """Answer with the team's readiness; what each candidate lacks is said in `locale`."""
        return cls(
            team=TeamOut.of(result.team),
            gpus=result.gpus,
            on=result.on,
            template=result.template.code,
            filled=result.filled,
            total=result.total,
            percent=result.percent,
            slots=[
                SeatOut.model_validate(
                    {
                        **SlotOut.fields_of(s.seat),
                        "engineer": person_ref(s.member.engineer) if s.member else None,
                    }
                )
                for s in result.seats
            ],
            gaps=[
                GapOut.model_validate(
                    {
                        **SlotOut.fields_of(s.seat),
                        "candidates": [
                            CandidateOut(
                                engineer=PersonRef.of(c.member.engineer),
                                lacks=[translate(lack, locale) for lack in c.lacks],
                            )
                            for c in s.candidates
                        ],
                        "hire": not s.candidates,
                    }
                )
                for s in result.gaps
            ],
            team_certifications=[
                TeamCredentialOut(
                    code=t.credential.code,
                    met=t.met,
                    holders=[PersonRef.of(m.engineer) for m in t.holders],
                )
                for t in result.team_credentials
            ],
        )


def readiness_json(result: TeamReadiness, locale: str = DEFAULT_LOCALE) -> dict[str, Any]:
    """Return a team's readiness as JSON-ready data, its words in `locale`."""
    return TeamReadinessOut.of(result, locale).dump()


class ForecastPointOut(Answer):
    """Readiness at the start of a month."""

    date: dt.date
    filled: int
    total: int
    percent: float


class ForecastOut(Answer):
    """A team's readiness at the start of each coming month, assuming no renewals."""

    team: TeamOut
    gpus: int
    points: list[ForecastPointOut]

    @classmethod
    def of(cls, team: TeamOut, gpus: int, points: Iterable[ForecastPoint]) -> ForecastOut:
        return cls(
            team=team,
            gpus=gpus,
            points=[
                ForecastPointOut(date=p.on, filled=p.filled, total=p.total, percent=p.percent)
                for p in points
            ],
        )


class RoiOut(Answer):
    """First-year and ongoing ROI of named lines."""

    investment_total: int
    returns_total: int
    first_year_roi_percent: int
    ongoing_roi_percent: int

    @classmethod
    def of(cls, result: Roi) -> RoiOut:
        return cls(
            investment_total=result.investment_total,
            returns_total=result.returns_total,
            first_year_roi_percent=result.first_year_roi_percent,
            ongoing_roi_percent=result.ongoing_roi_percent,
        )


class OrganisationRowOut(Answer):
    """A team's row of the organisation table: its readiness today and its trend."""

    team: TeamOut
    band: str = Field(description="the template its fleet falls in (small, medium, large)")
    filled: int
    total: int
    percent: float
    lapsing: int = Field(
        description=f"its members' valid certifications lapsing within {EXPIRING_WITHIN_DAYS} days"
    )
    trend: float | None = Field(
        description=f"points of percent gained since its snapshot {TREND_DAYS} days before"
        " (null: no snapshot that far back)"
    )

    @classmethod
    def of(cls, row: SummaryRow, band: str) -> OrganisationRowOut:
        manager = None
        if row.manager_id is not None:
            manager = PersonRef(id=row.manager_id, name=row.manager_name or "")
        return cls(
            team=TeamOut(id=row.team_id, name=row.team_name, gpus=row.gpus, manager=manager),
            band=band,
            filled=row.filled,
            total=row.total,
            percent=row.percent,
            lapsing=row.lapsing,
            trend=row.trend,
        )


class OrganisationOut(Page[OrganisationRowOut]):
    """A page of the organisation table, in the order asked."""


class HistoryPointOut(Answer):
    """Readiness on a day, as its snapshot kept it (a team's last state that day)."""

    date: dt.date
    filled: int
    total: int
    percent: float
    lapsing: int = Field(
        description=f"valid certifications lapsing within {EXPIRING_WITHIN_DAYS} days"
    )

    @classmethod
    def of(cls, found: HistoryPoint) -> HistoryPointOut:
        return cls(
            date=found.day,
            filled=found.filled,
            total=found.total,
            percent=found.percent,
            lapsing=found.lapsing,
        )


class OrganisationPointOut(HistoryPointOut):
    """The organisation's readiness on a day: the sum of its teams' snapshots."""

    teams: int

    @classmethod
    def of(cls, found: HistoryPoint) -> OrganisationPointOut:
        return cls(
            date=found.day,
            filled=found.filled,
            total=found.total,
            percent=found.percent,
            lapsing=found.lapsing,
            teams=found.teams or 0,
        )


class TeamHistoryOut(Page[HistoryPointOut]):
    """A page of a team's daily snapshots, oldest first."""


class OrganisationHistoryOut(Page[OrganisationPointOut]):
    """A page of the organisation's daily snapshots, oldest first."""
