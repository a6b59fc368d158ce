"""What the benchmarks and the load test share: databases, servers, clients, memory."""

from __future__ import annotations

import datetime as dt
import http.client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import sessionmaker

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/tracker_bench"
SECRET = "bench-secret-key-shared-by-every-worker"


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


# --- databases ----------------------------------------------------------------


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


def build_organisation(db: Database, engineers: int, today: dt.date, seed: int = 1):
    """Migrate, load the catalog and generate an organisation; return the generator's report."""
    from tracker.catalog.services.seed_loading import load_seed
    from tracker.config import PROJECT_ROOT
    from tracker.db import make_engine, run_migrations, session_scope
    from tracker.demo.services.generator import generate_organisation

    db.create()
    run_migrations(db.url)
    engine = make_engine(db.url)
    try:
        with session_scope(sessionmaker(bind=engine)) as session:
            load_seed(session, PROJECT_ROOT / "seed" / "catalog.toml")
        with session_scope(sessionmaker(bind=engine)) as session:
            # The servers' secret key: the admin's app secret is encrypted with it.
            generated = generate_organisation(
                session, engineers, today, seed=seed, analyze=True, secret_key=SECRET
            )
        settle(db.url)
        return generated
    finally:
        engine.dispose()


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


def make_app(url: str, **config: object):
    from tracker import create_app

    return create_app(
        {
            "DATABASE_URL": url,
            "SECRET_KEY": SECRET,
            "BASE_URL": "http://tracker.bench",
            "WTF_CSRF_ENABLED": False,
            **config,
        }
    )


def create_tokens(url: str, count: int, seed: int = 7) -> list[tuple[int, str, dt.date]]:
    """Create API tokens for `count` active engineers; return (id, secret, hired_on)."""
    from sqlalchemy import select

    from tracker.db import make_engine, session_scope
    from tracker.people.models import Engineer
    from tracker.people.services.accounts import create_token

    engine = make_engine(url)
    try:
        with session_scope(sessionmaker(bind=engine, expire_on_commit=False)) as session:
            people = session.scalars(
                select(Engineer)
                .where(Engineer.active.is_(True), Engineer.access_role == "engineer")
                .order_by(Engineer.id)
            ).all()
            chosen = random.Random(seed).sample(list(people), min(count, len(people)))
            return [(e.id, create_token(session, e, "bench")[1], e.hired_on) for e in chosen]
    finally:
        engine.dispose()


# --- servers ------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env(url: str, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        TRACKER_DATABASE_URL=url,
        TRACKER_SECRET_KEY=SECRET,
        TRACKER_BASE_URL="http://tracker.bench",
        PYTHONPATH=str(ROOT),
    )
    env.update(extra)
    return env


class Server:
    """A gunicorn server in a subprocess (the tracker's `serve`, or the bare app)."""

    def __init__(self, argv: list[str], port: int, env: dict[str, str], probe: str) -> None:
        self.port = port
        self.process = subprocess.Popen(
            argv,
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        self._errors: list[str] = []
        threading.Thread(target=self._drain, daemon=True).start()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{argv} exited: {''.join(self._errors[-20:])}")
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                conn.request("GET", probe)
                conn.getresponse().read()
                conn.close()
                if len(self.worker_pids()) >= 1:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"{argv} did not answer on port {port}")

    def _drain(self) -> None:
        for line in self.process.stderr:
            self._errors.append(line.decode(errors="replace"))
            del self._errors[:-200]

    @classmethod
    def tracker(cls, url: str, workers: int = 2, **env: str) -> Server:
        port = free_port()
        argv = [str(BIN / "tracker"), "serve", "--port", str(port), "--workers", str(workers)]
        return cls(argv, port, server_env(url, **env), "/login")

    @classmethod
    def bare(cls, url: str, workers: int = 2) -> Server:
        port = free_port()
        argv = [
            str(BIN / "gunicorn"),
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(workers),
            # The tracker's own worker and threads, so only the app differs.
            "--worker-class",
            "tracker.server.BufferingWorker",
            "--threads",
            "8",
            "--timeout",
            "60",
            "--access-logfile",
            "-",
            "bench.bare_app:app",
        ]
        return cls(argv, port, server_env(url), "/health")

    def worker_pids(self) -> list[int]:
        path = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        try:
            return [int(p) for p in path.read_text().split()]
        except OSError:
            return []

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()

    def errors(self) -> str:
        return "".join(self._errors)


