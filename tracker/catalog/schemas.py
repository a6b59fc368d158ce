"""The catalog as pydantic models: the seed file (seed/catalog.toml), and the API's references."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainValidator,
    PrivateAttr,
    StringConstraints,
    ValidationInfo,
)
from pydantic_core import PydanticCustomError

from tracker.catalog.models.credentials import Course, Credential, Exam
from tracker.catalog.models.skills import Speciality
from tracker.catalog.rules import (
    CODE_LENGTH_RULE,
    DECIMAL_PLACES,
    DEFAULT_EXAM_ISSUER,
    DEFAULT_PASSING_SCORE,
    DEFAULT_RAMP_UP,
    DEFAULT_RAMP_UP_ES,
    DEFAULT_RETAKE_WAIT_DAYS,
    HUNDREDTH,
    LEVEL_NUMBER_RULE,
    MAX_CODE_LENGTH,
    MAX_LEVEL,
    MAX_PERCENT,
    MIN_LEVEL,
    MIN_PERCENT,
    MIN_VALIDITY_MONTHS,
)
from tracker.schemas import Answer, refusal, worded

# --- field types ---------------------------------------------------------------------------


def _seed_error(message: str) -> PydanticCustomError:
    return PydanticCustomError("seed", message)


def _codes(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise _seed_error("must be a list of codes")
    if len(set(value)) != len(value):
        raise _seed_error("lists a code twice")
    return tuple(value)


def _amount(value: Any) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _seed_error("must be a number")
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        raise _seed_error("must be a number") from None
    if not number.is_finite() or number != number.quantize(HUNDREDTH):
        raise _seed_error(f"must be a number with at most {DECIMAL_PLACES} decimals")
    return number


def _money(value: Any) -> Decimal:
    number = _amount(value)
    if number < 0:
        raise _seed_error(f"must not be negative (got {value})")
    return number


def _hours(value: Any) -> Decimal:
    number = _amount(value)
    if number <= 0:
        raise _seed_error(f"must be more than 0 hours (got {value})")
    return number


# A code, a name or a title: text that must not be blank (surrounding spaces dropped).
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
# Text that may be left empty.
OptionalText = Annotated[str, StringConstraints(strip_whitespace=True)]
# Wording the tracker shows in the reader's language: names and descriptions of levels,
# roles, templates, slots, strategies and specialities (vendors' titles stay as they are).
# Each is written in English with its Spanish beside it, named with SPANISH_SUFFIX.
Wording = Text
OptionalWording = OptionalText
SPANISH_SUFFIX = "_es"
# The code of the error a wording without its Spanish raises.
NO_SPANISH = "spanish_missing"
# The Spanish of the wordings an entry takes when it leaves them out.
DEFAULT_SPANISH = {DEFAULT_RAMP_UP: DEFAULT_RAMP_UP_ES}


def _spanish_given(value: str, info: ValidationInfo) -> str:
    """Refuse an empty Spanish beside an English wording (an empty English needs none)."""
    english_field = (info.field_name or "").removesuffix(SPANISH_SUFFIX)
    english = info.data.get(english_field)
    if english and not value:
        if english in DEFAULT_SPANISH:
            return DEFAULT_SPANISH[english]
        raise PydanticCustomError(
            NO_SPANISH,
            "the Spanish of {english_field} {english!r} is missing",
            {"english_field": english_field, "english": english},
        )
    return value


# The Spanish of the wording before it: required whenever that wording is given.
Spanish = Annotated[
    str,
    StringConstraints(strip_whitespace=True),
    AfterValidator(_spanish_given),
    Field(validate_default=True),
]
# A Spanish the entry may leave out: a credential's name, which is most often a vendor's title.
OptionalSpanish = OptionalText
# Codes of other entries, each listed once.
Codes = Annotated[tuple[str, ...], PlainValidator(_codes)]
Hours = Annotated[Decimal, PlainValidator(_hours)]
Money = Annotated[Decimal, PlainValidator(_money)]
LevelNumber = Annotated[int, Field(ge=MIN_LEVEL, le=MAX_LEVEL)]
# A level a request body sends: a rung of the ladder, the range in the schema and the refusal.
BodyLevel = Annotated[
    int, Field(ge=MIN_LEVEL, le=MAX_LEVEL, strict=True), worded(LEVEL_NUMBER_RULE)
]
Percent = Annotated[int, Field(ge=MIN_PERCENT, le=MAX_PERCENT)]
Count = Annotated[int, Field(ge=0)]
Positive = Annotated[int, Field(ge=1)]


class SeedEntry(BaseModel):
    """One table of the seed file: exact types, no unknown fields."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    _where: str = PrivateAttr(default="")

    @property
    def where(self) -> str:
        """Name the entry for messages: its file, section, position and key."""
        return self._where


# --- the entries -------------------------------------------------------------------------


class LevelEntry(SeedEntry):
    number: LevelNumber
    name: Wording
    name_es: Spanish = ""
    experience: OptionalWording = ""
    experience_es: Spanish = ""
    summary: OptionalWording = ""
    summary_es: Spanish = ""
    salary_min: Count
    salary_max: Count
    min_experience_months: Count = 0
    requires: Codes = ()
    requires_evidence: bool = False


class JobRoleEntry(SeedEntry):
    code: Text
    name: Wording
    name_es: Spanish = ""


