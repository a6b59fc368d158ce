"""schemathesis against a served tracker, as each role: every check, every phase, no failure.

A real `tracker serve` answers on a demo organisation of its own SQLite file, which
the fuzzer may change freely (it adds people, hours, webhooks...). For an engineer, a
manager, an admin and an admin's read-only token, `st run` reads GET
/api/v1/openapi.json and runs the coverage, fuzzing and stateful phases (the last
along the document's links) with every check, as tests/api/schemathesis.toml sets
them. FUZZ_EXAMPLES cases per operation (10 here; `make fuzz` runs 200). FUZZ_SEED
picks the cases: the suite's own seed unless set, so that a run fails for what
changed, never for a draw; `random` (what `make fuzz` gives) draws one, and a
failure names it to run again.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import re
import subprocess
import sys
import tomllib
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from tests.live import LiveServer, run_tracker, start_server, tracker_env
from tracker.catalog.models.credentials import Course, Credential, Exam
from tracker.catalog.models.skills import Speciality
from tracker.db import make_engine, make_session_factory, session_scope
from tracker.people.models import Engineer
from tracker.people.rules import READ_SCOPE, WRITE_SCOPE
from tracker.people.services.accounts import create_token

pytestmark = [pytest.mark.once, pytest.mark.xdist_group("fuzz")]

CONFIG = Path(__file__).with_name("schemathesis.toml")
ST = str(Path(sys.executable).with_name("st"))
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES") or 10)
SEED = os.environ.get("FUZZ_SEED") or "20261203"
# Whose tokens: the first demo person of each access role, and a read token of the
# admin's (every read it may make, every write refused).
ROLES = {
    "engineer": ("engineer", WRITE_SCOPE),
    "manager": ("manager", WRITE_SCOPE),
    "admin": ("admin", WRITE_SCOPE),
    "read token": ("admin", READ_SCOPE),
}


@dataclass
class Served:
    """The served tracker and a token of each role, by role."""

    server: LiveServer
    tokens: dict[str, str]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """`tracker serve` on a demo organisation of its own, and a token of each role."""
    folder = tmp_path_factory.mktemp("fuzz")
    database = f"sqlite:///{folder / 'tracker.db'}"
    env = tracker_env(database)
    run_tracker(env, "init", "--demo")
    engine = make_engine(database)
    try:
        with session_scope(make_session_factory(engine)) as session:
            tokens = {
                role: create_token(session, _first(session, access), "fuzz", scope)[1]
                for role, (access, scope) in ROLES.items()
            }
    finally:
        engine.dispose()
    server = start_server(env, folder / "serve.log", workers=2)
    try:
        yield Served(server, tokens)
    finally:
        server.stop()


def _first(session: Session, access_role: str) -> Engineer:
    found = session.scalars(
        select(Engineer).where(Engineer.access_role == access_role).order_by(Engineer.id)
    ).first()
    assert found is not None, f"the demo has no {access_role}"
    return found


def _get(served: Served, path: str, token: str | None = None) -> dict:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    request = urllib.request.Request(served.server.url + path, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def _settings() -> dict:
    with CONFIG.open("rb") as config:
        return tomllib.load(config)


def test_the_fuzzers_codes_are_in_the_catalog(db: Session) -> None:
    """The values the fuzzer mixes in name what the seed catalog holds."""
    values = {name: set(d["values"]) for name, d in _settings()["dictionaries"].items()}
    exams = select(Credential.code).join(Exam, Exam.credential_id == Credential.id)
    assert values["courses"] <= set(db.scalars(select(Course.code)))
    assert values["exams"] <= set(db.scalars(exams))
    assert values["credentials"] <= set(db.scalars(select(Credential.code)))
    assert values["specialities"] <= set(db.scalars(select(Speciality.code)))


@pytest.mark.parametrize("role", ROLES)
def test_the_api_keeps_to_its_document(served: Served, role: str, tmp_path: Path) -> None:
    token = served.tokens[role]
    me = _get(served, "/api/v1/me", token)
    days = {dt.date.fromisoformat(d) for d in _settings()["dictionaries"]["days"]["values"]}
    hired = dt.date.fromisoformat(me["hired_on"])
    # Days an entry may be logged on: update [dictionaries.days] when the demo moves past them.
    assert all(hired <= day < dt.date.today() for day in days), (hired, sorted(days))

    seed = random.SystemRandom().randrange(2**31) if SEED == "random" else int(SEED)
    document = f"{served.server.url}/api/v1/openapi.json"
    command = [
        ST, "--config-file", str(CONFIG), "--no-color", "run", document,
        "--max-examples", str(EXAMPLES), "--seed", str(seed),
    ]  # fmt: skip
    result = subprocess.run(
        command,
        env={**os.environ, "FUZZ_TOKEN": token},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    log = served.server.log.read_text(errors="replace")
    assert "Traceback" not in log, log[-8000:]
    assert result.returncode == 0, (
        f"schemathesis as {role} found failures; FUZZ_SEED={seed} runs it again\n"
        f"{result.stdout[-30000:]}\n{result.stderr[-5000:]}"
    )
    # Every operation of the document tested, and links followed.
    operations = sum(
        len(methods) for methods in _get(served, "/api/v1/openapi.json")["paths"].values()
    )
    assert re.search(rf"Tested: {operations}\b", result.stdout), result.stdout[-5000:]
    links = re.search(r"API Links: +(\d+) covered", result.stdout)
    assert links and int(links.group(1)) > 0, result.stdout[-5000:]
