"""What every benchmark shares: the project's root, the servers' key, the log, timing, the app."""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SECRET = "bench-secret-key-shared-by-every-worker"


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def env_int(name: str, default: int) -> int:
    return int(os.environ.get(name) or default)


def paired_medians(fn, baseline, repeat: int) -> tuple[float, float]:
    """Time `fn` and `baseline` alternately (noise hits both alike); return both medians."""
    ours, theirs = [], []
    for _ in range(repeat):
        for f, times in ((fn, ours), (baseline, theirs)):
            began = time.perf_counter()
            f()
            times.append(time.perf_counter() - began)
    return statistics.median(ours), statistics.median(theirs)


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
