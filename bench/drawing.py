"""The pages' baselines written out as HTML by hand: f-strings over the baselines' numbers.

A hand-written page still writes its HTML: the same tables, rows and cells as
the tracker's page (heat map, seats, forecast, history and its table, path
progress, expiries; the organisation's table and history), each text escaped,
in a fixed shell of the size of the tracker's head and navigation. No
template engine, no translation, no formatting beyond `str`.
"""

from __future__ import annotations

import datetime as dt
from html import escape

ICONS = {"valid": "✔", "expiring": "⚠", "expired": "✖", "missing": "○"}
# The tracker's head, navigation and sign-out form: static text to a hand-written page.
SHELL = '<!doctype html><html lang="en"><head><meta charset="utf-8">' + (
    '<link rel="stylesheet" href="/static/app.css">' * 40
)


def _badge(status: str, left: int | None) -> str:
    days = f" · {left} days left" if left is not None and status != "missing" else ""
    return (
        f'<span class="status status-{status}"><span aria-hidden="true">{ICONS[status]}</span>'
        f" {status}{days}</span>"
    )


def _history(points, months) -> str:
    if not points:
        return "<p>No history yet.</p>"
    first = points[0][0]
    span = max((points[-1][0] - first).days, 1)
    line = " ".join(
        f"{44 + (p[0] - first).days / span * 592:.1f},{8 + (1000 - p[3]) / 1000 * 172:.1f}"
        for p in points
    )
    rows = "".join(
        f'<tr><th scope="row"><time datetime="{m[0].isoformat()}">{m[0]:%b %Y}</time></th>'
        f"<td>{m[1]} of {m[2]}</td><td>{m[3] / 10}%</td><td>{m[4]}</td></tr>"
        for m in months
    )
    return (
        f'<figure class="history"><svg viewBox="0 0 640 206" role="img" class="chart">'
        f'<polyline class="line" points="{line}"></polyline></svg></figure>'
        f'<details><table class="compact"><tbody>{rows}</tbody></table></details>'
    )


def team_html(numbers: dict, team_name: str, on: dt.date) -> str:
    """Write the team page from `baselines.team_numbers`."""
    people, columns = numbers["people"], numbers["columns"]
    seats = "".join(
        f"<tr><td>{escape(slot.title)}</td><td>{slot.min_level}-{slot.max_level}</td><td>"
        + (f'<a href="/engineers/{name}">{escape(name)}</a>' if name else "✖ open")
        + "</td></tr>"
        for slot, name in numbers["seats"]
    )
    total = numbers["total"] or 1
    forecast = "".join(
        f'<rect x="{30 + i * 50}" y="{200 - filled * 190 / total:.1f}" width="42" class="bar">'
        f'</rect><text class="value">{filled}/{numbers["total"]}</text>'
        for i, filled in enumerate(numbers["forecast"])
    )
    heat = "".join(
        f'<tr><th scope="row"><a href="/engineers/{p.id}">{escape(p.name)}</a>'
        f' <small class="muted">L{p.level}</small></th>'
        + "".join(f'<td class="cell-{s}">{_badge(s, left)}</td>' for s, left in row)
        + "</tr>"
        for p, row in zip(people, numbers["cells"], strict=True)
    )
    expiring = "".join(
        f'<tr><td><time datetime="{expires.isoformat()}">{expires:%b %d, %Y}</time></td>'
        f"<td>{escape(name)}</td><td>{credential}</td>"
        f"<td>{_badge('valid' if on <= expires else 'expired', (expires - on).days)}</td></tr>"
        for expires, name, credential in numbers["expiring_rows"]
    )
    progress = "".join(
        f'<article><header><a href="/engineers/{p.id}">{escape(p.name)}</a></header>'
        + "".join(
            f'<div class="progress-label"><span id="p-{p.id}-{i}-label">Path {i}</span>'
            f"<span>{counted / 100:g} / {required / 100:g} h</span></div>"
            f'<progress id="p-{p.id}-{i}" value="{counted / 100:g}" max="{required / 100:g}"'
            f' aria-labelledby="p-{p.id}-{i}-label"></progress>'
            for i, (counted, required) in enumerate(bars)
        )
        + "</article>"
        for p, bars in zip(people, numbers["bars"], strict=True)
    )
    head = "".join(f'<th scope="col">{c}</th>' for c in columns)
    return (
        f"{SHELL}<title>{escape(team_name)}</title></head><body><main>"
        f"<h1>{escape(team_name)}</h1><p>{numbers['filled']} of {numbers['total']} seats filled"
        f" on {on.isoformat()}</p><table><tbody>{seats}</tbody></table>"
        f'<h2>Forecast</h2><svg viewBox="0 0 640 230">{forecast}</svg>'
        f"<h2>History</h2>{_history(numbers['points'], numbers['months'])}"
        f'<h2>Heat map</h2><table class="compact heatmap"><thead><tr><th>Engineer</th>{head}'
        f"</tr></thead><tbody>{heat}</tbody></table>"
        f"<h2>Expiring</h2><table><tbody>{expiring}</tbody></table>"
        f'<h2>Path progress</h2><div class="grid">{progress}</div></main></body></html>'
    )


def organisation_html(numbers: dict, on: dt.date) -> str:
    """Write the organisation page from `baselines.organisation_page_numbers`."""
    teams, filled, total, _ = numbers["totals"]
    rows = "".join(
        f'<tr><th scope="row"><a href="/teams/{tid}">{escape(name)}</a></th>'
        f"<td>{escape(manager or '—')}</td><td>{band}</td><td>{got} of {seats}</td>"
        f"<td>{tenths / 10}%</td><td>{lapsing}</td><td>"
        + (
            "<span>—</span>"
            if previous is None
            else f'<span aria-hidden="true">{(tenths - previous) / 10:+}</span>'
        )
        + "</td></tr>"
        for tid, name, _, _, manager, _, band, got, seats, tenths, lapsing, previous in numbers[
            "rows"
        ]
    )
    return (
        f"{SHELL}<title>Organisation</title></head><body><main><h1>Organisation readiness</h1>"
        f"<p>Every team on {on.isoformat()}: {filled} of {total} seats filled.</p>"
        f'<p>{teams} teams</p><table class="compact summary"><tbody>{rows}</tbody></table>'
        f"<h2>History</h2>{_history(numbers['points'], numbers['months'])}</main></body></html>"
    )
