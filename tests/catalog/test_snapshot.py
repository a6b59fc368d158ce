"""The per-process copy of the catalog (tracker.catalog.services.snapshot) and its version stamp.

Every catalog write changes the stamp in the writing transaction; a process
keeps one copy per stamp and reads the stamp once a request, so an edit made
by one server worker is seen by the next request in every other.
"""

from __future__ import annotations

import datetime as dt
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from decimal import Decimal

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from tests import factories
from tests.factories import SEED
from tests.helpers import count_statements, sign_in
from tracker import create_app
from tracker.catalog.models.credentials import Course, Credential
from tracker.catalog.models.team_templates import TemplateSlot
from tracker.catalog.services.reads import paths_with_courses
from tracker.catalog.services.seed_loading import load_seed
from tracker.catalog.services.snapshot import (
    catalog_snapshot,
    catalog_stamp,
    forget_snapshots,
    load_snapshot,
)
from tracker.config import PROJECT_ROOT
from tracker.db import make_engine, run_migrations, session_scope
from tracker.people.models import Team
from tracker.readiness.services.members import load_templates


def slot_of(db: Session, template: str, title: str) -> TemplateSlot:
    return next(
        s for t in load_templates(db) if t.code == template for s in t.slots if s.title == title
    )


# --- the stamp ----------------------------------------------------------------


def test_a_catalog_write_changes_the_stamp_and_other_writes_do_not(db: Session) -> None:
    stamp = catalog_stamp(db)
    assert stamp

    who = factories.engineer(db)
    factories.certification(db, who, "NCA-AIIO", dt.date(2026, 1, 1), dt.date(2028, 1, 1))
    db.flush()
    assert catalog_stamp(db) == stamp  # engineers' records are not the catalog

    factories.course(db, "FDL").hours = Decimal(9)
    assert catalog_stamp(db) != stamp  # the read flushes the edit first, which bumps


def _add_slot_credential(db: Session) -> None:
    # A collection: the slot's credentials (an association table row).
    slot = slot_of(db, "small", "Operations Engineer")
    slot.credentials.append(factories.credential(db, "CKA"))


def _add_credential(db: Session) -> None:
    db.add(Credential(code="NEW-ONE", name="New", kind="external"))


def _update_statement(db: Session) -> None:
    # An UPDATE statement rather than an object.
    db.execute(update(Course).where(Course.code == "FDL").values(title="FDL 2"))


@pytest.mark.parametrize(
    "edit",
    [_add_slot_credential, _add_credential, _update_statement],
    ids=["collection", "insert", "update-statement"],
)
def test_every_kind_of_catalog_write_changes_the_stamp(db: Session, edit) -> None:
    stamp = catalog_stamp(db)
    edit(db)
    db.flush()
    assert catalog_stamp(db) != stamp


def test_deleting_a_catalog_row_changes_the_stamp(db: Session) -> None:
    spare = Course(code="SPARE", title="Spare", hours=Decimal(1))
    db.add(spare)
    db.flush()
    stamp = catalog_stamp(db)
    db.delete(spare)
    db.flush()
    assert catalog_stamp(db) != stamp


def test_a_rolled_back_write_brings_the_old_stamp_and_catalog_back(db: Session) -> None:
    before = catalog_snapshot(db)
    nested = db.begin_nested()
    slot_of(db, "small", "Operations Engineer").title = "Renamed"
    edited = catalog_snapshot(db)
    assert edited.stamp != before.stamp
    assert "Renamed" in [s.title for s in edited.templates[0].slots]
    nested.rollback()

    assert catalog_stamp(db) == before.stamp
    assert catalog_snapshot(db) is before


def test_the_stamp_is_read_once_a_transaction_until_a_catalog_write(db: Session) -> None:
    stamp = catalog_stamp(db)
    again, same = count_statements(db, lambda: catalog_stamp(db))
    assert (again, same) == (0, stamp)
    factories.course(db, "FDL").hours = Decimal(7)
    assert catalog_stamp(db) != stamp  # pending catalog writes: read (and flushed) again


# --- the copy ------------------------------------------------------------------


def test_the_copy_is_kept_per_stamp(db: Session) -> None:
    forget_snapshots()
    first = catalog_snapshot(db)
    assert catalog_snapshot(db) is first
    slot_of(db, "small", "Operations Engineer").min_level = 3
    second = catalog_snapshot(db)
    assert second is not first
    assert [s.min_level for s in second.templates[0].slots if s.title == "Operations Engineer"] == [
        3
    ]


