"""The run's figures: the table printed, bench/results.json, the checks across sizes."""

from __future__ import annotations

from pathlib import Path

from bench.common import log

RESULTS = Path(__file__).resolve().parent / "results.json"
# "Flat": the server's and the scheduler's peak at the largest size within 20 % of the smallest's.
MEMORY_FLAT = 1.20
# "Flat" for the API's pages: a page at the largest size within twice the smallest's
# (a page of 50 takes a few milliseconds, which this 2-core machine's noise moves by half).
API_FLAT = 2.0


class Figures:
    """The run's figures: printed as a table, written as JSON."""

    def __init__(self) -> None:
        self.rows: list[dict] = []

    def add(self, size, figure, unit, value, baseline=None, target=None, met=None, **extra):
        ratio = None
        if baseline not in (None, 0) and value is not None:
            ratio = round(value / baseline, 3)
        row = {
            "size": size,
            "figure": figure,
            "unit": unit,
            "value": _round(value),
            "baseline": _round(baseline),
            "ratio": ratio,
            "target": target,
            "met": met,
            **extra,
        }
        self.rows.append(row)
        log(
            f"{size:>6} {figure}: {row['value']} {unit}"
            + (f" vs {row['baseline']} (x{ratio})" if baseline is not None else "")
            + (f" -> {'met' if met else 'MISSED'}" if met is not None else "")
        )
        return row


def _round(value):
    if isinstance(value, float):
        return round(value, 3 if value < 10 else 1)
    return value


def cross_size(figures: Figures, run_sizes: list[int]) -> list[dict]:
    """Checks across sizes: query counts equal, the API's pages and peak memory flat."""
    checks = []
    by_key: dict[str, dict[int, dict]] = {}
    for row in figures.rows:
        if row.get("key"):
            by_key.setdefault(row["key"], {})[row["size"]] = row
    for key in ("team page queries", "organisation page queries"):
        counts = {size: row["value"] for size, row in by_key.get(key, {}).items()}
        if counts:
            checks.append(
                {
                    "check": f"{key.replace(' queries', '')}: SQL queries per page at every size",
                    "values": counts,
                    "target": "equal at every size",
                    "met": len(set(counts.values())) == 1,
                }
            )
    for key in sorted(k for k in by_key if k.startswith("api ")):
        found = by_key[key]
        if len(found) < 2:
            continue
        times = {size: row["value"] for size, row in found.items()}
        counts = {size: row.get("queries") for size, row in found.items()}
        small, large = times[min(times)], times[max(times)]
        checks.append(
            {
                "check": f"API, {key.removeprefix('api ')} page: largest size against smallest",
                "values": times,
                "queries": counts,
                "ratio": round(large / small, 3),
                "target": f"flat: <= {API_FLAT}x, queries equal",
                "met": large <= API_FLAT * small and len(set(counts.values())) == 1,
            }
        )
    for key, name in (("scheduler memory", "scheduler"), ("server memory", "server worker")):
        peaks = {size: row["value"] for size, row in by_key.get(key, {}).items()}
        if len(peaks) > 1:
            small, large = peaks[min(peaks)], peaks[max(peaks)]
            checks.append(
                {
                    "check": f"{name} peak memory, largest size against smallest",
                    "values": peaks,
                    "ratio": round(large / small, 3),
                    "target": f"flat: <= {MEMORY_FLAT}x",
                    "met": large <= MEMORY_FLAT * small,
                }
            )
    return checks


def table(figures: Figures, checks: list[dict]) -> str:
    lines = []
    header = f"{'size':>6}  {'figure':<92} {'value':>10} {'baseline':>10} {'ratio':>7}  target"
    lines.append(header)
    lines.append("-" * len(header))
    for row in figures.rows:
        value = "-" if row["value"] is None else f"{row['value']:,}"
        baseline = "" if row["baseline"] is None else f"{row['baseline']:,}"
        ratio = "" if row["ratio"] is None else f"{row['ratio']:.2f}"
        target = ""
        if row["target"]:
            target = f"{row['target']}: {'met' if row['met'] else 'MISSED'}"
        figure = f"{row['figure']} [{row['unit']}]"
        lines.append(
            f"{row['size']:>6}  {figure:<92.92} {value:>10} {baseline:>10} {ratio:>7}  {target}"
        )
    lines.append("")
    for check in checks:
        state = "" if check["met"] is None else ("met" if check["met"] else "MISSED")
        values = ", ".join(f"{size}: {value}" for size, value in check["values"].items())
        lines.append(f"{check['check']}: {values} ({check['target']}) {state}")
    return "\n".join(lines)