class ExamEntry(SeedEntry):
    code: Text
    name: Text
    issuer: OptionalText = DEFAULT_EXAM_ISSUER
    level: OptionalText = ""
    questions: Positive | None = None
    minutes: Positive | None = None
    # How it is taken: the tracker's words, unlike the exam's title.
    delivery: OptionalWording = ""
    delivery_es: Spanish = ""
    validity_months: Annotated[int, Field(ge=MIN_VALIDITY_MONTHS)] | None = None
    prerequisites: Codes = ()
    experience_months: Count = 0
    retake_wait_days: Count = DEFAULT_RETAKE_WAIT_DAYS
    passing_score: Percent = DEFAULT_PASSING_SCORE
    list_price: Money | None = None


class CredentialEntry(SeedEntry):
    code: Text
    name: Text
    name_es: OptionalSpanish = ""
    issuer: OptionalText = ""
    issuer_es: OptionalSpanish = ""
    validity_months: Annotated[int, Field(ge=MIN_VALIDITY_MONTHS)] | None = None
    description: OptionalWording = ""
    description_es: Spanish = ""


class GroupEntry(SeedEntry):
    code: Text
    name: Wording
    name_es: Spanish = ""
    members: Codes


class CourseEntry(SeedEntry):
    code: Text
    title: Text
    hours: Hours
    provider: OptionalText = ""
    list_price: Money | None = None


class PathEntry(SeedEntry):
    code: Text
    name: Wording
    name_es: Spanish = ""
    target_months: Positive
    exam: OptionalText | None = None
    courses: Codes


class SlotEntry(SeedEntry):
    title: Wording
    title_es: Spanish = ""
    count: Positive
    role: Text
    min_level: LevelNumber
    max_level: LevelNumber
    certifications: Codes = ()


class TemplateEntry(SeedEntry):
    code: Text
    name: Wording
    name_es: Spanish = ""
    min_gpus: Count
    max_gpus: Count | None = None
    cost_min: Count
    cost_max: Count
    credentials: Codes = ()
    slots: list[SlotEntry]


class StrategyEntry(SeedEntry):
    code: Text
    name: Wording
    name_es: Spanish = ""
    description: OptionalWording = ""
    description_es: Spanish = ""
    min_weeks: Count | None = None
    max_weeks: Count | None = None
    cost_min: Count | None = None
    cost_max: Count | None = None
    discount_min_percent: Percent | None = None
    discount_max_percent: Percent | None = None
    min_group_size: Positive | None = None
    productivity_loss_percent: Percent | None = None


class RoiLineEntry(SeedEntry):
    code: Text
    label: Wording
    label_es: Spanish = ""
    amount: Count


class SpecialityEntry(SeedEntry):
    code: Text
    name: Wording
    name_es: Spanish = ""
    emerging: bool = False
    ramp_up: OptionalWording = DEFAULT_RAMP_UP
    ramp_up_es: Spanish = ""


class RoiSection(BaseModel):
    """The ROI example: its investment lines and its return lines."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    investment: list[RoiLineEntry] = []
    returns: list[RoiLineEntry] = []


class SeedFile(BaseModel):
    """The whole seed file, section by section; every section may be left out."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    levels: list[LevelEntry] = []
    job_roles: list[JobRoleEntry] = []
    exams: list[ExamEntry] = []
    credentials: list[CredentialEntry] = []
    groups: list[GroupEntry] = []
    courses: list[CourseEntry] = []
    paths: list[PathEntry] = []
    templates: list[TemplateEntry] = []
    strategies: list[StrategyEntry] = []
    roi: RoiSection = RoiSection()
    specialities: list[SpecialityEntry] = []


# The field each section's entries are known by in messages and duplicate checks.
ENTRY_KEYS: dict[str, str] = {"levels": "number", "slots": "title"}


# --- the API's references to catalog entries ------------------------------------------


def _code(value: Any) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_CODE_LENGTH:
        raise refusal(CODE_LENGTH_RULE)
    return value.strip()


# A catalog code in a request body. The constraint precedes the validator that
# reads the JSON value, so that the JSON schema shows it.
Code = Annotated[str, Field(min_length=1, max_length=MAX_CODE_LENGTH), BeforeValidator(_code)]


class CourseRef(Answer):
    """A course, as records name it."""

    id: int
    code: str
    title: str

    @classmethod
    def of(cls, course: Course) -> CourseRef:
        return cls(id=course.id, code=course.code, title=course.title)


class CredentialRef(Answer):
    """A credential (NVIDIA's or another issuer's), as certifications name it."""

    id: int
    code: str
    name: str
    issuer: str
    kind: str
    origin: str

    @classmethod
    def of(cls, credential: Credential) -> CredentialRef:
        return cls(
            id=credential.id,
            code=credential.code,
            name=credential.name,
            issuer=credential.issuer,
            kind=credential.kind,
            origin=credential.origin,
        )


class ExamRef(Answer):
    """An exam, as attempts name it."""

    id: int
    code: str
    name: str

    @classmethod
    def of(cls, exam: Exam) -> ExamRef:
        return cls(id=exam.id, code=exam.code, name=exam.name)


class SpecialityRef(Answer):
    """A speciality, as skill assessments name it (`name_es`: its Spanish)."""

    code: str
    name: str
    name_es: str
    emerging: bool

    @classmethod
    def of(cls, speciality: Speciality) -> SpecialityRef:
        return cls(
            code=speciality.code,
            name=speciality.name,
            name_es=speciality.name_es,
            emerging=speciality.emerging,
        )
