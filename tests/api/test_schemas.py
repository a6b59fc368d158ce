"""The API's pydantic models describe themselves: each gives a JSON schema, as OpenAPI needs."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal

import pydantic
import pytest

import tracker.api  # noqa: F401  (registers every resource, importing their models)
from tracker.api.errors import refusals
from tracker.catalog.schemas import CourseRef
from tracker.people.schemas import PersonRef
from tracker.progress.schemas import AttemptBody, HourLogOut, HoursBody
from tracker.schemas import Answer, Body, Query


def _models() -> list[type[pydantic.BaseModel]]:
    found: list[type[pydantic.BaseModel]] = []
    stack: list[type[pydantic.BaseModel]] = [Body, Query, Answer]
    while stack:
        for model in stack.pop().__subclasses__():
            if model not in found:
                found.append(model)
                stack.append(model)
    return found


@pytest.mark.parametrize("model", _models(), ids=lambda m: f"{m.__module__}.{m.__name__}")
def test_every_model_has_a_json_schema(model: type[pydantic.BaseModel]) -> None:
    shape = "object"
    for mode in ("validation", "serialization"):
        assert model.model_json_schema(mode=mode, by_alias=True)["type"] == shape


@pytest.mark.parametrize(
    "model",
    [model for model in _models() if issubclass(model, Answer)],
    ids=lambda m: f"{m.__module__}.{m.__name__}",
)
def test_every_answer_writes_what_dump_gives(model: type[Answer]) -> None:
    # The API writes dump_json(): an answer changing dump() alone would answer otherwise.
    assert (model.dump, model.dump_json) == (Answer.dump, Answer.dump_json)


def test_an_answers_json_is_its_dump_written() -> None:
    entry = HourLogOut(
        id=7,
        engineer=PersonRef(id=2, name="Zoë Ñúñez"),
        course=CourseRef(id=3, code="FDL", title="Fundamentals"),
        date=dt.date(2026, 11, 3),
        hours=Decimal("1.50"),
        note="",
        created_at=dt.datetime(2026, 11, 3, 9, 30, 1, 250),
        updated_at=None,
    )
    assert json.loads(entry.dump_json()) == entry.dump()
    assert (
        entry.dump()["hours"] == 1.5 and entry.dump()["created_at"] == "2026-11-03T09:30:01.000250"
    )


def test_limits_come_out_in_the_schema() -> None:
    hours = HoursBody.model_json_schema()["properties"]["hours"]
    assert (hours["type"], hours["exclusiveMinimum"], hours["maximum"]) == ("number", 0, 24)
    score = AttemptBody.model_json_schema()["properties"]["score"]
    assert (score["minimum"], score["maximum"]) == (0, 100)


def test_refusals_name_each_field_and_its_rule() -> None:
    body = {"course": "FDL", "course_id": 1, "date": "2026/11/20", "hours": Decimal("1.125")}
    with pytest.raises(pydantic.ValidationError) as caught:
        HoursBody.model_validate({**body, "note": "n" * 501})
    assert refusals(caught.value) == {
        "course": "give the course by code or by course_id, not both",
        "date": "must be a date written YYYY-MM-DD",
        "hours": "must have at most 2 decimals",
        "note": "must be at most 500 characters",
    }
