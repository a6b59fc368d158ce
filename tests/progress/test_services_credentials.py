"""Recording a credential by hand (services.certifications.record_credential) and its refusals."""

from __future__ import annotations

import datetime as dt

import pytest

from tests import factories
from tests.progress.helpers import TODAY, D, assert_refused
from tracker.progress.services.certifications import (
    credential_for_entry,
    record_attempt,
    record_credential,
)
from tracker.progress.services.validity import Status, status_on


def test_record_external_credential_with_expiry_as_entered(db):
    """External credentials: "recorded with an issue date and, where the holder enters
    one, an expiry"."""
    who = factories.engineer(db)
    cka = factories.credential(db, "CKA")
    c = record_credential(
        db, who, cka, D(2025, 3, 10), TODAY, "  cert LF-123  ", expires_on=D(2028, 3, 9)
    )
    assert c.id is not None
    assert c.earned_on == D(2025, 3, 10)
    assert c.expires_on == D(2028, 3, 9)
    assert c.evidence == "cert LF-123"
    assert c.attempt_id is None


def test_record_external_credential_without_validity_does_not_expire(db):
    """Externals in the seed have no validity: without an entered expiry, none."""
    who = factories.engineer(db)
    linux = factories.credential(db, "COMPTIA-LINUX-PLUS")
    assert linux.kind == "external"
    assert linux.validity_months is None
    c = record_credential(db, who, linux, D(2025, 3, 10), TODAY, "https://example.com/x")
    assert c.expires_on is None
    assert status_on(c, D(2099, 1, 1)) == Status.VALID


def test_record_credential_computes_expiry_from_catalog_validity(db):
    """ "entered as an external credential with evidence": an NCA-AIIO earned elsewhere
    follows the catalog validity, 2024-02-29 + 24 months = 2026-02-28."""
    who = factories.engineer(db)
    nca = factories.credential(db, "NCA-AIIO")
    assert nca.validity_months == 24
    c = record_credential(db, who, nca, D(2024, 2, 29), TODAY, "NVIDIA cert 42")
    assert c.expires_on == D(2026, 2, 28)
    # an entered expiry wins over the catalog's
    d = record_credential(
        db, who, nca, D(2025, 1, 31), TODAY, "NVIDIA cert 43", expires_on=D(2026, 1, 31)
    )
    assert d.expires_on == D(2026, 1, 31)
    assert d.renews_id == c.id


def test_record_credential_expiring_on_its_issue_day_is_accepted(db):
    who = factories.engineer(db)
    c = record_credential(
        db,
        who,
        factories.credential(db, "CKA"),
        D(2025, 3, 10),
        TODAY,
        "x",
        expires_on=D(2025, 3, 10),
    )
    assert c.expires_on == D(2025, 3, 10)


def test_record_credential_on_today_is_accepted(db):
    who = factories.engineer(db)
    c = record_credential(db, who, factories.credential(db, "RHCE"), TODAY, TODAY, "x")
    assert c.earned_on == TODAY


def test_record_credential_refuses_a_group(db):
    """A group is satisfied by its members; only a member can be held."""
    who = factories.engineer(db)
    group = factories.credential(db, "NVIDIA-ASSOCIATE+")
    assert_refused(
        db,
        lambda: record_credential(db, who, group, D(2025, 3, 10), TODAY, "x"),
        "credential",
        "NVIDIA-ASSOCIATE+",
        "group",
    )


@pytest.mark.parametrize(
    ("issued_on", "expires_on", "evidence", "field", "fragment"),
    [
        (TODAY + dt.timedelta(days=1), None, "x", "issued_on", "future"),
        (D(2025, 3, 10), D(2025, 3, 9), "x", "expires_on", "before the issue date"),
        (D(2025, 3, 10), None, "", "evidence", "required"),
        (D(2025, 3, 10), None, "   \n\t", "evidence", "required"),
    ],
)
def test_record_credential_refusals(db, issued_on, expires_on, evidence, field, fragment):
    who = factories.engineer(db)
    cka = factories.credential(db, "CKA")
    assert_refused(
        db,
        lambda: record_credential(db, who, cka, issued_on, TODAY, evidence, expires_on=expires_on),
        field,
        fragment,
    )