def test_the_copy_reads_like_the_mapped_catalog(db: Session) -> None:
    """Templates, slots, credentials (groups too) and paths, in the ORM's order."""
    snapshot = load_snapshot(db)

    def credential(c) -> tuple:
        return (c.id, c.code, c.name, c.issuer, c.kind, c.origin, c.validity_months)

    templates = load_templates(db)
    assert [t.code for t in snapshot.templates] == [t.code for t in templates]
    for mine, theirs in zip(snapshot.templates, templates, strict=True):
        assert (mine.id, mine.name, mine.min_gpus, mine.max_gpus, mine.slot_total) == (
            theirs.id,
            theirs.name,
            theirs.min_gpus,
            theirs.max_gpus,
            theirs.slot_total,
        )
        assert [credential(c) for c in mine.team_credentials] == [
            credential(c) for c in theirs.team_credentials
        ]
        for s, o in zip(mine.slots, theirs.slots, strict=True):
            assert (s.id, s.position, s.title, s.count, s.min_level, s.max_level) == (
                o.id,
                o.position,
                o.title,
                o.count,
                o.min_level,
                o.max_level,
            )
            assert (s.job_role.code, s.job_role.name) == (o.job_role.code, o.job_role.name)
            assert [credential(c) for c in s.credentials] == [credential(c) for c in o.credentials]
            assert [c.satisfying_ids() for c in s.credentials] == [
                c.satisfying_ids() for c in o.credentials
            ]
    for c in db.scalars(select(Credential)):
        mine = snapshot.credentials[c.id]
        assert credential(mine) == credential(c)
        assert mine.satisfying_ids() == c.satisfying_ids()
        assert [m.code for m in mine.members] == [m.code for m in c.members]
    assert any(c.kind == "group" and c.members for c in snapshot.credentials.values())

    paths = paths_with_courses(db)
    assert [p.code for p in snapshot.paths] == [p.code for p in paths]
    for mine, theirs in zip(snapshot.paths, paths, strict=True):
        assert (mine.id, mine.name, mine.target_months) == (
            theirs.id,
            theirs.name,
            theirs.target_months,
        )
        assert [(c.id, c.code, c.hours) for c in mine.courses] == [
            (c.id, c.code, c.hours) for c in theirs.courses
        ]
        assert mine.total_hours == theirs.total_hours
        if theirs.exam is None:
            assert mine.exam is None
        else:
            assert mine.exam.credential is snapshot.credentials[theirs.exam.credential_id]


# --- two server workers ------------------------------------------------------------


@pytest.fixture
def seeded_url(fresh_url: str) -> Iterator[str]:
    """A database of this test's own, migrated and seeded, with an admin and a team."""
    run_migrations(fresh_url)
    engine = make_engine(fresh_url)
    try:
        with session_scope(sessionmaker(bind=engine)) as session:
            load_seed(session, SEED)
        with session_scope(sessionmaker(bind=engine, expire_on_commit=False)) as session:
            admin = factories.engineer(
                session, name="Ada Admin", email="ada@example.com", access_role="admin"
            )
            crew = factories.team(session, gpus=64, name="Crew", manager=admin)
            factories.engineer(session, name="Olga Ops", team=crew)
        yield fresh_url
    finally:
        engine.dispose()


def _worker(url: str):
    config = {"DATABASE_URL": url, "SECRET_KEY": "x", "WTF_CSRF_ENABLED": False}
    app = create_app({**config, "TODAY": factories.TODAY})
    client = app.test_client()
    sign_in(client, "ada@example.com")  # an admin: the password, then the app's code
    return app, client


# Another worker, in a process of its own: an admin creates an internal track.
OTHER_WORKER = textwrap.dedent(
    """
    import sys
    from tests.helpers import count_statements, sign_in
    from tracker import create_app

    app = create_app({"DATABASE_URL": sys.argv[1], "SECRET_KEY": "x", "WTF_CSRF_ENABLED": False})
    client = app.test_client()
    sign_in(client, "ada@example.com", sys.argv[2])
    response = client.post("/admin/catalog", data={
        "exam_code": "ACME-OPS", "exam_name": "ACME GPU Operations", "validity_months": "12",
        "experience_months": "0", "retake_wait_days": "30",
        "courses": "ACME-101 | Our cluster runbook | 6", "path_code": "ACME-PATH",
        "path_name": "ACME operations path", "target_months": "2",
    })
    assert response.status_code == 302, response.get_data(as_text=True)
    app.extensions["tracker.engine"].dispose()
    """
)


def _without_csrf_tokens(html: str) -> str:
    """Return the page without its CSRF tokens, which carry the second they were made."""
    return re.sub(r'name="csrf_token" value="[^"]*"', 'name="csrf_token"', html)


def test_a_catalog_edit_in_one_worker_is_seen_by_the_next_request_in_another(
    seeded_url: str,
) -> None:
    app, client = _worker(seeded_url)
    try:
        with app.extensions["tracker.sessions"]() as session:
            crew_id = session.scalars(select(Team.id)).one()
        page = f"/teams/{crew_id}"
        before = _without_csrf_tokens(client.get(page).get_data(as_text=True))
        # Served from the copy: the same page (a token made a second later aside).
        assert _without_csrf_tokens(client.get(page).get_data(as_text=True)) == before
        assert "ACME-OPS" not in before and "ACME operations path" not in before

        subprocess.run(
            [sys.executable, "-c", OTHER_WORKER, seeded_url, factories.PASSWORD],
            cwd=PROJECT_ROOT,
            check=True,
            timeout=120,
        )

        after = client.get(page).get_data(as_text=True)
        # The new path's exam is a heat map column, and its progress is shown.
        assert 'title="ACME GPU Operations">ACME-OPS</th>' in after
        assert "ACME operations path" in after
    finally:
        app.extensions["tracker.engine"].dispose()
