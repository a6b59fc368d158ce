"""Processes the benchmarks start: gunicorn servers, `tracker` commands, an SMTP sink."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.common import BIN, ROOT, SECRET


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
