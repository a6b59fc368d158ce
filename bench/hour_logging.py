"""The HTTP figures: hour logging beside the bare endpoint, and the workers' peak memory."""

from __future__ import annotations

import os
import statistics

from sqlalchemy import text

from bench.clients import get, hammer, hours_request, sign_in
from bench.common import env_int
from bench.figures import Figures
from bench.organisation import create_tokens
from bench.servers import Server, vm_hwm_mb

HOURS_TARGET = 0.85


def bench_http(url: str, size: int, admin: str, password: str, today, figures: Figures) -> None:
    from bench.bare_app import bench_hours
    from tracker.db import make_engine

    seconds = float(os.environ.get("BENCH_HTTP_SECONDS") or 5)
    clients = env_int("BENCH_CLIENTS", 8)
    tokens = create_tokens(url, 64)
    engine = make_engine(url)
    bench_hours.drop(engine, checkfirst=True)
    bench_hours.create(engine)
    tracker = Server.tracker(url, workers=2)
    bare = Server.bare(url, workers=2)
    try:
        make = hours_request(tokens, "FDL", today)
        for server in (tracker, bare):
            hammer(server.port, make, 1.0, clients)  # warm up
        runs: dict[str, list] = {"tracker": [], "bare": []}
        for _ in range(env_int("BENCH_HTTP_ROUNDS", 5)):
            runs["tracker"].append(hammer(tracker.port, make, seconds, clients))
            runs["bare"].append(hammer(bare.port, make, seconds, clients))
        # Medians: a round that something else on the machine slowed down
        # (one side's or the other's) does not decide the figure.
        tracker_rps = statistics.median(r.rps for r in runs["tracker"])
        bare_rps = statistics.median(r.rps for r in runs["bare"])
        statuses: dict[str, int] = {}
        for r in runs["tracker"]:
            for status, n in r.statuses.items():
                statuses[str(status)] = statuses.get(str(status), 0) + n
        errors = sum(sum(r.errors.values()) for r in runs["tracker"] + runs["bare"])
        server_errors = sum(r.count(500, 600) for r in runs["tracker"] + runs["bare"])
        figures.add(
            size,
            f"POST /api/v1/hours, 2 workers, {clients} clients",
            "requests/s",
            tracker_rps,
            bare_rps,
            f">= {HOURS_TARGET:.0%} of bare endpoint",
            tracker_rps >= HOURS_TARGET * bare_rps and not server_errors and not errors,
            key="hours",
            statuses=statuses,
            errors=errors,
            server_errors=server_errors,
        )
        # The workers' peak memory after the hour logs and the heaviest pages.
        cookie = sign_in(tracker.port, admin, password)
        with engine.connect() as conn:
            team_id = conn.execute(text("SELECT min(id) FROM teams")).scalar()
        for path in ("/organisation", f"/teams/{team_id}", "/organisation"):
            status, _ = get(tracker.port, path, cookie)
            assert status == 200, f"{path} answered {status} through the server"
        peaks = [vm_hwm_mb(pid) or 0 for pid in tracker.worker_pids()]
        figures.add(
            size,
            "server worker peak memory (after the organisation page)",
            "MB",
            max(peaks),
            key="server memory",
        )
    finally:
        tracker.stop()
        bare.stop()
        bench_hours.drop(engine, checkfirst=True)
        engine.dispose()
