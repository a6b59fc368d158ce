"""Team readiness kept current (tracker.readiness.services.current): stored per team, never stale.

Every kind of input a team's readiness reads is changed through the services that
write it, and the team page, the organisation page and the API show the change on
the next request. TODAY (2026-11-29) is pinned in app.config.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from tests import factories
from tests.helpers import Api, count_statements, token_for
from tests.readiness.helpers import BEN_EXPIRY, FAR, Org, build_org, grow, person
from tracker.catalog.models.team_templates import TeamTemplate, TemplateSlot
from tracker.catalog.models.version import CATALOG_STAMP_KEY, CatalogVersion, bump_catalog_version
from tracker.catalog.services.snapshot import catalog_stamp
from tracker.people.services.persons import set_active, update_engineer
from tracker.progress.services.certifications import record_attempt
from tracker.readiness.models import (
    OrganisationSnapshot,
    ReadinessMark,
    ReadinessSnapshot,
    StoredReadiness,
    bump_readiness_revisions,
)
from tracker.readiness.rules import TEAMS_PER_BATCH
from tracker.readiness.services import current
from tracker.readiness.services.current import any_stale, refresh
from tracker.readiness.services.members import load_members
from tracker.readiness.services.organisation import summary_rows

TODAY = factories.TODAY

pytestmark = pytest.mark.usefixtures("pinned_today")


@pytest.fixture
def org(db: Session) -> Org:
    """Alpha (2 of 4: Ada, Ben) with Dee, an operations engineer without certifications."""
    found = build_org(db)
    person(db, "Dee", found.alpha)
    found.tokens = {"admin": token_for(db, found.admin)}
    return found


def marks(db: Session) -> set[tuple[int, int]]:
    """Return the (team id, revision) marks outstanding."""
    return {tuple(row) for row in db.execute(select(ReadinessMark.team_id, ReadinessMark.revision))}


def shown(client: FlaskClient, api: Api, org: Org) -> dict[str, tuple[int, int]]:
    """Alpha's (filled, total) as the team page, the organisation page and the API show it."""
    team = client.get(f"/teams/{org.alpha.id}").get_data(as_text=True)
    headline = re.search(r"(\d+) of (\d+) seats filled", team)
    assert headline is not None
    organisation = client.get("/organisation").get_data(as_text=True)
    row = re.search(
        rf'href="/teams/{org.alpha.id}">Alpha</a></th><td>[^<]*</td><td>[^<]*</td>'
        r"<td>(\d+) of (\d+)<",
        organisation,
    )
    assert row is not None
    token = org.tokens["admin"]
    readiness = api.get(f"/api/v1/teams/{org.alpha.id}/readiness", token).get_json()
    (listed,) = api.get("/api/v1/organisation?name=alpha", token).get_json()["items"]
    return {
        "team page": (int(headline[1]), int(headline[2])),
        "organisation page": (int(row[1]), int(row[2])),
        "API: the team's readiness": (readiness["filled"], readiness["total"]),
        "API: the organisation": (listed["filled"], listed["total"]),
    }


def _earned(db: Session, app: Flask, org: Org, api: Api) -> None:
    dee = next(m for m in org.alpha.members if m.name == "Dee")
    record_attempt(db, dee, factories.exam(db, "NCA-AIIO"), TODAY, 85, True, TODAY)


def _renewed(db: Session, app: Flask, org: Org, api: Api) -> None:
    # Cy's NCA-AIIO expired; passing it again renews it.
    record_attempt(db, org.cy, factories.exam(db, "NCA-AIIO"), TODAY, 90, True, TODAY)


def _recorded_over_the_api(db: Session, app: Flask, org: Org, api: Api) -> None:
    dee = next(m for m in org.alpha.members if m.name == "Dee")
    response = api.post(
        "/api/v1/credentials",
        org.tokens["admin"],
        {
            "engineer": dee.id,
            "code": "NCA-AIIO",
            "issued_on": TODAY.isoformat(),
            "evidence": "certificate 123",
        },
    )
    assert response.status_code == 201, response.get_json()


