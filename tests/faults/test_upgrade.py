"""An upgrade from the first release's schema, holding a whole organisation, keeps every row.

tests/test_migrations.py upgrades a handful of hand-written rows revision by
revision and checks the counts. Here the first release's database holds the
demo organisation with its history, tokens and outbox (every table of that
schema that the tracker fills), the upgrade is the command an operator runs,
`tracker init`, and every value of every row must be as it was. Then the
upgraded tracker serves it: a person signs in and sees their hours.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from alembic import command
from alembic.script import ScriptDirectory

from tests.live import free_port, run_tracker, tracker_env
from tests.migrations import alembic_config
from tracker import create_app

# What the first release's tables could hold of a head database's rows: one
# bonus amount per credential (amounts have a history since), the latest; no
# copy of a notice in another language (the demo's people read two languages).
FIRST_RELEASE_HELD = {
    "certification_bonuses": "WHERE NOT EXISTS (SELECT 1 FROM certification_bonuses AS later"
    " WHERE later.credential_id = certification_bonuses.credential_id"
    " AND later.effective_on > certification_bonuses.effective_on)",
    "notifications": "WHERE kind != 'copy'",
}


def _tables(connection: sqlite3.Connection) -> dict[str, list[str]]:
    names = [
        row[0]
        for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            " AND name != 'alembic_version' ORDER BY name"
        )
    ]
    return {
        name: [row[1] for row in connection.execute(f'PRAGMA table_info("{name}")')]
        for name in names
    }


def _dump(path: Path, columns: dict[str, list[str]]) -> dict[str, list[tuple]]:
    """Every row of the given tables, only the given columns, as SQLite stores them."""
    with sqlite3.connect(path) as connection:
        return {
            table: sorted(
                connection.execute(
                    "SELECT " + ", ".join(f'"{c}"' for c in names) + f' FROM "{table}"'
                ).fetchall(),
                key=repr,
            )
            for table, names in columns.items()
        }


def _organisation(folder: Path) -> Path:
    """A head database with the demo organisation, an API token and a queued outbox."""
    path = folder / "source.db"
    env = tracker_env(f"sqlite:///{path}")
    run_tracker(env, "init", "--demo")
    run_tracker(env, "token", "create", "lena@example.com", "--name", "hr sync")
    down = {**env, "TRACKER_SMTP_PORT": str(free_port()), "TRACKER_SMTP_TIMEOUT": "2"}
    run_tracker(down, "remind")
    return path


def test_an_upgrade_from_the_first_release_keeps_every_value(tmp_path: Path):
    source = _organisation(tmp_path)
    target = tmp_path / "first-release.db"
    cfg = alembic_config(f"sqlite:///{target}")
    first = list(ScriptDirectory.from_config(cfg).walk_revisions())[-1]
    command.upgrade(cfg, first.revision)

    # Copy the organisation into the first release's tables, column by column.
    with sqlite3.connect(source) as old, sqlite3.connect(target) as new:
        source_columns = _tables(old)
        first_columns = _tables(new)
        for table, names in first_columns.items():
            shared = [c for c in names if c in source_columns.get(table, [])]
            rows = old.execute(
                "SELECT "
                + ", ".join(f'"{c}"' for c in shared)
                + f' FROM "{table}" '
                + FIRST_RELEASE_HELD.get(table, "")
            ).fetchall()
            new.executemany(
                f'INSERT INTO "{table}" ('
                + ", ".join(f'"{c}"' for c in shared)
                + ") VALUES ("
                + ", ".join("?" for _ in shared)
                + ")",
                rows,
            )
        assert new.execute("PRAGMA foreign_key_check").fetchall() == []
    before = _dump(target, first_columns)
    filled = {table for table, rows in before.items() if rows}
    assert {"engineers", "teams", "hour_logs", "exam_attempts", "certifications"} <= filled
    assert {"api_tokens", "notifications", "audit_events"} <= filled

    # The operator's upgrade: `tracker init` migrates to head and reloads the catalog.
    env = tracker_env(f"sqlite:///{target}")
    output = run_tracker(env, "init")
    assert "database at revision" in output

    after = _dump(target, first_columns)
    for table, rows in before.items():
        assert after[table] == rows, f"the upgrade changed or lost rows of {table}"

    # The upgraded tracker serves the old data: Lena signs in and sees her hours.
    app = create_app({"DATABASE_URL": f"sqlite:///{target}", "SECRET_KEY": "x"})
    try:
        client = app.test_client()
        token_page = client.get("/login").get_data(as_text=True)
        token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', token_page).group(1)
        response = client.post(
            "/login",
            data={"email": "lena@example.com", "password": "tracker-demo", "csrf_token": token},
        )
        assert response.status_code == 302, response.get_data(as_text=True)
        page = client.get("/dashboard").get_data(as_text=True)
        assert "Lena Ortiz" in page and "Certified NCA-AIIO" in page
        # Lena reads Spanish, and wrote her notes in it.
        hours = client.get("/hours").get_data(as_text=True)
        assert hours.count("sesión de estudio de demostración") > 10
    finally:
        app.extensions["tracker.engine"].dispose()
