"""`make bench`: every figure beside its baseline or target, at each organisation size, in one run.

Environment:
  BENCH_SIZES                 organisation sizes in engineers (default 1000,10000,50000,100000)
  TRACKER_BENCH_DATABASE_URL  scratch database, created and dropped here (default
                              postgresql+psycopg://postgres@127.0.0.1:5432/tracker_bench;
                              a SQLite file in a temporary folder when PostgreSQL is not reachable)
  BENCH_HTTP_SECONDS          seconds per hour-logging round (default 5)
  BENCH_HTTP_ROUNDS           rounds per server, alternating tracker and bare (default 5)
  BENCH_CLIENTS               concurrent HTTP clients (default 8)
  BENCH_NOTICES               notices delivered over SMTP per run (default 300)
  BENCH_LOAD=1                also run the load test (bench/load.py) on both databases
  BENCH_FIGURES               which groups to measure (default pages,refresh,reminders,http)

Prints a table and writes bench/results.json. Exits 0 whether or not a target is
met (the table and the JSON say which); 1 when a step fails.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import sys
import time

from bench.common import log
from bench.databases import Database, settle
from bench.figures import RESULTS, Figures, cross_size, table
from bench.hour_logging import bench_http
from bench.organisation import build_organisation
from bench.pages import bench_pages
from bench.refresh import bench_refresh
from bench.reminders import bench_reminders

DEFAULT_SIZES = "1000,10000,50000,100000"


def sizes() -> list[int]:
    raw = os.environ.get("BENCH_SIZES") or DEFAULT_SIZES
    return sorted({int(part) for part in raw.split(",") if part.strip()})


def main() -> int:
    started = time.monotonic()
    run_sizes = sizes()
    groups = {
        g.strip()
        for g in (os.environ.get("BENCH_FIGURES") or "pages,refresh,reminders,http").split(",")
    }
    db = Database.choose()
    today = dt.datetime.now(dt.UTC).date()
    log(f"benchmarks on {db.label} ({db.url}), sizes {run_sizes}, today {today}")
    figures = Figures()
    report = {
        "database": db.label,
        "sizes": run_sizes,
        "date": today.isoformat(),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
    }
    try:
        for size in run_sizes:
            log(f"--- {size} engineers: generating the organisation")
            generated = build_organisation(db, size, today)
            figures.add(
                size,
                "generate the organisation: " + generated.summary().removeprefix("generated "),
                "s",
                generated.seconds,
                key="generate",
                rows=generated.rows,
            )
            admin, password = generated.admin_email, generated.password
            if "pages" in groups:
                bench_pages(db.url, size, admin, password, today, figures)
            if "refresh" in groups:
                bench_refresh(db.url, size, today, figures)
            if "reminders" in groups:
                bench_reminders(db.url, size, today, figures)
                settle(db.url)  # the pass and the deliveries wrote thousands of rows
            if "http" in groups:
                bench_http(db.url, size, admin, password, today, figures)
            db.drop()
    finally:
        db.drop()
    checks = cross_size(figures, run_sizes)
    if os.environ.get("BENCH_LOAD"):
        from bench import load

        report["load"] = load.run_both()
    report["figures"] = figures.rows
    report["checks"] = checks
    report["seconds"] = round(time.monotonic() - started, 1)
    missed = [r["figure"] for r in figures.rows if r["met"] is False]
    missed += [c["check"] for c in checks if c["met"] is False]
    report["targets_missed"] = missed
    RESULTS.write_text(json.dumps(report, indent=2, default=str) + "\n")
    print()
    print(table(figures, checks))
    print()
    print(f"{db.label}; sizes {run_sizes}; {report['seconds']:.0f} s in all; written {RESULTS}")
    if missed:
        print("targets missed: " + "; ".join(missed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
