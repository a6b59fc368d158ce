"""Shared helpers of the progress tests: page readers and form data, service refusals.

The page tests pin today to factories.TODAY (2026-11-29) through app.config["TODAY"]
and post without CSRF tokens (the app fixture turns CSRF off), except the CSRF tests
in test_views_sign_in_and_csrf.py. The service tests tell the services TODAY.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from html.parser import HTMLParser

import pytest
from sqlalchemy.orm import Session

from tests import factories
from tests.factories import hours
from tests.helpers import count
from tracker.audit.models import AuditEvent
from tracker.catalog.models.credentials import Credential
from tracker.errors import ValidationError
from tracker.people.models import Engineer
from tracker.progress.models import Certification, ExamAttempt, ExamPlan, HourLog
from tracker.progress.services.hours import log_hours

TODAY = factories.TODAY  # 2026-11-29
YESTERDAY = TODAY - dt.timedelta(days=1)  # 2026-11-28
D = dt.date
SCRIPT = "<script>alert(1)</script>"
SQL = "'; DROP TABLE hour_logs; --"


# --- the pages ------------------------------------------------------------------


class Page(HTMLParser):
    """Collect what the tests look at: progress bars, field errors, table rows, text."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.progress: dict[str, tuple[Decimal, Decimal]] = {}
        self.progress_count = 0
        self.errors: dict[str, list[str]] = {}
        self.rows: list[str] = []
        self.flashes: list[str] = []
        self.next_steps: list[str] = []
        self._error_for: str | None = None
        self._row: list[str] | None = None
        self._flash: list[str] | None = None
        self._step: list[str] | None = None
        self._in_next_steps = False
        self._chunks: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        classes = a.get("class", "").split()
        if tag == "progress":
            self.progress_count += 1
            self.progress[a["id"]] = (Decimal(a["value"]), Decimal(a["max"]))
        elif tag == "small" and "field-error" in classes:
            self._error_for = a["id"].removesuffix("-error")
            self.errors.setdefault(self._error_for, []).append("")
        elif tag == "tr":
            self._row = []
        elif tag == "article" and "flash" in classes:
            self._flash = []
        elif tag == "ul" and "next-steps" in classes:
            self._in_next_steps = True
        elif tag == "li" and self._in_next_steps:
            self._step = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "small" and self._error_for is not None:
            self._error_for = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(_squash(" ".join(self._row)))
            self._row = None
        elif tag == "article" and self._flash is not None:
            self.flashes.append(_squash(" ".join(self._flash)))
            self._flash = None
        elif tag == "li" and self._step is not None:
            self.next_steps.append(_squash(" ".join(self._step)))
            self._step = None
        elif tag == "ul" and self._in_next_steps:
            self._in_next_steps = False

    def handle_data(self, data: str) -> None:
        self._chunks.append(data)
        if self._error_for is not None:
            self.errors[self._error_for][-1] += data
        for bucket in (self._row, self._flash, self._step):
            if bucket is not None:
                bucket.append(data)

    @property
    def text(self) -> str:
        return _squash(" ".join(self._chunks))


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def page(response) -> Page:
    return Page(response.get_data(as_text=True))


def counts(db: Session) -> dict[str, int]:
    """Rows in every table a page of this feature writes to."""
    return {
        model.__name__: count(db, model)
        for model in (HourLog, AuditEvent, ExamAttempt, Certification, ExamPlan, Credential)
    }


def log(db: Session, who: Engineer, code: str, amount: str | int, on: dt.date = YESTERDAY):
    """Log hours through the service, for setting up a scene."""
    return log_hours(
        db, who, factories.course(db, code), on, hours(amount), TODAY, note="", actor=who
    )


def hours_form(db: Session, **overrides: object) -> dict[str, object]:
    data: dict[str, object] = {
        "course": factories.course(db, "FDL").id,
        "logged_on": YESTERDAY.isoformat(),
        "hours": "2.5",
        "note": "lab",
    }
    data.update(overrides)
    return data


def attempt_form(db: Session, who: Engineer, code: str = "NCA-AIIO", **overrides: object):
    data: dict[str, object] = {
        "engineer": who.id,
        "exam": factories.exam(db, code).id,
        "attempted_on": YESTERDAY.isoformat(),
        "score": "82",
        "passed": "y",
    }
    data.update(overrides)
    return {k: v for k, v in data.items() if v is not None}


def credential_form(db: Session, who: Engineer, code: str | None = "CKA", **overrides: object):
    data: dict[str, object] = {
        "engineer": who.id,
        "credential": factories.credential(db, code).id if code else 0,
        "issued_on": "2026-10-01",
        "expires_on": "2029-10-01",
        "evidence": "LF-CKA-2026-0042",
    }
    data.update(overrides)
    return {k: v for k, v in data.items() if v is not None}


def plan_form(db: Session, code: str = "NCP-AII", on: str = "2027-03-01") -> dict[str, object]:
    return {"plan-exam": factories.exam(db, code).id, "plan-planned_on": on}


def assert_page_refused(response, field: str, message: str) -> Page:
    """Check the page refused its form with `message` at `field`, next to the input."""
    assert response.status_code == 400
    view = page(response)
    assert field in view.errors, view.errors
    assert all(text.strip() for text in view.errors[field])
    assert message in " ".join(view.errors[field])
    # The error sits next to its field: the input points at it.
    html = response.get_data(as_text=True)
    assert f'aria-describedby="{field}-error"' in html
    return view


# --- the services ---------------------------------------------------------------


def cert(
    earned_on: dt.date,
    expires_on: dt.date | None = None,
    credential_id: int = 1,
    id: int | None = None,
) -> Certification:
    """A transient certification, for the pure rules that need no database."""
    return Certification(
        id=id, credential_id=credential_id, earned_on=earned_on, expires_on=expires_on
    )


def assert_refused(db, call, field: str, *fragments: str) -> ValidationError:
    """Run `call`, expect a ValidationError on `field`, and check nothing was written."""
    before = (count(db, ExamAttempt), count(db, Certification), count(db, HourLog))
    with pytest.raises(ValidationError) as info:
        call()
    assert field in info.value.errors, info.value.errors
    for fragment in fragments:
        assert fragment in info.value.errors[field], info.value.errors[field]
    assert (count(db, ExamAttempt), count(db, Certification), count(db, HourLog)) == before
    return info.value


def log_entries(db: Session, who: Engineer, many: int) -> None:
    """Log `many` entries of half an hour, one a day back from yesterday."""
    for n in range(many):
        log(db, who, "FDL", "0.5", on=TODAY - dt.timedelta(days=n + 1))