def vm_hwm_mb(pid: int) -> float | None:
    """Return a live process's peak resident set size (VmHWM) in MB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def run_measured(args: list[str], env: dict[str, str], timeout: float = 900) -> float:
    """Run `tracker ARGS` to its end in a subprocess; return its peak RSS in MB (VmHWM)."""
    with tempfile.NamedTemporaryFile(suffix=".peak") as peak:
        process = subprocess.run(
            [sys.executable, "-m", "bench.peak", peak.name, *args],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=timeout,
            check=False,
        )
        if process.returncode != 0:
            raise RuntimeError(f"tracker {args} failed: {process.stderr.decode()[-2000:]}")
        return float(Path(peak.name).read_text())


class SmtpSink:
    """A local SMTP server (aiosmtpd, in a subprocess) that accepts every message at once."""

    def __init__(self) -> None:
        self.port = free_port()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bench.smtp_sink", str(self.port)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        ready = self.process.stdout.readline()
        if not ready.startswith("ready"):
            raise RuntimeError(f"the SMTP sink did not start: {ready!r}")

    def count(self) -> int:
        self.process.stdin.write("count\n")
        self.process.stdin.flush()
        return int(self.process.stdout.readline())

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()


# --- a bounded concurrent HTTP client ------------------------------------------

Request = tuple[str, str, bytes | None, dict[str, str]]


@dataclass
class Hammered:
    """What a bounded client saw: statuses, errors, requests per second."""

    seconds: float
    statuses: Counter = field(default_factory=Counter)
    errors: Counter = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)

    @property
    def completed(self) -> int:
        return sum(self.statuses.values())

    @property
    def rps(self) -> float:
        return self.completed / self.seconds if self.seconds else 0.0

    def count(self, low: int, high: int) -> int:
        return sum(n for status, n in self.statuses.items() if low <= status < high)


def hammer(
    port: int,
    make_request: Callable[[random.Random, int], Request],
    seconds: float,
    clients: int,
    on_response: Callable[[int, Request, int, bytes], None] | None = None,
    seed: int = 11,
) -> Hammered:
    """Run `clients` threads sending requests for `seconds`; each thread keeps its connection."""
    result = Hammered(seconds)
    lock = threading.Lock()
    deadline = time.monotonic() + seconds
    start = threading.Barrier(clients + 1)

    def client(number: int) -> None:
        rng = random.Random(seed * 1000 + number)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        statuses: Counter = Counter()
        errors: Counter = Counter()
        latencies = []
        start.wait()
        while time.monotonic() < deadline:
            request = make_request(rng, number)
            method, path, body, headers = request
            began = time.perf_counter()
            try:
                conn.request(method, path, body=body, headers=headers)
                response = conn.getresponse()
                payload = response.read()
            except (OSError, http.client.HTTPException) as exc:
                errors[type(exc).__name__] += 1
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                continue
            latencies.append(time.perf_counter() - began)
            statuses[response.status] += 1
            if on_response is not None:
                on_response(number, request, response.status, payload)
            if response.getheader("Connection", "").lower() == "close":
                conn.close()
        conn.close()
        with lock:
            result.statuses.update(statuses)
            result.errors.update(errors)
            result.latencies.extend(latencies)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    start.wait()
    began = time.monotonic()
    for t in threads:
        t.join()
    result.seconds = time.monotonic() - began
    return result


def hours_request(tokens, course: str, today: dt.date, spread_days: int = 365):
    """Return a request maker: POST /api/v1/hours of 0.25 h on a random day for a random token."""

    def make(rng: random.Random, client: int) -> Request:
        _, secret, hired_on = tokens[rng.randrange(len(tokens))]
        first = max(hired_on, today - dt.timedelta(days=spread_days))
        day = first + dt.timedelta(days=rng.randint(0, max(0, (today - first).days)))
        body = json.dumps(
            {"course": course, "date": day.isoformat(), "hours": 0.25, "note": "bench"}
        ).encode()
        return (
            "POST",
            "/api/v1/hours",
            body,
            {"Authorization": f"Bearer {secret}", "Content-Type": "application/json"},
        )

    return make


def sign_in(port: int, email: str, password: str) -> str:
    """Sign in through the form of a running server (with its CSRF token); return the cookie."""
    import re

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", "/login")
    response = conn.getresponse()
    page = response.read().decode()
    cookie = response.getheader("Set-Cookie", "").split(";")[0]
    match = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page)
    fields = {"email": email, "password": password}
    if match:
        fields["csrf_token"] = match.group(1)
    body = urllib.parse.urlencode(fields)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request(
        "POST",
        "/login",
        body=body.encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie},
    )
    response = conn.getresponse()
    response.read()
    if response.status not in (302, 303):
        raise RuntimeError(f"sign-in as {email} answered {response.status}")
    cookie = response.getheader("Set-Cookie", "").split(";")[0] or cookie
    if urllib.parse.urlsplit(response.getheader("Location", "")).path == "/login/totp":
        cookie = _second_step(port, cookie)
    return cookie


def _second_step(port: int, cookie: str) -> str:
    """Give the generated admin's code (the demo's known app secret); return the cookie."""
    import re

    import pyotp

    from tracker.demo.services.common import DEMO_ADMIN_TOTP_SECRET

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", "/login/totp", headers={"Cookie": cookie})
    page = conn.getresponse().read().decode()
    fields = {"code": pyotp.TOTP(DEMO_ADMIN_TOTP_SECRET).now()}
    if match := re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page):
        fields["csrf_token"] = match.group(1)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request(
        "POST",
        "/login/totp",
        body=urllib.parse.urlencode(fields).encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie},
    )
    response = conn.getresponse()
    response.read()
    if response.status not in (302, 303):
        raise RuntimeError(f"the second step answered {response.status}")
    return response.getheader("Set-Cookie", "").split(";")[0] or cookie


def get(port: int, path: str, cookie: str = "", timeout: float = 300) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    conn.request("GET", path, headers={"Cookie": cookie} if cookie else {})
    response = conn.getresponse()
    return response.status, response.read()


def scalar(url: str, sql: str, **params: object):
    from tracker.db import make_engine

    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(text(sql), params).scalar()
    finally:
        engine.dispose()