def test_an_exam_credential_entered_by_hand_needs_the_exams_prerequisites(db):
    """Entered by hand, NCP-AII is refused as its attempt would be: no valid NCA-AIIO
    on its issue date. A badge its issuer verified vouches for it instead."""
    who = factories.engineer(db, experience_months=24)
    ncp = factories.credential(db, "NCP-AII")
    assert_refused(
        db,
        lambda: record_credential(db, who, ncp, D(2026, 3, 1), TODAY, "NVIDIA cert 7"),
        "credential",
        "NCP-AII requires a valid NCA-AIIO",
    )
    verified = record_credential(db, who, ncp, D(2026, 3, 1), TODAY, "urn:badge:1", verified=True)
    assert verified.expires_on == D(2028, 3, 1)
    factories.certification(db, who, "NCA-AIIO", D(2025, 1, 10), D(2027, 1, 10))
    assert record_credential(db, who, ncp, D(2026, 3, 2), TODAY, "NVIDIA cert 8").id


def test_an_entered_expiry_may_not_outlast_the_catalogs_validity(db):
    who = factories.engineer(db)
    nca = factories.credential(db, "NCA-AIIO")
    assert_refused(
        db,
        lambda: record_credential(
            db, who, nca, D(2026, 11, 4), TODAY, "x", expires_on=D(2099, 1, 1)
        ),
        "expires_on",
        "NCA-AIIO is valid for 24 months: issued on 2026-11-04, it is valid through 2028-11-04"
        " at the latest",
    )
    # Sooner is the holder's to say (a certificate revoked or renewed early).
    assert record_credential(
        db, who, nca, D(2025, 12, 4), TODAY, "x", expires_on=D(2027, 12, 4)
    ).expires_on == D(2027, 12, 4)


def test_an_entered_expiry_without_a_catalog_validity_runs_at_most_ten_years(db):
    who = factories.engineer(db)
    linux = factories.credential(db, "COMPTIA-LINUX-PLUS")
    assert linux.validity_months is None
    assert_refused(
        db,
        lambda: record_credential(
            db, who, linux, D(2026, 6, 1), TODAY, "x", expires_on=D(9999, 12, 31)
        ),
        "expires_on",
        "at most 10 years after the issue date (2036-06-01)",
        "leave it empty",
    )
    assert record_credential(
        db, who, linux, D(2026, 6, 1), TODAY, "x", expires_on=D(2036, 6, 1)
    ).expires_on == D(2036, 6, 1)


def test_a_credential_is_not_dated_before_1970(db):
    who = factories.engineer(db)
    assert_refused(
        db,
        lambda: record_credential(
            db, who, factories.credential(db, "RHCE"), D(1, 6, 1), TODAY, "x"
        ),
        "issued_on",
        "must not be before 1970-01-01",
    )


def test_the_same_credential_on_the_same_day_is_recorded_once(db):
    who = factories.engineer(db)
    cka = factories.credential(db, "CKA")
    record_credential(db, who, cka, D(2026, 6, 1), TODAY, "LF-1")
    assert_refused(
        db,
        lambda: record_credential(db, who, cka, D(2026, 6, 1), TODAY, "LF-1 again"),
        "issued_on",
        "CKA earned on 2026-06-01 is recorded already",
    )
    # A pass of the exam that day counts as that day's too.
    who_else = factories.engineer(db)
    record_attempt(db, who_else, factories.exam(db, "NCA-AIIO"), D(2026, 6, 1), 90, True, TODAY)
    assert_refused(
        db,
        lambda: record_credential(
            db, who_else, factories.credential(db, "NCA-AIIO"), D(2026, 6, 1), TODAY, "x"
        ),
        "issued_on",
        "recorded already",
    )
    assert record_credential(db, who, cka, D(2026, 6, 2), TODAY, "LF-2").renews_id
    # One outside the catalog is named as it was entered.
    terraform = credential_for_entry(db, name="Terraform Associate", issuer="HashiCorp")
    record_credential(db, who, terraform, D(2026, 6, 1), TODAY, "HC-1")
    assert_refused(
        db,
        lambda: record_credential(db, who, terraform, D(2026, 6, 1), TODAY, "HC-1"),
        "issued_on",
        "Terraform Associate earned on 2026-06-01 is recorded already",
    )