def _joined(db: Session, app: Flask, org: Org, api: Api) -> None:
    newcomer = person(db, "Newcomer", None, certs={"NCA-AIIO": FAR})
    update_engineer(db, newcomer, org.admin, TODAY, team_id=org.alpha.id)


def _left(db: Session, app: Flask, org: Org, api: Api) -> None:
    update_engineer(db, org.ben, org.admin, TODAY, team_id=None)


def _moved(db: Session, app: Flask, org: Org, api: Api) -> None:
    update_engineer(db, org.ben, org.admin, TODAY, team_id=org.bravo.id)


def _level(db: Session, app: Flask, org: Org, api: Api) -> None:
    update_engineer(db, org.ben, org.admin, TODAY, level=4)


def _job_role(db: Session, app: Flask, org: Org, api: Api) -> None:
    update_engineer(db, org.ben, org.admin, TODAY, job_roles=["storage"])


def _deactivated(db: Session, app: Flask, org: Org, api: Api) -> None:
    set_active(db, org.ben, False, org.admin)


def _fleet(db: Session, app: Flask, org: Org, api: Api) -> None:
    org.alpha.gpus = 500  # medium: 10 seats; Ada and Ben fill two
    db.flush()


def _template(db: Session, app: Flask, org: Org, api: Api) -> None:
    small = db.scalars(select(TeamTemplate).where(TeamTemplate.code == "small")).one()
    operations = next(s for s in small.slots if s.job_role.code == "operations")
    operations.count = 3
    db.flush()


def _next_days(db: Session, app: Flask, org: Org, api: Api) -> None:
    # Ben's NCA-AIIO is valid through its expiry day, lapsed the day after.
    app.config["TODAY"] = BEN_EXPIRY + dt.timedelta(days=1)


