"""A real `tracker serve` (gunicorn) in a subprocess, on a temporary SQLite file.

The browser tests and the live security probes drive the tracker the way a
user or an attacker meets it: over HTTP, through the production server.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from tests.factories import SEED
from tracker.config import PROJECT_ROOT

TRACKER = str(Path(sys.executable).with_name("tracker"))
SECRET_KEY = "live-test-secret-key"


def free_port() -> int:
    """Return a TCP port on 127.0.0.1 that nothing listens on (now)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def tracker_env(database_url: str, **extra: str) -> dict[str, str]:
    """Return the environment of a `tracker` command on `database_url`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRACKER_")}
    env.update(
        # This checkout's code, not whichever one the virtualenv's editable install names
        # (a worktree sharing the main checkout's virtualenv).
        PYTHONPATH=os.pathsep.join(filter(None, [str(PROJECT_ROOT), env.get("PYTHONPATH")])),
        TRACKER_DATABASE_URL=database_url,
        TRACKER_SECRET_KEY=SECRET_KEY,
        TRACKER_SEED_PATH=str(SEED),
    )
    env.update(extra)
    return env


def run_tracker(env: dict[str, str], *args: str, timeout: float = 120) -> str:
    """Run `tracker ARGS...`; return its output, failing with it when the command fails."""
    result = subprocess.run(
        [TRACKER, *args],
        env=env,
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert result.returncode == 0, f"tracker {' '.join(args)}:\n{result.stdout}\n{result.stderr}"
    return result.stdout


@dataclass
class LiveServer:
    """A running `tracker serve`; `url` is its base URL."""

    process: subprocess.Popen
    url: str
    env: dict[str, str]
    log: Path

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)

    def tracker(self, *args: str) -> str:
        """Run another `tracker` command on the server's database (as an operator would)."""
        return run_tracker(self.env, *args)

    def tracker_with(self, extra_env: dict[str, str], *args: str) -> str:
        """Run a `tracker` command on the server's database with more settings."""
        return run_tracker({**self.env, **extra_env}, *args)


def start_server(
    env: dict[str, str], log: Path, workers: int | None = 1, *options: str, port: int | None = None
) -> LiveServer:
    """Start `tracker serve OPTIONS...` on `port` (default: a free one); wait until it answers.

    `workers` None leaves the worker count at the command's default.
    """
    port = port or free_port()
    args = [TRACKER, "serve", "--port", str(port), *options]
    if workers is not None:
        args += ["--workers", str(workers)]
    with log.open("wb") as out:
        process = subprocess.Popen(
            args,
            env=env,
            cwd=PROJECT_ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = LiveServer(process, f"http://127.0.0.1:{port}", env, log)
    deadline = time.monotonic() + 30
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"tracker serve exited:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{server.url}/login", timeout=2) as response:
                if response.status == 200:
                    return server
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        if time.monotonic() > deadline:
            server.stop()
            raise RuntimeError(f"tracker serve did not answer in 30 s:\n{log.read_text()}")
        time.sleep(0.1)
