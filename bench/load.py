"""`make load`: many concurrent clients against `tracker serve --workers 2`, both databases.

Each client is one of a few engineers (two or more clients share an engineer,
so their hour logs race for the same days). For a fixed time the clients log
hours (0.25-3 h on one of the last few days; some ask for more than the day
has left on purpose), and read their progress, their hour log, their
certifications and their dashboard page. Afterwards:

- no request failed: no 5xx, no connection error, and every 400 is the
  24-hours-a-day refusal of an hour log that would pass the limit;
- every engineer's total hours in the database equal what they had before
  plus what the server accepted (the 201s), to the hundredth;
- no engineer has more than 24 hours on any day.

Environment: BENCH_LOAD_SECONDS (default 20), BENCH_LOAD_CLIENTS (default 32),
BENCH_LOAD_ENGINEERS (default 16, the engineers the clients share),
TRACKER_BENCH_DATABASE_URL (the PostgreSQL server to use; its database
tracker_load is created and dropped). Exits 1 when a check fails.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import sys
import threading
import time
from collections import Counter, defaultdict

from sqlalchemy import text
from sqlalchemy.engine import make_url

from bench.clients import hammer, sign_in
from bench.common import log
from bench.databases import DEFAULT_PG_URL, Database, postgres_reachable
from bench.organisation import build_organisation, create_tokens
from bench.servers import Server

DAYS = 3  # hour logs go to today and the two days before: they fill up and race
COURSES = ("FDL", "INTRO-AI-INFRA", "GPU-ARCH", "MULTI-GPU", "IB-NET")
LIMIT_MESSAGE = "a day holds at most 24 hours"


def _databases() -> list[Database]:
    import tempfile

    tmp = tempfile.mkdtemp(prefix="tracker-load-")
    found = [Database(f"sqlite:///{tmp}/load.db", "sqlite", tmp)]
    url = os.environ.get("TRACKER_BENCH_DATABASE_URL") or DEFAULT_PG_URL
    if url.startswith("postgresql"):
        url = make_url(url).set(database="tracker_load").render_as_string(hide_password=False)
        if postgres_reachable(url):
            found.append(Database(url, "postgresql"))
        else:
            log(f"PostgreSQL is not reachable at {url}: the PostgreSQL load test is skipped")
    return found


def _totals(url: str, ids: list[int]) -> dict[int, int]:
    from tracker.db import make_engine

    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                text(
                    "SELECT engineer_id, COALESCE(SUM(hours), 0) FROM hour_logs "
                    "WHERE engineer_id IN ({}) GROUP BY engineer_id".format(
                        ", ".join(str(int(i)) for i in ids)
                    )
                )
            ).all()
        return dict.fromkeys(ids, 0) | {eid: int(total) for eid, total in rows}
    finally:
        engine.dispose()


def _over_limit_days(url: str) -> list[tuple]:
    from tracker.db import make_engine

    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            return conn.execute(
                text(
                    "SELECT engineer_id, logged_on, SUM(hours) FROM hour_logs "
                    "GROUP BY engineer_id, logged_on HAVING SUM(hours) > 2400"
                )
            ).all()
    finally:
        engine.dispose()


def run(db: Database, seconds: float, clients: int, engineers: int) -> dict:
    """Run the load test on one database; return its summary (with `ok`)."""
    today = dt.datetime.now(dt.UTC).date()
    log(f"load test on {db.label}: preparing an organisation")
    generated = build_organisation(db, max(engineers * 3, 60), today, seed=3)
    tokens = create_tokens(db.url, engineers, seed=5)
    ids = [engineer_id for engineer_id, _, _ in tokens]
    before = _totals(db.url, ids)
    server = Server.tracker(db.url, workers=2)
    accepted: dict[int, int] = defaultdict(int)
    refused_over_limit = Counter()
    unexpected: list[str] = []
    lock = threading.Lock()
    emails = {}
    try:
        from tracker.db import make_engine

        engine = make_engine(db.url)
        with engine.connect() as conn:
            for engineer_id, email in conn.execute(
                text(
                    "SELECT id, email FROM engineers WHERE id IN ({})".format(
                        ", ".join(str(i) for i in ids)
                    )
                )
            ):
                emails[engineer_id] = email
        engine.dispose()
        # Every client signs in once for the dashboard page (the API uses the token).
        cookies = {
            n: sign_in(server.port, emails[tokens[n % len(tokens)][0]], generated.password)
            for n in range(clients)
        }
        days = [today - dt.timedelta(days=n) for n in range(DAYS)]

        def make(rng: random.Random, client: int):
            engineer_id, secret, hired_on = tokens[client % len(tokens)]
            auth = {"Authorization": f"Bearer {secret}"}
            roll = rng.random()
            if roll < 0.65:
                usable = [d for d in days if d >= hired_on] or [today]
                hundredths = rng.choice(range(25, 301, 25))
                if roll < 0.05:
                    hundredths = rng.choice((1200, 2000, 2400))  # over the limit on purpose
                body = {
                    "course": rng.choice(COURSES),
                    "date": rng.choice(usable).isoformat(),
                    "hours": hundredths / 100,
                    "note": f"load {client}",
                }
                return (
                    "POST",
                    "/api/v1/hours",
                    json.dumps(body).encode(),
                    {**auth, "Content-Type": "application/json"},
                )
            if roll < 0.80:
                return ("GET", f"/api/v1/engineers/{engineer_id}/progress", None, auth)
            if roll < 0.88:
                return ("GET", "/api/v1/certifications", None, auth)
            if roll < 0.93:
                return ("GET", "/api/v1/hours", None, auth)
            return ("GET", "/dashboard", None, {"Cookie": cookies[client]})

        def on_response(client: int, request, status: int, payload: bytes) -> None:
            method, path, body, _ = request
            engineer_id = tokens[client % len(tokens)][0]
            if method == "POST" and status == 201:
                hundredths = round(json.loads(body)["hours"] * 100)
                with lock:
                    accepted[engineer_id] += hundredths
            elif method == "POST" and status == 400 and LIMIT_MESSAGE in payload.decode():
                with lock:
                    refused_over_limit[engineer_id] += 1
            elif status != 200 and not (method == "POST" and status == 201):
                with lock:
                    unexpected.append(f"{method} {path} -> {status}: {payload[:200]!r}")

        log(f"load test on {db.label}: {clients} clients, {engineers} engineers, {seconds:.0f} s")
        result = hammer(server.port, make, seconds, clients, on_response, seed=17)
    finally:
        server.stop()
    after = _totals(db.url, ids)
    mismatched = {
        engineer_id: {
            "before": before[engineer_id],
            "accepted": accepted[engineer_id],
            "after": after[engineer_id],
        }
        for engineer_id in ids
        if after[engineer_id] != before[engineer_id] + accepted[engineer_id]
    }
    over = _over_limit_days(db.url)
    summary = {
        "database": db.label,
        "seconds": round(result.seconds, 1),
        "clients": clients,
        "engineers": engineers,
        "requests": result.completed,
        "requests_per_second": round(result.rps, 1),
        "statuses": {str(k): v for k, v in sorted(result.statuses.items())},
        "hour_logs_accepted": result.statuses.get(201, 0),
        "hours_accepted": sum(accepted.values()) / 100,
        "refused_over_24h": sum(refused_over_limit.values()),
        "server_errors": result.count(500, 600),
        "connection_errors": dict(result.errors),
        "unexpected": unexpected[:20],
        "unexpected_count": len(unexpected),
        "totals_mismatched": mismatched,
        "days_over_24h": [(e, str(d), int(h) / 100) for e, d, h in over],
        "server_stderr_tail": "",
    }
    summary["ok"] = not (
        summary["server_errors"] or summary["connection_errors"] or unexpected or mismatched or over
    )
    if not summary["ok"]:
        summary["server_stderr_tail"] = server.errors()[-3000:]
    db.drop()
    return summary


def report(summary: dict) -> str:
    s = summary
    lines = [
        f"{s['database']}: {s['requests']:,} requests in {s['seconds']} s "
        f"({s['requests_per_second']} /s) from {s['clients']} clients "
        f"sharing {s['engineers']} engineers",
        f"  statuses: {s['statuses']}",
        f"  hour logs accepted: {s['hour_logs_accepted']:,} ({s['hours_accepted']:,} h); "
        f"refused at the 24 h limit: {s['refused_over_24h']:,}",
        f"  5xx: {s['server_errors']}; connection errors: {s['connection_errors'] or 0}; "
        f"other failures: {s['unexpected_count']}",
        f"  totals equal to what was accepted: "
        f"{'yes' if not s['totals_mismatched'] else 'NO ' + str(s['totals_mismatched'])}",
        f"  days over 24 h: {len(s['days_over_24h']) or 'none'}",
        f"  {'PASS' if s['ok'] else 'FAIL'}",
    ]
    if s["unexpected"]:
        lines += ["  first failures:", *[f"    {u}" for u in s["unexpected"][:5]]]
    return "\n".join(lines)


def run_both() -> list[dict]:
    seconds = float(os.environ.get("BENCH_LOAD_SECONDS") or 20)
    clients = int(os.environ.get("BENCH_LOAD_CLIENTS") or 32)
    engineers = int(os.environ.get("BENCH_LOAD_ENGINEERS") or 16)
    summaries = []
    for db in _databases():
        try:
            summaries.append(run(db, seconds, clients, engineers))
        finally:
            db.drop()
        print(report(summaries[-1]), flush=True)
    return summaries


def main() -> int:
    started = time.monotonic()
    summaries = run_both()
    path = os.path.join(os.path.dirname(__file__), "load-results.json")
    with open(path, "w") as f:
        json.dump(summaries, f, indent=2, default=str)
        f.write("\n")
    print(f"load test: {time.monotonic() - started:.0f} s; written {path}")
    return 0 if all(s["ok"] for s in summaries) else 1


if __name__ == "__main__":
    sys.exit(main())
