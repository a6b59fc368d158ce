"""The benchmarks' scratch databases: PostgreSQL when it answers, else a SQLite file."""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/tracker_bench"


def postgres_reachable(url: str) -> bool:
    """Return whether the PostgreSQL server of `url` answers (its maintenance database)."""
    try:
        import psycopg
    except ImportError:
        return False
    u = make_url(url)
    try:
        psycopg.connect(
            host=u.host or "127.0.0.1",
            port=u.port or 5432,
            user=u.username or "postgres",
            password=u.password,
            dbname="postgres",
            connect_timeout=3,
        ).close()
    except Exception:
        return False
    return True


def _pg_admin(url: str, *statements: str) -> None:
    import psycopg

    u = make_url(url)
    with psycopg.connect(
        host=u.host or "127.0.0.1",
        port=u.port or 5432,
        user=u.username or "postgres",
        password=u.password,
        dbname="postgres",
        autocommit=True,
    ) as conn:
        for statement in statements:
            conn.execute(statement)


@dataclass
class Database:
    """A scratch database of the benchmarks: PostgreSQL when reachable, else a SQLite file."""

    url: str
    kind: str
    _tmp: str | None = None

    @classmethod
    def choose(cls, name: str = "tracker_bench") -> Database:
        url = os.environ.get("TRACKER_BENCH_DATABASE_URL") or DEFAULT_PG_URL.replace(
            "tracker_bench", name
        )
        if url.startswith("postgresql") and postgres_reachable(url):
            return cls(url, "postgresql")
        if url.startswith("sqlite"):
            return cls(url, "sqlite")
        tmp = tempfile.mkdtemp(prefix=f"{name}-")
        return cls(f"sqlite:///{tmp}/{name}.db", "sqlite", tmp)

    @property
    def label(self) -> str:
        return "PostgreSQL" if self.kind == "postgresql" else "SQLite"

    def create(self) -> None:
        """Drop and create the database empty."""
        if self.kind == "postgresql":
            name = make_url(self.url).database
            _pg_admin(
                self.url,
                f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)',
                f'CREATE DATABASE "{name}"',
            )
        else:
            path = Path(make_url(self.url).database)
            path.parent.mkdir(parents=True, exist_ok=True)
            for suffix in ("", "-wal", "-shm", ".scheduler.lock"):
                Path(str(path) + suffix).unlink(missing_ok=True)

    def drop(self) -> None:
        if self.kind == "postgresql":
            name = make_url(self.url).database
            _pg_admin(self.url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        else:
            path = Path(make_url(self.url).database)
            for suffix in ("", "-wal", "-shm", ".scheduler.lock"):
                Path(str(path) + suffix).unlink(missing_ok=True)
            if self._tmp:
                shutil.rmtree(self._tmp, ignore_errors=True)


def settle(url: str) -> None:
    """Vacuum, analyze and checkpoint (PostgreSQL), so that no background work wakes up
    in the middle of the next measurement: autovacuum after the rows the previous
    group wrote, or a checkpoint (and the full-page writes after it).

    Also so that index-only scans work on the fresh rows.
    """
    if not url.startswith("postgresql"):
        return
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.execute(text("VACUUM ANALYZE"))
            conn.execute(text("CHECKPOINT"))
    finally:
        engine.dispose()
