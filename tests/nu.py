"""The Nu HTML checker (vnu.jar): where it is, running it over saved pages, its report.

Needs Java and vnu.jar: `npm install --no-save vnu-jar@26.9` (`make test-tools`) puts
the jar in node_modules/ (or point VNU_JAR at one); the tests using it skip without.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit

from tracker.config import PROJECT_ROOT

VNU_JAR = Path(
    os.environ.get("VNU_JAR")
    or PROJECT_ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
)
JAVA = shutil.which("java")


def validate(folder: Path, names: list[str]) -> list[dict]:
    """Run one vnu.jar over every page saved; return its messages."""
    result = subprocess.run(
        # C1 alone halves the checker's time on a run this short; it then needs a deeper stack.
        [JAVA, "-Xss4m", "-XX:TieredStopAtLevel=1", "-jar", str(VNU_JAR)]
        + ["--format", "json", "--exit-zero-always"]
        + [str(folder / name) for name in names],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    # vnu writes its JSON report to stderr.
    return json.loads(result.stderr)["messages"]


def grouped(messages: Iterable[dict], saved: dict[str, str]) -> str:
    """Return the messages one line per kind: count, message, first pages, an extract."""
    kinds: dict[str, list[dict]] = defaultdict(list)
    for m in messages:
        kinds[f"{m.get('type')}: {m.get('message')}"].append(m)
    lines = []
    for kind, found in sorted(kinds.items(), key=lambda item: -len(item[1])):
        pages: dict[str, dict] = {}
        for m in found:
            pages.setdefault(Path(urlsplit(m.get("url", "")).path).name, m)
        lines.append(f"{len(found)} x {kind} on {len(pages)} pages, e.g.")
        lines += [
            f"    - {saved.get(name, name)} line {m.get('lastLine')}: {m.get('extract', '')!r}"
            for name, m in sorted(pages.items())[:3]
        ]
    return "\n".join(lines)
