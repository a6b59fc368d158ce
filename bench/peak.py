"""Run the `tracker` command in this process and report its peak memory at exit.

`python -m bench.peak FILE scheduler --once` runs `tracker scheduler --once` and
writes the process's VmHWM (peak resident set, MB) to FILE. Read from
/proc/self/status at exit: unlike the rusage a parent collects, it does not
include the pages of the process that started it (a forked child's rusage
high-water mark counts the parent's resident set at the fork).
"""

from __future__ import annotations

import sys
from pathlib import Path


def vm_hwm_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    out = Path(sys.argv[1])
    sys.argv = ["tracker", *sys.argv[2:]]
    from tracker.__main__ import main as tracker

    try:
        tracker()
    finally:
        out.write_text(f"{vm_hwm_mb():.1f}\n")


if __name__ == "__main__":
    main()