CHANGES: dict[str, tuple[Callable[..., None], tuple[int, int]]] = {
    "a certification earned": (_earned, (3, 4)),
    "a certification renewed": (_renewed, (3, 4)),
    "a certification recorded over the API": (_recorded_over_the_api, (3, 4)),
    "someone joins": (_joined, (3, 4)),
    "someone leaves": (_left, (1, 4)),
    "someone moves to another team": (_moved, (1, 4)),
    "a level changes": (_level, (1, 4)),
    "job roles change": (_job_role, (1, 4)),
    "someone is deactivated": (_deactivated, (1, 4)),
    "the fleet grows into another band": (_fleet, (2, 10)),
    "the catalog's template changes": (_template, (2, 5)),
    "a certification lapses at the day boundary": (_next_days, (1, 4)),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_each_kind_of_change_shows_on_the_next_request(
    client: FlaskClient, auth, db: Session, app: Flask, org: Org, change: str
) -> None:
    api = Api(client)
    auth.sign_in(org.admin)
    before = shown(client, api, org)
    assert before == dict.fromkeys(before, (2, 4))
    make, expected = CHANGES[change]

    make(db, app, org, api)

    assert shown(client, api, org) == dict.fromkeys(before, expected)


def test_only_the_teams_whose_inputs_moved_are_recomputed(db: Session, org: Org) -> None:
    assert refresh(db, TODAY) == 2
    assert not any_stale(db, TODAY)
    assert refresh(db, TODAY) == 0
    update_engineer(db, org.ben, org.admin, TODAY, level=4)
    assert any_stale(db, TODAY)
    assert refresh(db, TODAY) == 1
    stored = db.get(StoredReadiness, org.alpha.id)
    db.refresh(stored)
    db.refresh(org.alpha)
    assert (stored.filled, stored.total, stored.revision) == (1, 4, org.alpha.readiness_revision)
    # A new day: every team again (certifications lapse, the 90-day window moves).
    assert refresh(db, TODAY + dt.timedelta(days=1)) == 2


def test_a_row_stored_from_an_older_revision_is_recomputed(
    db: Session, org: Org, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The revision is read before the members: a change committed in between leaves the
    row one revision behind, and that revision's mark with it, so the next reader
    recomputes it."""
    refresh(db, TODAY)
    update_engineer(db, org.ben, org.admin, TODAY, level=4)

    def members_after_a_racer(session: Session, *args: object) -> object:
        bump_readiness_revisions(session, {org.alpha.id}, set())
        return load_members(session, *args)

    monkeypatch.setattr(current, "load_members", members_after_a_racer)
    assert refresh(db, TODAY) == 1
    monkeypatch.undo()
    db.refresh(org.alpha)
    stored = db.get(StoredReadiness, org.alpha.id)
    db.refresh(stored)
    assert stored.revision == org.alpha.readiness_revision - 1
    assert marks(db) == {(org.alpha.id, org.alpha.readiness_revision)}
    assert any_stale(db, TODAY)
    assert any_stale(db, TODAY, [org.alpha.id])
    assert not any_stale(db, TODAY, [org.bravo.id])
    assert refresh(db, TODAY) == 1
    assert marks(db) == set()
    assert not any_stale(db, TODAY)


def test_a_refresh_never_replaces_a_row_of_a_newer_revision(db: Session, org: Org) -> None:
    """A refresh that read an older revision than a racing one stored leaves its row, and
    the day's snapshot and sum the racer wrote with it."""
    refresh(db, TODAY)
    # The racer's: Alpha's row of the next revision, its snapshot and the day's sum.
    stored = db.get(StoredReadiness, org.alpha.id)
    snapshot = db.get(ReadinessSnapshot, (org.alpha.id, TODAY))
    day = db.get(OrganisationSnapshot, TODAY)
    stored.revision += 1
    stored.filled = snapshot.filled = 0
    day.filled -= 2
    db.flush()
    sums = (day.filled, day.total, day.lapsing)
    assert refresh(db, TODAY, every=True) == 2
    for row in (stored, snapshot, day):
        db.refresh(row)
    assert (stored.filled, snapshot.filled) == (0, 0)
    assert (day.filled, day.total, day.lapsing) == sums


def test_a_new_team_is_stale_until_its_row_is_stored(db: Session, org: Org) -> None:
    refresh(db, TODAY)
    assert not any_stale(db, TODAY)
    gamma = factories.team(db, gpus=8, name="Gamma")
    assert marks(db) == {(gamma.id, gamma.readiness_revision)}
    assert any_stale(db, TODAY)
    assert any_stale(db, TODAY, [gamma.id])
    assert not any_stale(db, TODAY, [org.alpha.id])
    assert refresh(db, TODAY) == 1
    assert not any_stale(db, TODAY)


@pytest.mark.parametrize("day", [TODAY - dt.timedelta(days=1), TODAY + dt.timedelta(days=1)])
def test_one_row_of_another_day_is_stale(db: Session, org: Org, day: dt.date) -> None:
    """Older or newer than today, the first or the last row by day: either is seen."""
    refresh(db, TODAY)
    refresh(db, day, team_ids=[org.bravo.id])
    assert any_stale(db, TODAY)
    assert any_stale(db, TODAY, [org.bravo.id])
    assert not any_stale(db, TODAY, [org.alpha.id])
    assert refresh(db, TODAY) == 1
    assert not any_stale(db, TODAY)


@pytest.mark.parametrize("stamp", ["", "zzzz"])
def test_one_row_of_another_catalog_is_stale(db: Session, org: Org, stamp: str) -> None:
    """A stamp sorting before or after the catalog's, on the day's first or last row."""
    refresh(db, TODAY)
    stored = db.get(StoredReadiness, org.bravo.id)
    stored.catalog_stamp = stamp
    db.flush()
    assert any_stale(db, TODAY)
    assert any_stale(db, TODAY, [org.bravo.id])
    assert not any_stale(db, TODAY, [org.alpha.id])
    assert refresh(db, TODAY) == 1
    assert not any_stale(db, TODAY)


def test_deactivated_people_are_out_of_every_count(db: Session, org: Org) -> None:
    """Ben fills a seat and his NCA-AIIO lapses within 90 days: once he is deactivated
    neither counts, and the organisation's sum follows."""
    refresh(db, TODAY)
    (alpha,) = [r for r in summary_rows(db) if r.team_id == org.alpha.id]
    assert (alpha.filled, alpha.lapsing) == (2, 1)
    set_active(db, org.ben, False, org.admin)
    refresh(db, TODAY)
    (alpha,) = [r for r in summary_rows(db) if r.team_id == org.alpha.id]
    assert (alpha.filled, alpha.lapsing) == (1, 0)
    day = db.get(OrganisationSnapshot, TODAY)
    db.refresh(day)
    assert (day.teams, day.filled, day.total, day.lapsing) == (2, 2, 8, 0)


def test_each_refresh_writes_the_days_snapshot_once_per_team(db: Session, org: Org) -> None:
    refresh(db, TODAY)
    update_engineer(db, org.ben, org.admin, TODAY, level=4)
    refresh(db, TODAY)
    refresh(db, TODAY + dt.timedelta(days=1))
    rows = db.execute(
        select(ReadinessSnapshot.day, ReadinessSnapshot.filled)
        .where(ReadinessSnapshot.team_id == org.alpha.id)
        .order_by(ReadinessSnapshot.day)
    ).all()
    # The day's last state: Ben's level change replaced the morning's 2.
    assert [tuple(r) for r in rows] == [(TODAY, 1), (TODAY + dt.timedelta(days=1), 1)]


def test_two_refreshes_of_the_same_teams_both_succeed(db: Session, org: Org) -> None:
    """A second writer of the same rows (a racing request) replaces them: no conflict."""
    refresh(db, TODAY)
    assert refresh(db, TODAY, every=True) == 2
    assert db.scalar(select(func.count()).select_from(StoredReadiness)) == 2


def test_bringing_teams_up_to_date_costs_queries_per_batch_not_per_team(
    db: Session, org: Org
) -> None:
    """A batch of TEAMS_PER_BATCH teams: its members in two queries, the trend's
    snapshots in one, the day's snapshots so far (what the organisation's sum moves by)
    in one, the rows, the snapshots and the marks covered written in one statement each."""
    for n in range(TEAMS_PER_BATCH - 2):
        grow(db, factories.team(db, gpus=100 + n, name=f"Batch {n:02d}"), 3, f"B{n}-")
    one_batch, _ = count_statements(db, lambda: refresh(db, TODAY))
    for n in range(TEAMS_PER_BATCH):
        grow(db, factories.team(db, gpus=200 + n, name=f"More {n:02d}"), 3, f"M{n}-")
    # Each count reads the catalog's stamp again, as a new request would.
    db.info.pop(CATALOG_STAMP_KEY, None)
    two_batches, changed = count_statements(db, lambda: refresh(db, TODAY, every=True))
    assert changed == 2 * TEAMS_PER_BATCH
    assert two_batches - one_batch == 7


def test_a_catalog_without_templates_stores_nothing(db: Session, org: Org) -> None:
    for template in db.scalars(select(TeamTemplate)):
        for slot in list(template.slots):
            db.delete(slot)
        db.delete(template)
    db.flush()
    assert db.scalar(select(func.count()).select_from(TemplateSlot)) == 0
    assert refresh(db, TODAY) == 0


def test_the_stale_check_reads_the_catalogs_stamp_for_the_page(db: Session, org: Org) -> None:
    """Checking the stored readiness is current reads the catalog's stamp in the same
    query: the catalog the page reads next costs none, until the catalog changes."""
    refresh(db, TODAY)
    db.info.pop(CATALOG_STAMP_KEY, None)
    checked, stale = count_statements(db, lambda: any_stale(db, TODAY))
    assert (checked, stale) == (1, False)
    read, stamp = count_statements(db, lambda: catalog_stamp(db))
    assert read == 0
    assert stamp == db.scalar(select(CatalogVersion.stamp))
    bump_catalog_version(db)
    assert count_statements(db, lambda: catalog_stamp(db))[0] == 1
